//! Property test: for random bands, located rows and queries (bbox, zoom, filters), the
//! in-memory answer equals the reference SQL definition (tests/index/reference.sql).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::common::{Band, Loc};
use bandmap_index::map::{Bbox, ClusterQuery, Filter};
use bandmap_test_support::TestDb;
use proptest::prelude::*;

const GENRES: &[&str] = &[
    "Black Metal",
    "Death Metal",
    "Heavy/Power Metal",
    "Doom_Metal",
    "Thrash 100%",
];
const COUNTRIES: &[(&str, &str)] = &[("Norway", "NO"), ("Sweden", "SE"), ("France", "FR")];
const STATUSES: &[&str] = &["Active", "Split-up", "On hold"];
const LOC_STATUSES: &[&str] = &["done", "country_only", "pending", "error", "manual"];
// A few towns so identical and near-identical points are common.
const TOWNS: &[(f64, f64)] = &[
    (10.75, 59.91),
    (18.07, 59.33),
    (2.35, 48.86),
    (2.351, 48.861),
    (-0.12, 51.5),
];

fn band() -> impl Strategy<Value = (Option<usize>, Option<usize>, Option<usize>, Option<i32>)> {
    (
        proptest::option::weighted(0.8, 0..GENRES.len()),
        proptest::option::weighted(0.8, 0..COUNTRIES.len()),
        proptest::option::weighted(0.8, 0..STATUSES.len()),
        proptest::option::weighted(0.8, 1970..2020i32),
    )
}

fn coord() -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        (0..TOWNS.len()).prop_map(|i| TOWNS[i]),
        (-10.0..30.0f64, 35.0..70.0f64),
        (-180.0..=180.0f64, -90.0..=90.0f64),
        Just((180.0, 90.0)),
        Just((-180.0, -85.06)),
    ]
}

fn loc() -> impl Strategy<Value = (usize, (f64, f64), usize)> {
    (0..40usize, coord(), 0..LOC_STATUSES.len())
}

fn bbox() -> impl Strategy<Value = Bbox> {
    prop_oneof![
        Just(Bbox::WORLD),
        Just(Bbox {
            min_lon: -10.0,
            min_lat: 35.0,
            max_lon: 30.0,
            max_lat: 70.0
        }),
        (-180.0..180.0f64, -90.0..90.0f64, 0.0..60.0f64, 0.0..40.0f64).prop_map(|(x, y, w, h)| {
            Bbox {
                min_lon: x,
                min_lat: y,
                max_lon: (x + w).min(180.0),
                max_lat: (y + h).min(90.0),
            }
        }),
        (0..TOWNS.len(), 0.0..0.01f64).prop_map(|(i, d)| Bbox {
            min_lon: TOWNS[i].0 - d,
            min_lat: TOWNS[i].1 - d,
            max_lon: TOWNS[i].0 + d,
            max_lat: TOWNS[i].1 + d,
        }),
    ]
}

fn filter() -> impl Strategy<Value = Filter> {
    let genre = proptest::option::weighted(
        0.4,
        prop_oneof![
            Just("metal"),
            Just("BLACK"),
            Just("/"),
            Just("_"),
            Just("%"),
            Just("zzz"),
            Just("h")
        ],
    );
    let country = proptest::option::weighted(
        0.3,
        prop_oneof![Just("norway"), Just("se"), Just("FR"), Just("Fr")],
    );
    let status = proptest::option::weighted(0.3, prop_oneof![Just("active"), Just("SPLIT-UP")]);
    let years = (
        proptest::option::weighted(0.3, 1960..2030i32),
        proptest::option::weighted(0.3, 1960..2030i32),
    );
    (genre, country, status, years).prop_map(|(g, c, s, (lo, hi))| Filter::new(g, c, s, lo, hi))
}

fn query() -> impl Strategy<Value = ClusterQuery> {
    (bbox(), 0..=20u8, filter()).prop_map(|(bbox, zoom, filter)| ClusterQuery {
        bbox,
        zoom,
        filter,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 80, ..ProptestConfig::default() })]

    #[test]
    fn in_memory_equals_reference_sql(
        bands in proptest::collection::vec(band(), 40),
        locs in proptest::collection::vec(loc(), 0..120),
        queries in proptest::collection::vec(query(), 6),
    ) {
        let rt = runtime();
        rt.block_on(async {
            let db = shared_db().await;
            sqlx::query("TRUNCATE bands CASCADE").execute(&db.pool).await.unwrap();
            let bands: Vec<Band> = bands.iter().enumerate().map(|(i, (g, c, s, y))| Band {
                ma_id: i as i64 + 1,
                name: format!("Band {i}"),
                genre: g.map(|g| GENRES[g].to_string()),
                country: c.map(|c| (COUNTRIES[c].0.to_string(), COUNTRIES[c].1.to_string())),
                status: s.map(|s| STATUSES[s].to_string()),
                formed_year: *y,
            }).collect();
            let locs: Vec<Loc> = locs.iter().enumerate().map(|(n, (b, (lon, lat), st))| Loc {
                ma_id: *b as i64 + 1,
                step: n as i32,
                lon: *lon,
                lat: *lat,
                status: LOC_STATUSES[*st].to_string(),
            }).collect();
            common::insert(&db.pool, &bands, &locs).await;
            let snap = bandmap_index::map::load(&db.pool).await.unwrap();
            for q in &queries {
                let (want_cells, want_ids) = common::reference(&db.pool, q).await;
                let (got_cells, got_ids) = common::in_memory(&snap, q);
                assert_eq!(got_ids, want_ids, "individual points differ for {q:?}");
                assert!(common::same(&got_cells, &want_cells),
                    "clusters differ for {q:?}\n got: {got_cells:?}\nwant: {want_cells:?}");
            }
        });
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

async fn shared_db() -> &'static TestDb {
    static DB: tokio::sync::OnceCell<TestDb> = tokio::sync::OnceCell::const_new();
    DB.get_or_init(TestDb::new).await
}
