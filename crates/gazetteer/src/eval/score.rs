//! The scorer: each row through the location parser and the gazetteer, the points placed
//! compared with the true towns.

use bandmap_location::{NoNames, PlaceNames, parse_with};

use super::{MIN_CONFIDENCE, RIGHT_KM, Row};
use crate::{Gazetteer, Lookup, Query, Rules, haversine_km};

/// A point placed farther than [`RIGHT_KM`] from every true town of its row.
#[derive(Debug, Clone, PartialEq)]
pub struct WrongPlace {
    /// The row's number.
    pub row: usize,
    /// Its location text and country.
    pub text: String,
    /// Band country.
    pub country_code: String,
    /// The place text looked up (`city` and regions, as the parser read them).
    pub place: String,
    /// What it matched: GeoNames id and name, and how.
    pub matched: String,
    /// Distance to the nearest true town.
    pub km: f64,
}

/// A true town with no placed point near it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unresolved {
    /// The row's number.
    pub row: usize,
    /// Its form.
    pub form: super::Form,
    /// Its location text.
    pub text: String,
    /// Band country.
    pub country_code: String,
    /// The town left without a point.
    pub town: String,
}

/// The figures of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Score {
    /// Rows scored.
    pub rows: usize,
    /// True towns named by them (a `Town, Town` or two-step row names two).
    pub towns: usize,
    /// True towns with a placed point within [`RIGHT_KM`].
    pub right: usize,
    /// True towns with none.
    pub unresolved: Vec<Unresolved>,
    /// Points placed farther than [`RIGHT_KM`] from every true town of their row (a
    /// point placed for `N/A` or `Unknown` counts here too).
    pub wrong: Vec<WrongPlace>,
}

impl Score {
    /// Right share of the true towns, in %.
    pub fn right_pct(&self) -> f64 {
        pct(self.right, self.towns)
    }
    /// Wrong points as a share of the true towns, in %.
    pub fn wrong_pct(&self) -> f64 {
        pct(self.wrong.len(), self.towns)
    }
    /// Unresolved share of the true towns, in %.
    pub fn unresolved_pct(&self) -> f64 {
        pct(self.unresolved.len(), self.towns)
    }
    /// One line of figures.
    pub fn summary(&self) -> String {
        format!(
            "{} rows, {} true towns: right {} ({:.2} %), wrong {} ({:.3} %), unresolved {} ({:.2} %)",
            self.rows,
            self.towns,
            self.right,
            self.right_pct(),
            self.wrong.len(),
            self.wrong_pct(),
            self.unresolved.len(),
            self.unresolved_pct()
        )
    }
}

fn pct(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

/// Scores `rows` offline under `rules`: the parser gets the gazetteer's name knowledge
/// when `rules.comma_rules` is on (as the pipeline does), and a match is placed when
/// found with confidence ≥ [`MIN_CONFIDENCE`].
pub fn score(g: &Gazetteer, rows: &[Row], rules: &Rules) -> Score {
    let names: &dyn PlaceNames = if rules.comma_rules { g } else { &NoNames };
    let mut s = Score {
        rows: rows.len(),
        ..Score::default()
    };
    for row in rows {
        let mut near = vec![false; row.truth.len()];
        for step in parse_with(&row.text, Some(&row.country_code), names) {
            for place in step.places {
                let q = Query {
                    city: &place.city,
                    regions: &place.regions,
                    country_code: place.country_code.as_deref(),
                };
                let Lookup::Found(m) = g.lookup_rules(&q, rules) else {
                    continue;
                };
                if m.confidence < MIN_CONFIDENCE {
                    continue;
                }
                let mut nearest = f64::INFINITY;
                for (t, hit) in row.truth.iter().zip(near.iter_mut()) {
                    let km = haversine_km(t.lat, t.lon, m.lat, m.lon);
                    nearest = nearest.min(km);
                    if km <= RIGHT_KM {
                        *hit = true;
                    }
                }
                if nearest > RIGHT_KM {
                    s.wrong.push(WrongPlace {
                        row: row.id,
                        text: row.text.clone(),
                        country_code: row.country_code.clone(),
                        place: place.raw.clone(),
                        matched: format!("GeoNames {} {} ({})", m.geonameid, m.name, m.matched_on),
                        km: nearest,
                    });
                }
            }
        }
        s.towns += near.len();
        for (t, hit) in row.truth.iter().zip(&near) {
            if *hit {
                s.right += 1;
            } else {
                s.unresolved.push(Unresolved {
                    row: row.id,
                    form: row.form,
                    text: row.text.clone(),
                    country_code: row.country_code.clone(),
                    town: t.name.clone(),
                });
            }
        }
    }
    s
}
