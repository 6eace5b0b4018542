//! Property test: for random catalogues (bands with several steps, some placed, some
//! corrected by hand — `step_order = -1`), the index's flows equal the reference SQL
//! (tests/index/reference_flows.sql, a self-join over `band_locations` in path order): the counts
//! of every pair of cells, per family, the listed flows and the `other` total.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{self, Band, Loc};
use bandmap_index::map::flows::{FlowQuery, flow_level};
use bandmap_index::map::{Bbox, ClusterQuery, Family, Filter, grid};
use bandmap_test_support::TestDb;
use proptest::prelude::*;
use std::collections::BTreeMap;

const GENRES: &[&str] = &[
    "Black Metal",
    "Death Metal",
    "Heavy/Power Metal",
    "Doom_Metal",
];
const COUNTRIES: &[(&str, &str)] = &[("Norway", "NO"), ("Sweden", "SE"), ("France", "FR")];
const LOC_STATUSES: &[&str] = &["done", "done", "country_only", "pending", "error"];
// Towns close enough to merge at low zooms and far enough to split at high ones.
const TOWNS: &[(f64, f64)] = &[
    (5.32, 60.39),
    (10.75, 59.91),
    (13.4, 52.52),
    (18.07, 59.33),
    (2.35, 48.86),
    (2.351, 48.861),
    (-0.12, 51.5),
];

type Counts = BTreeMap<(u64, u64), [u32; bandmap_index::map::family::COUNT]>;

fn coord() -> impl Strategy<Value = (f64, f64)> {
    prop_oneof![
        4 => (0..TOWNS.len()).prop_map(|i| TOWNS[i]),
        1 => (-10.0..30.0f64, 35.0..70.0f64),
    ]
}

fn view() -> impl Strategy<Value = Bbox> {
    prop_oneof![
        Just(Bbox::WORLD),
        (-10.0..25.0f64, 40.0..65.0f64, 0.5..20.0f64, 0.5..10.0f64).prop_map(|(x, y, w, h)| {
            Bbox {
                min_lon: x,
                min_lat: y,
                max_lon: x + w,
                max_lat: y + h,
            }
        }),
    ]
}

fn filter() -> impl Strategy<Value = Filter> {
    (
        proptest::option::weighted(0.3, prop_oneof![Just("metal"), Just("black"), Just("_")]),
        proptest::option::weighted(0.3, prop_oneof![Just("norway"), Just("se")]),
        proptest::option::weighted(0.3, 1970..2020i32),
        prop_oneof![3 => Just(0u16), 1 => 1u16..1024],
    )
        .prop_map(|(g, c, y, fam)| Filter::new(g, c, None, y, None).with_families(fam))
}

fn query() -> impl Strategy<Value = FlowQuery> {
    (view(), 0..=20u8, filter(), 1..8usize).prop_map(|(bbox, zoom, filter, limit)| FlowQuery {
        bbox,
        zoom,
        filter,
        limit,
    })
}

/// The reference counts per (start, end) cell key and family.
async fn reference(pool: &sqlx::PgPool, q: &FlowQuery) -> Counts {
    let cq = ClusterQuery {
        bbox: q.bbox,
        zoom: q.zoom,
        filter: q.filter.clone(),
    };
    let level = flow_level(&q.bbox, q.zoom);
    let rows: Vec<(i64, i64, i64, i64, Option<String>, i64)> = common::bind_all(
        sqlx::query_as(include_str!("reference_flows.sql")),
        &cq,
        level,
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut out = Counts::new();
    for (fx, fy, tx, ty, genre, n) in rows {
        let family = Family::of_genre(genre.as_deref());
        if q.filter.families != 0 && q.filter.families & family.bit() == 0 {
            continue;
        }
        let key = |x: i64, y: i64| grid::key_of(x as u32, y as u32);
        out.entry((key(fx, fy), key(tx, ty)))
            .or_insert([0; bandmap_index::map::family::COUNT])[family as usize] += n as u32;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn flows_equal_reference_sql(
        bands in proptest::collection::vec((0..GENRES.len(), 0..COUNTRIES.len(), 1970..2020i32), 30),
        locs in proptest::collection::vec((0..30usize, 0..6i32, coord(), 0..LOC_STATUSES.len()), 0..150),
        manual in proptest::collection::vec(any::<bool>(), 150),
        queries in proptest::collection::vec(query(), 5),
    ) {
        let rt = runtime();
        rt.block_on(async {
            let db = shared_db().await;
            sqlx::query("TRUNCATE bands CASCADE").execute(&db.pool).await.unwrap();
            let bands: Vec<Band> = bands.iter().enumerate().map(|(i, &(g, c, y))| Band {
                ma_id: i as i64 + 1,
                name: format!("Band {i}"),
                genre: Some(GENRES[g].to_string()),
                country: Some((COUNTRIES[c].0.to_string(), COUNTRIES[c].1.to_string())),
                status: Some("Active".into()),
                formed_year: Some(y),
            }).collect();
            // Unique (band, step, raw) is the table's key: the raw text carries the row
            // number, so several rows may share a step (a step with two places).
            let locs: Vec<Loc> = locs.iter().map(|&(b, step, (lon, lat), st)| Loc {
                ma_id: b as i64 + 1,
                step,
                lon,
                lat,
                status: LOC_STATUSES[st].to_string(),
            }).collect();
            common::insert(&db.pool, &bands, &[]).await;
            insert_steps(&db.pool, &locs).await;
            // Manual overrides: step_order -1, parsed_step kept.
            let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM band_locations ORDER BY id")
                .fetch_all(&db.pool).await.unwrap();
            let chosen: Vec<i64> = ids.iter().zip(&manual).filter(|(_, m)| **m).map(|(id, _)| *id).collect();
            sqlx::query("UPDATE band_locations SET step_order = -1 WHERE id = ANY($1)")
                .bind(&chosen).execute(&db.pool).await.unwrap();
            let snap = bandmap_index::map::load(&db.pool).await.unwrap();
            for q in &queries {
                let want = reference(&db.pool, q).await;
                let level = flow_level(&q.bbox, q.zoom);
                let index = (!q.filter.is_empty()).then(|| snap.filter_index(&q.filter));
                let got: Counts = snap
                    .flow_pairs(level, &q.bbox, index.as_ref().map(|i| i.bits.as_slice()))
                    .into_iter()
                    .map(|p| ((p.from, p.to), p.families))
                    .collect();
                assert_eq!(got, want, "pairs differ for {q:?}");
                // Listed flows and the other total, from the reference counts.
                let mut ranked: Vec<((u64, u64), u32)> = want
                    .iter()
                    .map(|(k, f)| (*k, f.iter().sum::<u32>()))
                    .collect();
                ranked.sort_by_key(|&((a, b), n)| (std::cmp::Reverse(n), a, b));
                let total: u32 = ranked.iter().map(|r| r.1).sum();
                let listed: Vec<((u64, u64), u32)> = ranked.iter().take(q.limit).copied().collect();
                let answer = snap.flows(q);
                let got_listed: Vec<((u64, u64), u32)> = answer
                    .flows
                    .iter()
                    .map(|f| ((answer.places[f.from as usize].key, answer.places[f.to as usize].key), f.count))
                    .collect();
                assert_eq!(got_listed, listed, "listed flows differ for {q:?}");
                assert_eq!(answer.total, total);
                assert_eq!(answer.other.count, total - listed.iter().map(|l| l.1).sum::<u32>());
                assert_eq!(answer.other.flows as usize, ranked.len() - listed.len());
            }
        });
    }
}

/// Location rows with a raw text per row (several rows may share a band's step).
async fn insert_steps(pool: &sqlx::PgPool, locs: &[Loc]) {
    sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status) \
         SELECT m, s, s, 'Place ' || n, la, lo, st \
         FROM unnest($1::bigint[], $2::int[], $3::float8[], $4::float8[], $5::text[]) \
              WITH ORDINALITY AS t(m, s, la, lo, st, n)",
    )
    .bind(locs.iter().map(|l| l.ma_id).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.step).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.lat).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.lon).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.status.clone()).collect::<Vec<_>>())
    .execute(pool)
    .await
    .unwrap();
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
