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

/// The `FROM … WHERE` of both queries: the catalogue's bands with a two-letter code, under
/// the map's filters ($1 genre pattern, $2 country, $3 status, $4/$5 years).
macro_rules! filtered_bands {
    () => {
        "FROM bands \
     WHERE country_code ~ '^[A-Za-z]{2}$' \
       AND ($1::text IS NULL OR genre ILIKE $1 ESCAPE '\\') \
       AND ($2::text IS NULL OR lower(country) = lower($2) OR lower(country_code) = lower($2)) \
       AND ($3::text IS NULL OR lower(status) = lower($3)) \
       AND ($4::int IS NULL OR formed_year >= $4) \
       AND ($5::int IS NULL OR formed_year <= $5) "
    };
}

const COUNT_SQL: &str = concat!(
    "SELECT upper(country_code) AS country_code, min(country) AS country, \
     count(*) AS bands ",
    filtered_bands!(),
    "GROUP BY 1 ORDER BY 1"
);

/// Bands of one country and one genre text (`genre` as stored, NULL kept apart).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CountryGenreCount {
    /// ISO 3166-1 alpha-2 code, upper case.
    pub country_code: String,
    /// The genre text of these bands, as stored (`None` for bands without one).
    pub genre: Option<String>,
    /// The first country name in sort order among these bands.
    pub country: Option<String>,
    /// Bands matching the filters with this code and this genre.
    pub bands: i64,
}

// Ordered by code, then by the group's name (NULLs last): the first named row of a code is
// the code's first name in the database's sort order, whatever groups a caller keeps.
const COUNT_BY_GENRE_SQL: &str = concat!(
    "SELECT upper(country_code) AS country_code, genre, min(country) AS country, \
     count(*) AS bands ",
    filtered_bands!(),
    "GROUP BY 1, 2 ORDER BY 1, 3 NULLS LAST, 2 NULLS LAST"
);

fn genre_pattern(f: &CountryFilter) -> Option<String> {
    f.genre
        .as_deref()
        .map(|g| format!("%{}%", crate::like::escape(g)))
}

/// Bands per country code under `f`, by code; countries without a matching band are absent.
pub async fn count_by_country(pool: &PgPool, f: &CountryFilter) -> Result<Vec<CountryCount>> {
    filtered(pool, COUNT_SQL, f).await
}

/// Bands per country code and genre text under `f`, by code, then by country name (the
/// first name of a code comes first, NULL names last), then genre. For callers that keep
/// bands by a rule on the genre text this crate does not know (the map's genre families,
/// `bandmap_index::map::Family`) and fold the kept rows with [`fold_kept`].
pub async fn count_by_country_and_genre(
    pool: &PgPool,
    f: &CountryFilter,
) -> Result<Vec<CountryGenreCount>> {
    filtered(pool, COUNT_BY_GENRE_SQL, f).await
}

/// Runs one of this module's queries with the filter's five parameters ($1..$5 of
/// `filtered_bands!`).
async fn filtered<T>(pool: &PgPool, sql: &'static str, f: &CountryFilter) -> Result<Vec<T>>
where
    T: for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> + Send + Unpin,
{
    Ok(sqlx::query_as(sql)
        .bind(genre_pattern(f))
        .bind(f.country.as_deref())
        .bind(f.status.as_deref())
        .bind(f.year_min)
        .bind(f.year_max)
        .fetch_all(pool)
        .await?)
}

/// Sums the rows of [`count_by_country_and_genre`] whose genre `keep` accepts, per code, in
/// the rows' order (by code): the answer [`count_by_country`] would give if only the kept
/// bands were in the catalogue (a code with no kept band is absent; its name is the first
/// named kept row's, i.e. the first in the database's sort order among the kept bands).
pub fn fold_kept(
    rows: Vec<CountryGenreCount>,
    mut keep: impl FnMut(Option<&str>) -> bool,
) -> Vec<CountryCount> {
    let mut out: Vec<CountryCount> = Vec::new();
    for row in rows {
        if !keep(row.genre.as_deref()) {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.country_code == row.country_code => {
                last.bands += row.bands;
                if last.country.is_none() {
                    last.country = row.country;
                }
            }
            _ => out.push(CountryCount {
                country_code: row.country_code,
                country: row.country,
                bands: row.bands,
            }),
        }
    }
    out
}

/// Bands of one combination of the columns the map filters on, for an in-memory copy of
/// the counts (`bandmap_index::countries`).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CountryGroup {
    /// ISO 3166-1 alpha-2 code, upper case.
    pub country_code: String,
    /// Country name as stored.
    pub country: Option<String>,
    /// Genre as stored.
    pub genre: Option<String>,
    /// Status as stored.
    pub status: Option<String>,
    /// Formation year.
    pub formed_year: Option<i32>,
    /// Bands with exactly these values.
    pub bands: i64,
}

// Ordered by the country name in the database's collation (NULLs last), so a copy can
// rank the names as `min(country)` of the queries above does.
const GROUPS_SQL: &str = "SELECT upper(country_code) AS country_code, country, genre, status, \
     formed_year, count(*) AS bands FROM bands WHERE country_code ~ '^[A-Za-z]{2}$' \
     GROUP BY 1, 2, 3, 4, 5 ORDER BY 2 NULLS LAST";

/// Every combination of (code, country, genre, status, formation year) with its number of
/// bands, ordered by country name (database collation, NULLs last), handed to `each` as
/// decoded.
pub async fn load_groups(pool: &PgPool, mut each: impl FnMut(CountryGroup) + Send) -> Result<()> {
    use futures::TryStreamExt;
    let mut rows = sqlx::query_as::<_, CountryGroup>(GROUPS_SQL).fetch(pool);
    while let Some(row) = rows.try_next().await? {
        each(row);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cc: &str, genre: Option<&str>, country: Option<&str>, bands: i64) -> CountryGenreCount {
        CountryGenreCount {
            country_code: cc.into(),
            genre: genre.map(Into::into),
            country: country.map(Into::into),
            bands,
        }
    }

    #[test]
    fn the_count_query_is_unchanged() {
        // The query of the unfiltered density layer, as it was before the genre grouping:
        // same text, so the same plan and the same answer.
        assert_eq!(
            COUNT_SQL,
            "SELECT upper(country_code) AS country_code, min(country) AS country, \
             count(*) AS bands FROM bands \
             WHERE country_code ~ '^[A-Za-z]{2}$' \
               AND ($1::text IS NULL OR genre ILIKE $1 ESCAPE '\\') \
               AND ($2::text IS NULL OR lower(country) = lower($2) OR lower(country_code) = lower($2)) \
               AND ($3::text IS NULL OR lower(status) = lower($3)) \
               AND ($4::int IS NULL OR formed_year >= $4) \
               AND ($5::int IS NULL OR formed_year <= $5) \
             GROUP BY 1 ORDER BY 1"
        );
    }

    #[test]
    fn fold_sums_the_kept_rows_per_code() {
        let rows = vec![
            row("AT", Some("Doom Metal"), Some("Austria"), 4),
            row("NO", Some("Death Metal"), Some("Noreg"), 2),
            row("NO", Some("Black Metal"), Some("Norway"), 3),
            row("NO", None, Some("Norway"), 1),
            row("NO", Some("Black Metal"), None, 7),
            row("SE", Some("Death Metal"), Some("Sweden"), 5),
        ];
        let kept = fold_kept(rows.clone(), |g| g.is_some_and(|g| g.contains("Black")));
        assert_eq!(
            kept,
            [CountryCount {
                country_code: "NO".into(),
                country: Some("Norway".into()),
                bands: 10
            }],
            "a code without a kept row is absent; the name is the first named kept row's"
        );
        let all = fold_kept(rows.clone(), |_| true);
        assert_eq!(
            all.iter()
                .map(|c| (c.country_code.as_str(), c.country.as_deref(), c.bands))
                .collect::<Vec<_>>(),
            [
                ("AT", Some("Austria"), 4),
                ("NO", Some("Noreg"), 13),
                ("SE", Some("Sweden"), 5)
            ]
        );
        assert!(fold_kept(rows, |_| false).is_empty());
    }
}
