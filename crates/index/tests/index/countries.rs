//! The country counts from memory (issue 31) answer exactly what the SQL of
//! `bandmap_db::country_counts` answers — codes, sums and the first country name in the
//! database's collation — for random catalogues (codes in any case, names that differ only
//! by case or accent, NULLs, wildcards in genres) and random filters.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::country_counts::{self, CountryCount, CountryFilter};
use bandmap_index::countries::CountryQuery;
use bandmap_index::map::Family;
use bandmap_index::name_search;
use bandmap_test_support::TestDb;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use sqlx::PgPool;

const CODES: &[Option<&str>] = &[
    Some("NO"),
    Some("no"),
    Some("SE"),
    Some("AT"),
    Some("XK"),
    Some("N0"),
    None,
];
const COUNTRIES: &[Option<&str>] = &[
    Some("Norway"),
    Some("norway"),
    Some("Noreg"),
    Some("Österreich"),
    Some("österreich"),
    Some("Sweden"),
    Some("Åland"),
    None,
];
const GENRES: &[Option<&str>] = &[
    Some("Black Metal"),
    Some("black metal"),
    Some("Black/Death Metal"),
    Some("Blackened Death Metal"),
    Some("Death Metal"),
    Some("Funeral Doom Metal"),
    Some("Heavy/Power Metal"),
    Some("100%_Black"),
    Some("Industrial"),
    Some("Progressive Death Metal"),
    None,
];
const STATUSES: &[Option<&str>] = &[Some("Active"), Some("active"), Some("Split-up"), None];

#[derive(Debug, Clone)]
struct Band {
    code: Option<&'static str>,
    country: Option<&'static str>,
    genre: Option<&'static str>,
    status: Option<&'static str>,
    year: Option<i32>,
}

fn band() -> impl Strategy<Value = Band> {
    (
        prop::sample::select(CODES),
        prop::sample::select(COUNTRIES),
        prop::sample::select(GENRES),
        prop::sample::select(STATUSES),
        prop::option::of(1980..2010i32),
    )
        .prop_map(|(code, country, genre, status, year)| Band {
            code,
            country,
            genre,
            status,
            year,
        })
}

fn query() -> impl Strategy<Value = CountryQuery> {
    (
        prop::option::of(prop::sample::select(
            &["black", "BLACK", "death", "%", "_", "metal", "ö", "zzz"][..],
        )),
        prop::option::of(prop::sample::select(
            &["no", "NO", "norway", "ÖSTERREICH", "se", "Åland", "xx"][..],
        )),
        prop::option::of(prop::sample::select(&["active", "Split-up", "x"][..])),
        prop::option::of(1985..2000i32),
        prop::option::of(1990..2010i32),
        prop::sample::select(vec![
            0,
            Family::Black.bit(),
            Family::Death.bit() | Family::Doom.bit(),
            Family::Other.bit(),
        ]),
    )
        .prop_map(
            |(genre, country, status, year_min, year_max, families)| CountryQuery {
                genre: genre.map(str::to_string),
                country: country.map(str::to_string),
                status: status.map(str::to_string),
                year_min,
                year_max,
                families,
            },
        )
}

async fn insert(pool: &PgPool, bands: &[Band]) {
    sqlx::query("TRUNCATE bands CASCADE")
        .execute(pool)
        .await
        .unwrap();
    for (i, b) in bands.iter().enumerate() {
        sqlx::query(
            "INSERT INTO bands (ma_id, name, country_code, country, genre, status, formed_year)
             VALUES ($1, 'B' || $1, $2, $3, $4, $5, $6)",
        )
        .bind(i as i64 + 1)
        .bind(b.code)
        .bind(b.country)
        .bind(b.genre)
        .bind(b.status)
        .bind(b.year)
        .execute(pool)
        .await
        .unwrap();
    }
}

async fn sql_answer(pool: &PgPool, q: &CountryQuery) -> Vec<CountryCount> {
    let filter = CountryFilter {
        genre: q.genre.clone(),
        country: q.country.clone(),
        status: q.status.clone(),
        year_min: q.year_min,
        year_max: q.year_max,
    };
    if q.families == 0 {
        country_counts::count_by_country(pool, &filter)
            .await
            .unwrap()
    } else {
        let rows = country_counts::count_by_country_and_genre(pool, &filter)
            .await
            .unwrap();
        let mask = q.families;
        country_counts::fold_kept(rows, |g| Family::of_genre(g).bit() & mask != 0)
    }
}

#[test]
fn memory_and_sql_give_the_same_counts() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let db = rt.block_on(TestDb::new());
    let mut runner = TestRunner::new(Config {
        cases: 24,
        ..Config::default()
    });
    let case = (
        prop::collection::vec(band(), 0..80),
        prop::collection::vec(query(), 10),
    );
    runner
        .run(&case, |(bands, queries)| {
            rt.block_on(async {
                insert(&db.pool, &bands).await;
                let copy = name_search::load_countries(&db.pool).await.unwrap();
                prop_assert_eq!(copy.count(&CountryQuery::default()), {
                    sql_answer(&db.pool, &CountryQuery::default()).await
                });
                for q in &queries {
                    let memory = copy.count(q);
                    let sql = sql_answer(&db.pool, q).await;
                    prop_assert_eq!(&memory, &sql, "query {:?}", q);
                }
                Ok(())
            })
        })
        .unwrap();
}
