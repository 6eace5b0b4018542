//! The compact form of a band in the search (docs/performance.md, "Serve memory"): a
//! [`SearchRow`] as loaded holds seven separately allocated strings (~420 bytes a band with
//! the allocator's overhead, ~50 MB at 120,000 bands); here the few distinct short values
//! (genre, country, code, status) are interned once for the table, the three per-band texts
//! (name, location, themes) share one allocation, and the ranks are `u32` (~170 bytes a
//! band). The matcher reads a row through a [`View`], which gives back the columns.

use bandmap_db::bands::admin::search::SearchRow;
use std::collections::HashMap;

/// Marker of an absent value (NULL string, unknown rank).
const NONE: u32 = u32::MAX;

/// Interned short values of one table (never removed: a handful of distinct values).
#[derive(Debug, Default, Clone)]
pub struct Strings {
    values: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
}

impl Strings {
    fn intern(&mut self, v: Option<Box<str>>) -> u32 {
        let Some(v) = v else { return NONE };
        if let Some(&id) = self.ids.get(&v) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(v.clone());
        self.ids.insert(v, id);
        id
    }

    fn get(&self, id: u32) -> Option<&str> {
        self.values.get(id as usize).map(|s| &**s)
    }
}

const LOCATION_NULL: u8 = 1;
const THEMES_NULL: u8 = 2;
const HAS_LAT: u8 = 4;
const HAS_LOCATION: u8 = 8;
const HAS_CONFLICT: u8 = 16;

/// One band, compact.
#[derive(Debug, Clone)]
pub struct Row {
    /// Upstream id.
    pub ma_id: i64,
    /// `name`, then `location`, then `themes` (lower-cased, as loaded).
    text: Box<str>,
    name_end: u32,
    location_end: u32,
    genre: u32,
    country: u32,
    country_code: u32,
    status: u32,
    /// Year of formation.
    pub formed_year: Option<i32>,
    /// `updated_at` in microseconds since the epoch.
    pub updated_us: i64,
    name_rank: u32,
    country_rank: u32,
    flags: u8,
}

/// A rank that fits, else unknown (a table of 4 billion bands is not a concern).
fn rank(r: Option<i64>) -> u32 {
    r.and_then(|v| u32::try_from(v).ok())
        .filter(|&v| v != NONE)
        .unwrap_or(NONE)
}

fn unrank(r: u32) -> Option<i64> {
    (r != NONE).then_some(i64::from(r))
}

impl Row {
    /// Packs a loaded row, interning its short values into `strings`.
    pub fn pack(r: SearchRow, strings: &mut Strings) -> Row {
        let mut text = String::with_capacity(
            r.name.len()
                + r.location.as_deref().map_or(0, str::len)
                + r.themes.as_deref().map_or(0, str::len),
        );
        text.push_str(&r.name);
        let name_end = text.len() as u32;
        text.push_str(r.location.as_deref().unwrap_or(""));
        let location_end = text.len() as u32;
        text.push_str(r.themes.as_deref().unwrap_or(""));
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        Row {
            ma_id: r.ma_id,
            text: text.into_boxed_str(),
            name_end,
            location_end,
            genre: strings.intern(r.genre),
            country: strings.intern(r.country),
            country_code: strings.intern(r.country_code),
            status: strings.intern(r.status),
            formed_year: r.formed_year,
            updated_us: r.updated_us,
            name_rank: rank(r.name_rank),
            country_rank: rank(r.country_rank),
            flags: flag(r.location.is_none(), LOCATION_NULL)
                | flag(r.themes.is_none(), THEMES_NULL)
                | flag(r.has_lat, HAS_LAT)
                | flag(r.has_location, HAS_LOCATION)
                | flag(r.has_conflict, HAS_CONFLICT),
        }
    }

    /// The columns of the row.
    pub fn view<'a>(&'a self, strings: &'a Strings) -> View<'a> {
        let part = |a: u32, b: u32| self.text.get(a as usize..b as usize).unwrap_or("");
        let nullable = |a: u32, b: u32, null: u8| ((self.flags & null) == 0).then(|| part(a, b));
        View {
            ma_id: self.ma_id,
            name: part(0, self.name_end),
            location: nullable(self.name_end, self.location_end, LOCATION_NULL),
            themes: nullable(self.location_end, self.text.len() as u32, THEMES_NULL),
            genre: strings.get(self.genre),
            country: strings.get(self.country),
            country_code: strings.get(self.country_code),
            status: strings.get(self.status),
            has_lat: self.flags & HAS_LAT != 0,
            has_location: self.flags & HAS_LOCATION != 0,
            has_conflict: self.flags & HAS_CONFLICT != 0,
        }
    }

    /// The row as loaded (tests, and the comparisons of an update).
    pub fn unpack(&self, strings: &Strings) -> SearchRow {
        let v = self.view(strings);
        let boxed = |s: Option<&str>| s.map(Box::from);
        SearchRow {
            ma_id: self.ma_id,
            name: v.name.into(),
            genre: boxed(v.genre),
            location: boxed(v.location),
            themes: boxed(v.themes),
            country: boxed(v.country),
            country_code: boxed(v.country_code),
            status: boxed(v.status),
            has_lat: v.has_lat,
            has_location: v.has_location,
            has_conflict: v.has_conflict,
            formed_year: self.formed_year,
            updated_us: self.updated_us,
            name_rank: self.name_rank(),
            country_rank: self.country_rank(),
        }
    }

    /// Position in name order, if known.
    pub fn name_rank(&self) -> Option<i64> {
        unrank(self.name_rank)
    }

    /// Position in country order, if known.
    pub fn country_rank(&self) -> Option<i64> {
        unrank(self.country_rank)
    }

    /// Keeps the ranks of `old` whose sort text did not change (a changed row carries
    /// none).
    pub fn keep_ranks_of(&mut self, old: &Row) {
        if self.text[..self.name_end as usize] == old.text[..old.name_end as usize] {
            self.name_rank = old.name_rank;
        }
        if self.country == old.country {
            self.country_rank = old.country_rank;
        }
    }

    /// Whether the country is NULL.
    pub fn country_is_null(&self) -> bool {
        self.country == NONE
    }

    /// Approximate bytes held (the row and its text).
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Row>() + self.text.len()
    }
}

/// The columns of one row, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// Upstream id.
    pub ma_id: i64,
    /// `lower(name)`.
    pub name: &'a str,
    /// `lower(location_text)`.
    pub location: Option<&'a str>,
    /// `lower(themes)`.
    pub themes: Option<&'a str>,
    /// `lower(genre)`.
    pub genre: Option<&'a str>,
    /// `lower(country)`.
    pub country: Option<&'a str>,
    /// Country code as stored.
    pub country_code: Option<&'a str>,
    /// `lower(status)`.
    pub status: Option<&'a str>,
    /// Has a primary point.
    pub has_lat: bool,
    /// `location_text` is not blank.
    pub has_location: bool,
    /// Has pending conflicts.
    pub has_conflict: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn opt() -> impl Strategy<Value = Option<String>> {
        proptest::option::of("[a-zé ]{0,6}")
    }

    proptest! {
        /// Packing then unpacking gives the row back (NULL and empty texts kept apart).
        #[test]
        fn pack_round_trips(
            ma_id in any::<i64>(),
            name in "[a-zø ]{0,8}",
            texts in (opt(), opt(), opt(), opt(), opt(), opt()),
            flags in any::<(bool, bool, bool)>(),
            formed_year in proptest::option::of(any::<i32>()),
            updated_us in any::<i64>(),
            ranks in (proptest::option::of(0i64..1_000_000), proptest::option::of(0i64..1_000_000)),
        ) {
            let b = |s: Option<String>| s.map(String::into_boxed_str);
            let row = SearchRow {
                ma_id,
                name: name.into(),
                genre: b(texts.0),
                location: b(texts.1),
                themes: b(texts.2),
                country: b(texts.3),
                country_code: b(texts.4),
                status: b(texts.5),
                has_lat: flags.0,
                has_location: flags.1,
                has_conflict: flags.2,
                formed_year,
                updated_us,
                name_rank: ranks.0,
                country_rank: ranks.1,
            };
            let mut strings = Strings::default();
            let packed = Row::pack(row.clone(), &mut strings);
            prop_assert_eq!(packed.unpack(&strings), row);
        }
    }
}
