//! Bands per country for the public map's density layer (`GET /api/countries`): the
//! catalogue's bands grouped by ISO code, under the same filters as the map's clusters
//! (`genre` a case-insensitive substring, `country` the name or code, `status` equality,
//! `year_min`/`year_max` bounds on `formed_year`; the reference SQL of docs/map.md).
//! Every band of the catalogue counts, placed on the map or not: a density is about the
//! bands of a country, not about how many of them the geocoder has placed yet.

use crate::Result;
use sqlx::PgPool;

/// The filters of the map (all optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountryFilter {
    /// Case-insensitive substring of the genre (wildcards literal).
    pub genre: Option<String>,
    /// Country name or ISO code, case-insensitive equality.
    pub country: Option<String>,
    /// Status, case-insensitive equality.
    pub status: Option<String>,
    /// Lowest formation year.
    pub year_min: Option<i32>,
    /// Highest formation year.
    pub year_max: Option<i32>,
}

/// Bands of one country.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CountryCount {
    /// ISO 3166-1 alpha-2 code, upper case.
    pub country_code: String,
    /// The country's name as the upstream writes it (the first in sort order when the
    /// bands disagree).
    pub country: Option<String>,
    /// Bands matching the filters.
    pub bands: i64,
}

const COUNT_SQL: &str = "SELECT upper(country_code) AS country_code, min(country) AS country, \
     count(*) AS bands FROM bands \
     WHERE country_code ~ '^[A-Za-z]{2}$' \
       AND ($1::text IS NULL OR genre ILIKE $1 ESCAPE '\\') \
       AND ($2::text IS NULL OR lower(country) = lower($2) OR lower(country_code) = lower($2)) \
       AND ($3::text IS NULL OR lower(status) = lower($3)) \
       AND ($4::int IS NULL OR formed_year >= $4) \
       AND ($5::int IS NULL OR formed_year <= $5) \
     GROUP BY 1 ORDER BY 1";

/// Bands per country code under `f`, by code; countries without a matching band are absent.
pub async fn count_by_country(pool: &PgPool, f: &CountryFilter) -> Result<Vec<CountryCount>> {
    let genre = f
        .genre
        .as_deref()
        .map(|g| format!("%{}%", crate::like::escape(g)));
    Ok(sqlx::query_as(COUNT_SQL)
        .bind(genre)
        .bind(f.country.as_deref())
        .bind(f.status.as_deref())
        .bind(f.year_min)
        .bind(f.year_max)
        .fetch_all(pool)
        .await?)
}
