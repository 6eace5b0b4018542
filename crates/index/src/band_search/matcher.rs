//! A list filter compiled for the in-memory rows: the same predicates as the SQL WHERE
//! clause of `bandmap_db::bands::admin::list_bands_sql`, evaluated on [`SearchRow`]s.

use super::compact::View;
use bandmap_db::bands::admin::BandFilter;
use bandmap_db::bands::admin::search::LoweredPatterns;
use bandmap_db::like::contained_literal;
use memchr::memmem::Finder;

/// A substring test on one lower-cased column.
struct Contains(Finder<'static>);

impl Contains {
    fn new(lowered_pattern: &Option<String>) -> Option<Option<Contains>> {
        match lowered_pattern {
            None => Some(None),
            Some(p) => {
                let text = contained_literal(p)?;
                Some(Some(Contains(Finder::new(text.as_bytes()).into_owned())))
            }
        }
    }

    /// `column ILIKE '%text%'`: false on NULL, like SQL.
    fn test(&self, column: Option<&str>) -> bool {
        column.is_some_and(|c| self.0.find(c.as_bytes()).is_some())
    }
}

/// A compiled filter.
pub struct Matcher {
    name: Option<Contains>,
    ma_id: Option<i64>,
    location: Option<Contains>,
    themes: Option<Contains>,
    genre: Option<Contains>,
    /// Lower-cased name and upper-cased code, as the SQL binds them.
    country: Option<(String, String)>,
    status: Option<String>,
    has_lat: Option<bool>,
    has_location: Option<bool>,
    has_conflict: Option<bool>,
}

impl Matcher {
    /// Compiles `f` with its patterns lower-cased by PostgreSQL; `None` when a pattern is
    /// not a plain `%text%` (the caller then runs the SQL list).
    pub fn new(f: &BandFilter, lowered: &LoweredPatterns) -> Option<Matcher> {
        let [name, location, themes, genre] = lowered;
        Some(Matcher {
            name: Contains::new(name)?,
            ma_id: f.ma_id,
            location: Contains::new(location)?,
            themes: Contains::new(themes)?,
            genre: Contains::new(genre)?,
            country: f
                .country
                .as_ref()
                .map(|c| (c.to_lowercase(), c.to_uppercase())),
            status: f.status.as_ref().map(|s| s.to_lowercase()),
            has_lat: f.has_lat,
            has_location: f.has_location,
            has_conflict: f.has_conflict,
        })
    }

    /// Whether `r` passes every active filter.
    pub fn matches(&self, r: &View<'_>) -> bool {
        self.name_or_id(r)
            && test_text(&self.location, r.location)
            && test_text(&self.themes, r.themes)
            && test_text(&self.genre, r.genre)
            && self.country_matches(r)
            && self
                .status
                .as_ref()
                .is_none_or(|s| r.status == Some(s.as_str()))
            && self.has_lat.is_none_or(|b| r.has_lat == b)
            && self.has_location.is_none_or(|b| r.has_location == b)
            && self.has_conflict.is_none_or(|b| r.has_conflict == b)
    }

    /// `q`: the name pattern, OR-ed with the exact id when `q` is numeric.
    fn name_or_id(&self, r: &View<'_>) -> bool {
        match (&self.name, self.ma_id) {
            (Some(p), Some(id)) => r.ma_id == id || p.test(Some(r.name)),
            (Some(p), None) => p.test(Some(r.name)),
            (None, Some(id)) => r.ma_id == id,
            (None, None) => true,
        }
    }

    fn country_matches(&self, r: &View<'_>) -> bool {
        self.country.as_ref().is_none_or(|(name, code)| {
            r.country == Some(name.as_str()) || r.country_code == Some(code.as_str())
        })
    }
}

fn test_text(pattern: &Option<Contains>, column: Option<&str>) -> bool {
    pattern.as_ref().is_none_or(|p| p.test(column))
}
