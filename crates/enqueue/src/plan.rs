//! Pure planning: one band (location text + country) → the `band_locations` rows to create,
//! or the reason it gets none. No I/O, so the whole rule set is unit-tested here.
//!
//! - Every place of every parsed step is one `pending` row (`step` = the parser's order,
//!   `raw` = `Place::raw`, country = the band's country name as the upstream writes it, or
//!   the table name of a foreign country named in the text).
//! - A text with no place (N/A, Unknown, empty, a country alone) gives one `country_only`
//!   row at the country's centroid, confidence 0.1 — if the band has a real country.
//! - A band with neither a place nor a usable country (none, `XX`, `ZZ`, unrecognised) is
//!   skipped with the reason.

use bandmap_db::band_locations::enqueue::{NewLocation, PlannedFrom, Start, UnqueuedBand};
use bandmap_location::{Country, NoNames, PlaceNames, countries, parse_with};
use std::fmt;

pub use bandmap_db::band_locations::CENTROID_CONFIDENCE;

/// Why a band got no row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// No place in the text and no country at all.
    NoCountry,
    /// No place and MA's pseudo country (`XX` International, `ZZ` Unknown).
    PseudoCountry(&'static str),
    /// No place and a country the table does not know.
    UnknownCountry(String),
    /// The band's location text or country changed (or the band was deleted) between
    /// reading and inserting: its rows were planned from the old values, so none was
    /// inserted; the band has no row, so the next scan reads it again.
    Changed,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::NoCountry => f.write_str("no place in the location and no country"),
            SkipReason::PseudoCountry(code) => {
                write!(f, "no place in the location and pseudo country {code}")
            }
            SkipReason::UnknownCountry(c) => {
                write!(f, "no place in the location and unrecognised country {c:?}")
            }
            SkipReason::Changed => f.write_str(
                "location or country changed while the scan ran; read again by the next scan",
            ),
        }
    }
}

/// What to do with one band.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Rows to insert: the places of its steps, or one country-only row.
    Rows(Vec<NewLocation>),
    /// Nothing to insert.
    Skip(SkipReason),
}

/// The band's country: from the code first, then from the name column.
fn band_country(band: &UnqueuedBand) -> Result<&'static Country, SkipReason> {
    let code = non_blank(band.country_code.as_deref());
    let name = non_blank(band.country.as_deref());
    let found = code
        .and_then(countries::by_code)
        .or_else(|| name.and_then(countries::resolve));
    match found {
        Some(c) if c.is_pseudo() => Err(SkipReason::PseudoCountry(c.code)),
        Some(c) => Ok(c),
        None => match name.or(code) {
            Some(given) => Err(SkipReason::UnknownCountry(given.to_owned())),
            None => Err(SkipReason::NoCountry),
        },
    }
}

fn non_blank(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// The name stored for the band's own country: the upstream's spelling when the `country`
/// column holds that country's name, else the table's (MA) name.
fn own_country_name(band: &UnqueuedBand, country: &Country) -> String {
    match non_blank(band.country.as_deref()) {
        Some(n)
            if n.chars().count() > 2
                && countries::by_name(n).is_some_and(|c| c.code == country.code) =>
        {
            n.to_owned()
        }
        _ => country.name.to_owned(),
    }
}

/// Plans the rows of one band.
pub fn plan(band: &UnqueuedBand) -> Plan {
    plan_with(band, &NoNames)
}

/// [`plan`] with a gazetteer's place-name knowledge (issue 13): `Tukums, Riga` plans two
/// rows of one step, `Sant Pere, Santa Caterina i La Ribera` one.
pub fn plan_with(band: &UnqueuedBand, names: &dyn PlaceNames) -> Plan {
    let country = band_country(band);
    let parse_country =
        non_blank(band.country_code.as_deref()).or_else(|| non_blank(band.country.as_deref()));
    let steps = parse_with(
        band.location_text.as_deref().unwrap_or(""),
        parse_country,
        names,
    );
    if steps.is_empty() {
        return match country {
            Ok(c) => Plan::Rows(vec![country_only(band, c)]),
            Err(reason) => Plan::Skip(reason),
        };
    }
    let own = country.ok();
    let own_name = own.map(|c| own_country_name(band, c));
    let mut rows: Vec<NewLocation> = Vec::new();
    for step in steps {
        for place in step.places {
            let duplicate = rows
                .iter()
                .any(|r| r.step == step.order && r.raw == place.raw);
            if duplicate {
                continue;
            }
            let country = match place.country_code.as_deref() {
                Some(cc) if own.is_some_and(|c| c.code == cc) => own_name.clone(),
                Some(cc) => countries::by_code(cc).map(|c| c.name.to_owned()),
                None => None,
            };
            rows.push(NewLocation {
                ma_id: band.ma_id,
                planned_from: PlannedFrom::from(band),
                step: step.order,
                label: step.label.clone(),
                raw: place.raw,
                city: Some(place.city),
                regions: place.regions,
                country,
                country_code: place.country_code,
                start: Start::Pending,
            });
        }
    }
    Plan::Rows(rows)
}

/// The single resolved row of a band whose text names no place.
fn country_only(band: &UnqueuedBand, country: &Country) -> NewLocation {
    let name = own_country_name(band, country);
    NewLocation {
        ma_id: band.ma_id,
        planned_from: PlannedFrom::from(band),
        step: 0,
        label: "origin".to_owned(),
        raw: name.clone(),
        city: None,
        regions: Vec::new(),
        country: Some(name),
        country_code: Some(country.code.to_owned()),
        start: Start::CountryCentroid {
            lat: country.lat,
            lon: country.lon,
            confidence: CENTROID_CONFIDENCE,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(text: Option<&str>, country: Option<&str>, code: Option<&str>) -> UnqueuedBand {
        UnqueuedBand {
            ma_id: 7,
            location_text: text.map(str::to_owned),
            country: country.map(str::to_owned),
            country_code: code.map(str::to_owned),
        }
    }

    fn rows(p: Plan) -> Vec<NewLocation> {
        match p {
            Plan::Rows(r) => r,
            Plan::Skip(s) => panic!("skipped: {s}"),
        }
    }

    /// Knows that Tukums and Riga are two neighbouring towns of Latvia.
    struct TwoTowns;

    impl PlaceNames for TwoTowns {
        fn is_place_name(&self, _: &str, _: &str) -> bool {
            false
        }
        fn are_two_towns(&self, first: &str, second: &str, cc: &str) -> bool {
            (first, second, cc) == ("Tukums", "Riga", "LV")
        }
    }

    #[test]
    fn town_town_with_place_names_gives_two_rows_of_one_step() {
        let b = band(
            Some("Tukums, Riga (early); Riga (later)"),
            Some("Latvia"),
            Some("LV"),
        );
        let got: Vec<_> = rows(plan_with(&b, &TwoTowns))
            .iter()
            .map(|r| (r.step, r.raw.clone(), r.city.clone(), r.regions.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "Tukums".to_owned(), Some("Tukums".to_owned()), vec![]),
                (0, "Riga".to_owned(), Some("Riga".to_owned()), vec![]),
                (1, "Riga".to_owned(), Some("Riga".to_owned()), vec![]),
            ]
        );
        // Without names: one row, Riga read as Tukums' region (as before issue 13).
        let before = rows(plan(&b));
        assert_eq!(before.len(), 2);
        assert_eq!(before[0].regions, vec!["Riga".to_owned()]);
    }

    #[test]
    fn multi_step_band_gives_one_row_per_step() {
        let r = rows(plan(&band(
            Some("Sandviken, Gävleborg (early); Stockholm (later)"),
            Some("Sweden"),
            Some("SE"),
        )));
        let got: Vec<_> = r
            .iter()
            .map(|r| {
                (
                    r.step,
                    r.label.as_str(),
                    r.raw.as_str(),
                    r.country.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (0, "early", "Sandviken, Gävleborg", Some("Sweden")),
                (1, "later", "Stockholm", Some("Sweden")),
            ]
        );
        assert_eq!(r[0].regions, ["Gävleborg"]);
        assert_eq!(r[0].city.as_deref(), Some("Sandviken"));
        assert!(r.iter().all(|r| r.start == Start::Pending));
    }

    #[test]
    fn foreign_place_takes_the_named_country() {
        let r = rows(plan(&band(
            Some("Bergen (early), Bø (mid), Limousin, France (later)"),
            Some("Norway"),
            Some("NO"),
        )));
        assert_eq!(r[2].country.as_deref(), Some("France"));
        assert_eq!(r[2].country_code.as_deref(), Some("FR"));
        assert_eq!(r[0].country.as_deref(), Some("Norway"));
    }

    #[test]
    fn upstream_spelling_of_the_band_country_is_kept() {
        let r = rows(plan(&band(
            Some("Praha"),
            Some("Czech Republic"),
            Some("CZ"),
        )));
        assert_eq!(r[0].country.as_deref(), Some("Czech Republic"));
        // A code in the name column is not a name: the table's name is used.
        let r = rows(plan(&band(Some("Praha"), Some("CZ"), None)));
        assert_eq!(r[0].country.as_deref(), Some("Czechia"));
    }

    #[test]
    fn country_only_band_gets_the_centroid() {
        for text in [None, Some(""), Some("N/A"), Some("Unknown"), Some("Norway")] {
            let r = rows(plan(&band(text, Some("Norway"), Some("NO"))));
            assert_eq!(r.len(), 1, "{text:?}");
            let no = countries::by_code("NO").unwrap();
            assert_eq!(r[0].raw, "Norway");
            assert_eq!((r[0].step, r[0].label.as_str()), (0, "origin"));
            assert_eq!(
                r[0].start,
                Start::CountryCentroid {
                    lat: no.lat,
                    lon: no.lon,
                    confidence: 0.1
                }
            );
        }
    }

    #[test]
    fn no_place_and_no_usable_country_is_skipped_with_a_reason() {
        assert_eq!(
            plan(&band(Some("N/A"), None, None)),
            Plan::Skip(SkipReason::NoCountry)
        );
        assert_eq!(
            plan(&band(Some("Unknown"), Some("Unknown"), Some("ZZ"))),
            Plan::Skip(SkipReason::PseudoCountry("ZZ"))
        );
        assert_eq!(
            plan(&band(None, Some("International"), Some("XX"))),
            Plan::Skip(SkipReason::PseudoCountry("XX"))
        );
        assert_eq!(
            plan(&band(Some("-"), Some("Atlantis"), None)),
            Plan::Skip(SkipReason::UnknownCountry("Atlantis".into()))
        );
    }

    #[test]
    fn places_of_a_pseudo_country_band_are_still_queued() {
        let r = rows(plan(&band(Some("Oslo"), Some("Unknown"), Some("ZZ"))));
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].country, None);
        assert_eq!(r[0].start, Start::Pending);
    }
}
