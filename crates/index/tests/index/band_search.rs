//! The in-memory band search answers exactly as the SQL list: the same total and the same
//! page, for random bands (non-ASCII names, wildcards, NULLs) and random filters, sorts and
//! pages; through edits, inserts and deletes; with a writer in flight during a refresh; and
//! after a truncation (which hands the list to SQL until a new copy loads).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::bands::admin::{BandFilter, BandSort, list_bands_sql};
use bandmap_db::like::escape;
use bandmap_index::band_search::{BandSearch, list_bands};
use bandmap_test_support::TestDb;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use sqlx::PgPool;
use std::sync::Arc;

const WORDS: &[&str] = &[
    "Storm",
    "storm",
    "STÖRM",
    "Ødeland",
    "İzmir",
    "ΣΟΦΙΑ",
    "Straße",
    "50%_off",
    "back\\slash",
    "Frost",
    "Dark",
    "Ash",
    "ash",
    "Æther",
    "Zyklon",
    "123",
];
const GENRES: &[&str] = &[
    "Black Metal",
    "Death Metal",
    "Black/Death Metal",
    "Doom",
    "Ösp",
];
const COUNTRIES: &[(&str, &str)] = &[
    ("Norway", "NO"),
    ("Sweden", "SE"),
    ("Österreich", "AT"),
    ("Ísland", "IS"),
];
const STATUSES: &[&str] = &["Active", "Split-up", "On hold"];
const PLACES: &[&str] = &["Bergen, Vestland", "  ", "", "Zürich", "Oslo"];
const THEMES: &[&str] = &["War, Death", "Occultism", "Nature", "ΣΚΟΤΑΔΙ", "100% hate"];
const FRAGMENTS: &[&str] = &[
    "storm", "STÖ", "ö", "i", "σ", "ß", "%", "_", "\\", "50%", "ash", "12", "3", "black", "death",
    "", "zz", "ä", "/", "metal",
];
const SORTS: &[&str] = &["name", "ma_id", "country", "formed_year", "updated_at"];

fn some<'a, T: ?Sized>(rng: &mut StdRng, values: &'a [&'a T]) -> Option<&'a T> {
    if rng.random_bool(0.2) {
        None
    } else {
        values.choose(rng).copied()
    }
}

fn name(rng: &mut StdRng) -> String {
    let n = rng.random_range(1..=3);
    (0..n)
        .map(|_| *WORDS.choose(rng).unwrap())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Inserts or replaces band `ma_id` with random values.
async fn write_band(pool: &PgPool, rng: &mut StdRng, ma_id: i64) {
    let country = if rng.random_bool(0.2) {
        None
    } else {
        COUNTRIES.choose(rng).copied()
    };
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text, genre, themes,
                            status, formed_year, lat, lon, crawler_pending, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11,
                 now() - make_interval(secs => $12))
         ON CONFLICT (ma_id) DO UPDATE SET name = EXCLUDED.name, country = EXCLUDED.country,
             country_code = EXCLUDED.country_code, location_text = EXCLUDED.location_text,
             genre = EXCLUDED.genre, themes = EXCLUDED.themes, status = EXCLUDED.status,
             formed_year = EXCLUDED.formed_year, lat = EXCLUDED.lat, lon = EXCLUDED.lon,
             crawler_pending = EXCLUDED.crawler_pending",
    )
    .bind(ma_id)
    .bind(name(rng))
    .bind(country.map(|c| c.0))
    .bind(country.map(|c| c.1))
    .bind(some(rng, PLACES))
    .bind(some(rng, GENRES))
    .bind(some(rng, THEMES))
    .bind(some(rng, STATUSES))
    .bind(rng.random_bool(0.8).then(|| rng.random_range(1970..1980)))
    .bind(
        rng.random_bool(0.5)
            .then(|| f64::from(rng.random_range(0..50))),
    )
    .bind(if rng.random_bool(0.2) {
        serde_json::json!({"genre": "Upstream"})
    } else {
        serde_json::json!({})
    })
    .bind(f64::from(rng.random_range(0..100_000)))
    .execute(pool)
    .await
    .unwrap();
}

fn pattern(rng: &mut StdRng, chance: f64) -> Option<String> {
    rng.random_bool(chance)
        .then(|| format!("%{}%", escape(FRAGMENTS.choose(rng).unwrap())))
}

fn random_filter(rng: &mut StdRng) -> BandFilter {
    let q = rng
        .random_bool(0.4)
        .then(|| *FRAGMENTS.choose(rng).unwrap());
    let country = rng.random_bool(0.15).then(|| {
        let (name, code) = COUNTRIES.choose(rng).unwrap();
        if rng.random_bool(0.5) {
            name.to_uppercase()
        } else {
            code.to_lowercase()
        }
    });
    let flag = |rng: &mut StdRng| rng.random_bool(0.15).then(|| rng.random_bool(0.5));
    let sort = SORTS.choose(rng).unwrap();
    let sort = if rng.random_bool(0.5) {
        format!("-{sort}")
    } else {
        sort.to_string()
    };
    BandFilter {
        name_pattern: q.map(|q| format!("%{}%", escape(q))),
        ma_id: q.and_then(|q| q.parse().ok()),
        location_pattern: pattern(rng, 0.15),
        themes_pattern: pattern(rng, 0.15),
        genre_pattern: pattern(rng, 0.25),
        country,
        status: rng
            .random_bool(0.15)
            .then(|| STATUSES.choose(rng).unwrap().to_lowercase()),
        has_lat: flag(rng),
        has_location: flag(rng),
        has_conflict: flag(rng),
        sort: BandSort::parse(&sort).unwrap(),
        limit: *[0, 1, 7, 50].choose(rng).unwrap(),
        offset: *[0, 0, 0, 3, 40, 500].choose(rng).unwrap(),
    }
}

/// Bands 1..=n with random values from `seed`; returns the generator to go on with.
async fn random_bands(pool: &PgPool, seed: u64, n: i64) -> StdRng {
    let mut rng = StdRng::seed_from_u64(seed);
    for id in 1..=n {
        write_band(pool, &mut rng, id).await;
    }
    rng
}

/// A search with its copy loaded.
async fn loaded_search(pool: &PgPool) -> Arc<BandSearch> {
    let search = Arc::new(BandSearch::new());
    search.load_now(pool).await.unwrap();
    search
}

/// Runs one statement on the pool.
async fn exec(pool: &PgPool, sql: &'static str) {
    sqlx::query(sql).execute(pool).await.unwrap();
}

/// Runs `filters` through the search and through SQL and compares; every one of them must
/// have been answered by the search, and enough of them must find rows for the comparison
/// to mean something.
async fn compare(pool: &PgPool, search: &Arc<BandSearch>, filters: &[BandFilter]) {
    let mut non_empty = 0;
    for f in filters {
        let selection = search.select(pool, f).await.unwrap();
        assert!(selection.is_some(), "the search left {f:?} to SQL");
        let (items, total) = list_bands(pool, search, f).await.unwrap();
        let (want_items, want_total) = list_bands_sql(pool, f).await.unwrap();
        let ids: Vec<i64> = items.iter().map(|b| b.ma_id).collect();
        let want: Vec<i64> = want_items.iter().map(|b| b.ma_id).collect();
        assert_eq!(total, want_total, "total of {f:?}");
        assert_eq!(ids, want, "page of {f:?}");
        non_empty += usize::from(!ids.is_empty());
    }
    assert!(non_empty * 4 > filters.len(), "{non_empty} pages with rows");
}

#[tokio::test]
async fn search_matches_the_sql_list_through_every_kind_of_change() {
    let db = TestDb::new().await;
    let pool = &db.pool;
    let mut rng = random_bands(pool, 20261124, 400).await;
    let search = loaded_search(pool).await;
    let filters: Vec<BandFilter> = (0..300).map(|_| random_filter(&mut rng)).collect();
    compare(pool, &search, &filters).await;

    // Edits (renames lose their name position), inserts, deletes.
    for _ in 0..60 {
        let id = rng.random_range(1..=450);
        write_band(pool, &mut rng, id).await;
    }
    exec(pool, "DELETE FROM bands WHERE ma_id % 37 = 0").await;
    exec(
        pool,
        "UPDATE bands SET crawler_pending = '{}' WHERE ma_id % 5 = 0",
    )
    .await;
    compare(pool, &search, &filters).await;

    // An id reused after a delete, and an id changed in place.
    exec(pool, "DELETE FROM bands WHERE ma_id = 2").await;
    write_band(pool, &mut rng, 2).await;
    exec(pool, "UPDATE bands SET ma_id = 9001 WHERE ma_id = 3").await;
    compare(pool, &search, &filters).await;
}

#[tokio::test]
async fn a_writer_in_flight_during_a_refresh_is_seen_once_it_commits() {
    let db = TestDb::new().await;
    let pool = &db.pool;
    random_bands(pool, 7, 50).await;
    let search = loaded_search(pool).await;
    let find = BandFilter {
        name_pattern: Some("%inflight%".into()),
        limit: 50,
        ..BandFilter::default()
    };

    // The writer takes its transaction id before the refresh and commits after it.
    let mut writer = pool.begin().await.unwrap();
    sqlx::query("UPDATE bands SET name = 'Inflight' WHERE ma_id = 10")
        .execute(&mut *writer)
        .await
        .unwrap();
    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (77, 'Inflight Two')")
        .execute(&mut *writer)
        .await
        .unwrap();
    sqlx::query("DELETE FROM bands WHERE ma_id = 11")
        .execute(&mut *writer)
        .await
        .unwrap();
    // A later transaction completes first, so the snapshot's xmax passes the writer's id
    // and the writer is listed among the transactions in progress.
    exec(pool, "UPDATE bands SET genre = 'Later' WHERE ma_id = 30").await;
    let (items, total) = list_bands(pool, &search, &find).await.unwrap();
    assert_eq!((items.len(), total), (0, 0));
    writer.commit().await.unwrap();

    let (items, total) = list_bands(pool, &search, &find).await.unwrap();
    let ids: Vec<i64> = items.iter().map(|b| b.ma_id).collect();
    assert_eq!((ids, total), (vec![10, 77], 2));
    let all = BandFilter {
        limit: 500,
        ..BandFilter::default()
    };
    let (items, total) = list_bands(pool, &search, &all).await.unwrap();
    assert_eq!(total, 50, "49 of the first 50 and band 77");
    assert!(items.iter().all(|b| b.ma_id != 11));

    // A writer that rolls back leaves nothing behind.
    let mut undone = pool.begin().await.unwrap();
    sqlx::query("UPDATE bands SET name = 'Inflight Three' WHERE ma_id = 12")
        .execute(&mut *undone)
        .await
        .unwrap();
    list_bands(pool, &search, &find).await.unwrap();
    undone.rollback().await.unwrap();
    let (_, total) = list_bands(pool, &search, &find).await.unwrap();
    assert_eq!(total, 2);
}

#[tokio::test]
async fn a_truncation_hands_the_list_to_sql_until_a_new_copy_loads() {
    let db = TestDb::new().await;
    let pool = &db.pool;
    let mut rng = random_bands(pool, 99, 20).await;
    let search = Arc::new(BandSearch::new());
    let all = BandFilter {
        limit: 50,
        ..BandFilter::default()
    };
    // No copy yet: SQL answers (and a load starts).
    assert_eq!(list_bands(pool, &search, &all).await.unwrap().1, 20);
    search.load_now(pool).await.unwrap();
    assert!(search.select(pool, &all).await.unwrap().is_some());

    exec(pool, "TRUNCATE bands CASCADE").await;
    write_band(pool, &mut rng, 500).await;
    assert!(search.select(pool, &all).await.unwrap().is_none());
    let (items, total) = list_bands(pool, &search, &all).await.unwrap();
    assert_eq!((items.len(), total), (1, 1));
    search.load_now(pool).await.unwrap();
    let selection = search.select(pool, &all).await.unwrap().unwrap();
    assert_eq!((selection.total, selection.ids), (1, vec![500]));
}

#[tokio::test]
async fn many_renames_start_a_full_load_that_restores_the_name_order() {
    let db = TestDb::new().await;
    let pool = &db.pool;
    let n = bandmap_index::band_search::RELOAD_UNRANKED as i64 + 100;
    sqlx::query(
        "INSERT INTO bands (ma_id, name) SELECT i, 'Band ' || i FROM generate_series(1, $1) i",
    )
    .bind(n)
    .execute(pool)
    .await
    .unwrap();
    let search = loaded_search(pool).await;
    assert_eq!(search.unranked().await, Some(0));

    exec(pool, "UPDATE bands SET name = md5(name)").await;
    let by_name = BandFilter {
        limit: 20,
        offset: 30,
        ..BandFilter::default()
    };
    // Every row lost its name position: the page is finished by PostgreSQL among the
    // first 50 known rows and every renamed one, and a full load starts.
    compare(pool, &search, std::slice::from_ref(&by_name)).await;
    assert!(search.unranked().await.is_some_and(|u| u as i64 <= n));

    let mut waited = 0;
    while search.unranked().await != Some(0) {
        assert!(waited < 600, "no full load after 60 s");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        waited += 1;
    }
    compare(pool, &search, &[by_name]).await;
}
