//! Bands per country from memory (`GET /api/countries`, issue 31).
//!
//! The density layer's counts were two full scans of `bands` per request on the public
//! pool, outside the rate limit: 16 requests in flight took every public connection. This
//! copy holds the catalogue grouped by the columns the map filters on — (code, country,
//! genre, status, formation year) with a count each, a few thousand groups for 150,000
//! bands — and answers a filter with one pass over the groups, giving what the SQL of
//! `bandmap_db::country_counts` gives: every band of the catalogue counts, placed or not;
//! `genre` a case-insensitive substring, `country` the name or the code, `status` equality,
//! years inclusive (a band without a year excluded when a bound is given), families by
//! [`Family::of_genre`]; per code the sum and the first country name in the database's
//! collation among the kept bands (the load is ordered by it).
//!
//! Case folding is the name search's ([`crate::name_search::fold`]), PostgreSQL's `lower()`.
//! The copy is loaded and kept fresh with the name search (same notifications, same
//! freshness rule: not used while a change is known and not yet loaded).

use crate::map::Family;
use crate::name_search::fold;
use bandmap_db::country_counts::{CountryCount, CountryGroup};
use std::collections::HashMap;

/// Marker of a NULL text.
const NULL: u32 = u32::MAX;
/// Marker of a NULL status (statuses are a handful of values).
const NULL16: u16 = u16::MAX;

/// Codes are two letters `A`–`Z` (upper-cased by the load): one slot each.
const SLOTS: usize = 26 * 26;

fn slot_of(code: [u8; 2]) -> usize {
    usize::from(code[0].wrapping_sub(b'A')) * 26 + usize::from(code[1].wrapping_sub(b'A'))
}

fn code_of(slot: usize) -> String {
    let letter = |n: usize| char::from(b'A' + u8::try_from(n % 26).unwrap_or(0));
    [letter(slot / 26), letter(slot)].iter().collect()
}

/// One group: a combination of values and its bands.
/// 20 bytes: a catalogue of 150,000 bands makes up to as many groups (bench/countries).
#[derive(Debug, Clone, Copy)]
struct Group {
    /// Rank of the country name in the database's order (= its id); [`NULL`] for none.
    country: u32,
    genre: u32,
    bands: u32,
    status: u16,
    /// [`NO_YEAR`] for none.
    year: i16,
    code: [u8; 2],
}

/// The year of a band without one (no real year is this low).
const NO_YEAR: i16 = i16::MIN;

impl Group {
    fn year(&self) -> Option<i32> {
        (self.year != NO_YEAR).then_some(i32::from(self.year))
    }
}

/// Distinct texts of one column: their folded forms, by id.
#[derive(Debug, Default)]
struct Texts {
    folded: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Texts {
    fn id(&mut self, value: Option<String>) -> u32 {
        let Some(v) = value else { return NULL };
        if let Some(&id) = self.ids.get(&v) {
            return id;
        }
        let id = u32::try_from(self.folded.len()).unwrap_or(NULL);
        self.folded.push(fold(&v));
        self.ids.insert(v, id);
        id
    }

    /// A lookup table by id of `pred` on the folded forms.
    fn hits(&self, pred: impl Fn(&str) -> bool) -> Vec<bool> {
        self.folded.iter().map(|s| pred(s)).collect()
    }
}

/// What a request asks for (texts as the API cleaned them; empty = no constraint).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountryQuery {
    /// Case-insensitive substring of the genre.
    pub genre: Option<String>,
    /// Country name or code, case-insensitive equality.
    pub country: Option<String>,
    /// Status, case-insensitive equality.
    pub status: Option<String>,
    /// Lowest formation year.
    pub year_min: Option<i32>,
    /// Highest formation year.
    pub year_max: Option<i32>,
    /// Bits of [`Family::bit`]; 0 = every family.
    pub families: u16,
}

/// The copy.
#[derive(Debug, Default)]
pub struct CountryTable {
    groups: Vec<Group>,
    /// Country names by rank, as stored.
    names: Vec<String>,
    countries: Texts,
    genres: Texts,
    /// The family bit of each genre id.
    genre_family: Vec<u16>,
    /// The family bit of a band without a genre.
    no_genre_family: u16,
    statuses: Texts,
}

/// Builds a [`CountryTable`] from rows in the load's order.
#[derive(Debug, Default)]
pub struct CountryTableBuilder {
    t: CountryTable,
    genre_names: Vec<String>,
}

impl CountryTableBuilder {
    /// Adds one group (rows must come ordered by country name, NULLs last).
    pub fn push(&mut self, g: CountryGroup) {
        let code = g.country_code.as_bytes();
        let (Some(&a), Some(&b), 2) = (code.first(), code.get(1), code.len()) else {
            return;
        };
        if !(a.is_ascii_uppercase() && b.is_ascii_uppercase()) {
            return; // never from the load's query (`upper(…)` of `[A-Za-z]{2}`)
        }
        let t = &mut self.t;
        let before = t.countries.folded.len();
        let country = t.countries.id(g.country.clone());
        if t.countries.folded.len() > before
            && let Some(name) = g.country
        {
            t.names.push(name);
        }
        let genres_before = t.genres.folded.len();
        let genre = t.genres.id(g.genre.clone());
        if t.genres.folded.len() > genres_before {
            self.genre_names.push(g.genre.unwrap_or_default());
        }
        let status = u16::try_from(t.statuses.id(g.status)).unwrap_or(NULL16);
        let year = g
            .formed_year
            .and_then(|y| i16::try_from(y).ok())
            .filter(|y| *y != NO_YEAR)
            .unwrap_or(NO_YEAR);
        // A group of more than 4 billion bands does not exist; saturate rather than wrap.
        let bands = u32::try_from(g.bands.max(0)).unwrap_or(u32::MAX);
        t.groups.push(Group {
            country,
            genre,
            bands,
            status,
            year,
            code: [a, b],
        });
    }

    /// The finished table.
    pub fn finish(mut self) -> CountryTable {
        self.t.genre_family = self
            .genre_names
            .iter()
            .map(|g| Family::of_genre(Some(g)).bit())
            .collect();
        self.t.no_genre_family = Family::of_genre(None).bit();
        self.t.groups.shrink_to_fit();
        self.t
    }
}

/// A hit table lookup; NULL matches only when the column is unconstrained (`none_hit`).
fn hit(table: &[bool], id: u32, none_hit: bool) -> bool {
    if id == NULL {
        return none_hit;
    }
    table.get(id as usize).copied().unwrap_or(false)
}

/// [`hit`] for a 16-bit id.
fn hit16(table: &[bool], id: u16, none_hit: bool) -> bool {
    if id == NULL16 {
        return none_hit;
    }
    table.get(usize::from(id)).copied().unwrap_or(false)
}

impl CountryTable {
    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Group>()
            + self.names.iter().map(|n| n.len() + 24).sum::<usize>()
            + [&self.countries, &self.genres, &self.statuses]
                .iter()
                .map(|t| t.folded.iter().map(|s| 2 * s.len() + 80).sum::<usize>())
                .sum::<usize>()
    }

    /// Groups held.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// Whether the catalogue had no band with a country code.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Bands per country code under `q`, by code; codes without a kept band are absent.
    pub fn count(&self, q: &CountryQuery) -> Vec<CountryCount> {
        let text = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(fold)
        };
        let genre = text(&q.genre);
        let country = text(&q.country);
        let status = text(&q.status);
        let genres = match &genre {
            Some(g) => self.genres.hits(|s| s.contains(g.as_str())),
            None => vec![true; self.genres.folded.len()],
        };
        let countries = match &country {
            Some(c) => self.countries.hits(|s| s == c),
            None => Vec::new(),
        };
        let statuses = match &status {
            Some(s) => self.statuses.hits(|x| x == s),
            None => vec![true; self.statuses.folded.len()],
        };
        let code_hit = |code: [u8; 2]| {
            country
                .as_deref()
                .is_none_or(|c| c.len() == 2 && c.as_bytes().eq_ignore_ascii_case(&code))
        };
        let families = if q.families == 0 {
            u16::MAX
        } else {
            q.families
        };
        // One slot per code (`AA`…`ZZ`): a sum and the lowest country rank.
        let mut slots = vec![(0i64, NULL); SLOTS];
        for g in &self.groups {
            let family = if g.genre == NULL {
                self.no_genre_family
            } else {
                self.genre_family
                    .get(g.genre as usize)
                    .copied()
                    .unwrap_or(0)
            };
            let country_ok =
                country.is_none() || hit(&countries, g.country, false) || code_hit(g.code);
            let kept = country_ok
                && hit(&genres, g.genre, genre.is_none())
                && hit16(&statuses, g.status, status.is_none())
                && q.year_min.is_none_or(|m| g.year().is_some_and(|y| y >= m))
                && q.year_max.is_none_or(|m| g.year().is_some_and(|y| y <= m))
                && family & families != 0;
            if kept && let Some(slot) = slots.get_mut(slot_of(g.code)) {
                slot.0 += i64::from(g.bands);
                slot.1 = slot.1.min(g.country);
            }
        }
        slots
            .iter()
            .enumerate()
            .filter(|(_, (bands, _))| *bands > 0)
            .map(|(i, &(bands, rank))| CountryCount {
                country_code: code_of(i),
                country: self.names.get(rank as usize).cloned(),
                bands,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(
        cc: &str,
        country: Option<&str>,
        genre: Option<&str>,
        status: &str,
        year: Option<i32>,
        bands: i64,
    ) -> CountryGroup {
        CountryGroup {
            country_code: cc.into(),
            country: country.map(Into::into),
            genre: genre.map(Into::into),
            status: Some(status.into()),
            formed_year: year,
            bands,
        }
    }

    fn table() -> CountryTable {
        let mut b = CountryTableBuilder::default();
        // In the load's order: by country name, NULLs last.
        for g in [
            group(
                "NO",
                Some("Noreg"),
                Some("Death Metal"),
                "Active",
                Some(1990),
                2,
            ),
            group(
                "NO",
                Some("Norway"),
                Some("Black Metal"),
                "Active",
                Some(1991),
                3,
            ),
            group(
                "SE",
                Some("Sweden"),
                Some("Death Metal"),
                "Split-up",
                None,
                5,
            ),
            group("NO", None, Some("Black Metal"), "Active", Some(2001), 7),
        ] {
            b.push(g);
        }
        b.finish()
    }

    fn counts(t: &CountryTable, q: CountryQuery) -> Vec<(String, Option<String>, i64)> {
        t.count(&q)
            .into_iter()
            .map(|c| (c.country_code, c.country, c.bands))
            .collect()
    }

    #[test]
    fn every_band_counts_by_code_with_the_first_name() {
        let t = table();
        assert_eq!(
            counts(&t, CountryQuery::default()),
            [
                ("NO".into(), Some("Noreg".into()), 12),
                ("SE".into(), Some("Sweden".into()), 5)
            ]
        );
    }

    #[test]
    fn filters_follow_the_sql() {
        let t = table();
        let q = CountryQuery {
            genre: Some("BLACK".into()),
            ..CountryQuery::default()
        };
        assert_eq!(counts(&t, q), [("NO".into(), Some("Norway".into()), 10)]);
        let q = CountryQuery {
            country: Some("no".into()),
            ..CountryQuery::default()
        };
        assert_eq!(
            counts(&t, q),
            [("NO".into(), Some("Noreg".into()), 12)],
            "by code"
        );
        let q = CountryQuery {
            country: Some("norway".into()),
            ..CountryQuery::default()
        };
        assert_eq!(
            counts(&t, q),
            [("NO".into(), Some("Norway".into()), 3)],
            "by name"
        );
        let q = CountryQuery {
            year_min: Some(1991),
            ..CountryQuery::default()
        };
        assert_eq!(
            counts(&t, q),
            [("NO".into(), Some("Norway".into()), 10)],
            "no year, no match"
        );
        let q = CountryQuery {
            status: Some("split-up".into()),
            ..CountryQuery::default()
        };
        assert_eq!(counts(&t, q), [("SE".into(), Some("Sweden".into()), 5)]);
        let q = CountryQuery {
            families: Family::Death.bit(),
            ..CountryQuery::default()
        };
        assert_eq!(
            counts(&t, q),
            [
                ("NO".into(), Some("Noreg".into()), 2),
                ("SE".into(), Some("Sweden".into()), 5)
            ]
        );
    }
}
