//! One band as the search keeps it: the searched texts lower-cased by PostgreSQL (so a
//! substring test on them is what `ILIKE` does), the flags the list filters on, and the
//! sort keys.

use super::super::list::SortKey;

/// The columns of a [`SearchRow`], selected from `bands` (without the `FROM`).
pub const COLUMNS: &str = "SELECT ma_id, lower(name) AS name, lower(genre) AS genre,
        lower(location_text) AS location, lower(themes) AS themes,
        lower(country) AS country, country_code, lower(status) AS status,
        lat IS NOT NULL AS has_lat,
        coalesce(btrim(location_text), '') <> '' AS has_location,
        crawler_pending <> '{}'::jsonb AS has_conflict,
        formed_year,
        (extract(epoch FROM updated_at) * 1000000)::bigint AS updated_us";

/// The positions of every row in the two text orders of the list, computed by PostgreSQL
/// with the list's own sort expressions (so with the database's collation).
pub fn rank_columns() -> String {
    let rank = |key: SortKey| {
        format!(
            "row_number() OVER (ORDER BY {} ASC NULLS LAST, ma_id ASC)",
            key.expr()
        )
    };
    format!(
        "{} AS name_rank, {} AS country_rank",
        rank(SortKey::Name),
        rank(SortKey::Country)
    )
}

/// A band in the search.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, serde::Deserialize)]
pub struct SearchRow {
    /// Upstream id.
    pub ma_id: i64,
    /// `lower(name)`.
    pub name: Box<str>,
    /// `lower(genre)`.
    pub genre: Option<Box<str>>,
    /// `lower(location_text)`.
    pub location: Option<Box<str>>,
    /// `lower(themes)`.
    pub themes: Option<Box<str>>,
    /// `lower(country)`.
    pub country: Option<Box<str>>,
    /// ISO code as stored (upper-case).
    pub country_code: Option<Box<str>>,
    /// `lower(status)`.
    pub status: Option<Box<str>>,
    /// Has a primary point.
    pub has_lat: bool,
    /// `location_text` is not blank.
    pub has_location: bool,
    /// Has pending conflicts.
    pub has_conflict: bool,
    /// Year of formation.
    pub formed_year: Option<i32>,
    /// `updated_at` in microseconds since the epoch.
    pub updated_us: i64,
    /// Position in name order; `None` once the row changed after the ranks were computed.
    #[sqlx(default)]
    #[serde(default)]
    pub name_rank: Option<i64>,
    /// Position in country order; `None` as for `name_rank`.
    #[sqlx(default)]
    #[serde(default)]
    pub country_rank: Option<i64>,
}
