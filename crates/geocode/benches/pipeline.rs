#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Pipeline benchmark (`cargo bench -p bandmap-geocode`): rows/s through the whole worker
//! (claim → dedup → gazetteer → cache → provider → done + primary point) on a real
//! PostgreSQL with an instant fake Geoapify, and provider calls per 1,000 rows on a
//! realistic mix of European band locations; baseline in the same run: the bare
//! claim + done-update loop with no resolution, row by row as `run_once` works. Measured:
//! the per-row pipeline (`run_once`, as before batching) and the batch pipeline
//! (`run_batch`, what `run` uses), plus the bare batch loop (the database ceiling of the
//! batch path). Figures go to docs/geocoding.md.
//!
//! Mix: the 660 locations of the gazetteer's held-out set plus 165 made-up villages the
//! gazetteer cannot know (20 % of distinct places), rows drawn Zipf(1) over them (a few
//! cities host many bands). `BENCH_ROWS` (default 10,000) sets the row count.

use bandmap_config::{GeocoderConfig, GeocoderProvider};
use bandmap_db::band_locations::claim;
use bandmap_db::band_locations::done::{self, DoneBy, DoneFields, Finish, Finished};
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_gazetteer::Gazetteer;
use bandmap_geocode::{BATCH_SIZE, Geocoder, Outcome, WORKER_TASKS, Worker, run_batch, run_once};
use bandmap_test_support::TestDb;
use sqlx::PgPool;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Place {
    raw: String,
    city: String,
    regions: Vec<String>,
    country: String,
    cc: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn places() -> Vec<Place> {
    let eval =
        std::fs::read_to_string(root().join("crates/gazetteer/tests/data/eval_locations.tsv"))
            .expect("eval set");
    let mut out = Vec::new();
    for line in eval
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut f = line.split('\t');
        let (Some(loc), Some(cc)) = (f.next(), f.next()) else {
            continue;
        };
        let steps = bandmap_location::parse(loc, Some(cc));
        let Some(p) = steps.first().and_then(|s| s.places.first()) else {
            continue;
        };
        let code = p.country_code.clone().unwrap_or_else(|| cc.to_string());
        let country = bandmap_location::countries::by_code(&code)
            .map(|c| c.name.to_string())
            .unwrap_or_default();
        out.push(Place {
            raw: p.raw.clone(),
            city: p.city.clone(),
            regions: p.regions.clone(),
            country,
            cc: code,
        });
    }
    let known = out.len();
    let ccs = ["NO", "SE", "FI", "DE", "PL", "IT", "FR", "GB", "ES", "CZ"];
    for i in 0..known / 4 {
        let cc = ccs[i % ccs.len()];
        out.push(Place {
            raw: format!("Kvx{i}by"),
            city: format!("Kvx{i}by"),
            regions: vec![],
            country: bandmap_location::countries::by_code(cc)
                .map(|c| c.name.to_string())
                .unwrap_or_default(),
            cc: cc.to_string(),
        });
    }
    out
}

/// Zipf(1) draw of `n` indices over `k` items, deterministic.
fn zipf(n: usize, k: usize) -> Vec<usize> {
    let weights: Vec<f64> = (1..=k).map(|r| 1.0 / r as f64).collect();
    let total: f64 = weights.iter().sum();
    let mut cdf = Vec::with_capacity(k);
    let mut acc = 0.0;
    for w in &weights {
        acc += w / total;
        cdf.push(acc);
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            cdf.partition_point(|c| *c < u).min(k - 1)
        })
        .collect()
}

async fn fill(pool: &PgPool, places: &[Place], picks: &[usize]) {
    let ids: Vec<i64> = (1..=picks.len() as i64).collect();
    sqlx::query("INSERT INTO bands (ma_id, name) SELECT i, 'b' || i FROM UNNEST($1::bigint[]) i")
        .bind(&ids)
        .execute(pool)
        .await
        .unwrap();
    let col = |f: &dyn Fn(&Place) -> String| -> Vec<String> {
        picks.iter().map(|&i| f(&places[i])).collect()
    };
    let regions: Vec<String> = picks
        .iter()
        .map(|&i| places[i].regions.join("\u{1f}"))
        .collect();
    sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, step_label, location_raw, city, regions, country, country_code)
         SELECT ma_id, 0, 0, 'origin', raw, city,
                CASE WHEN regs = '' THEN '{}'::text[] ELSE string_to_array(regs, chr(31)) END, country, cc
         FROM UNNEST($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
              AS t(ma_id, raw, city, regs, country, cc)",
    )
    .bind(&ids)
    .bind(col(&|p| p.raw.clone()))
    .bind(col(&|p| p.city.clone()))
    .bind(&regions)
    .bind(col(&|p| p.country.clone()))
    .bind(col(&|p| p.cc.clone()))
    .execute(pool)
    .await
    .unwrap();
}

fn config(geo: &FakeGeoapify) -> GeocoderConfig {
    GeocoderConfig {
        provider: GeocoderProvider::Geoapify,
        base_url: url::Url::parse(&geo.base_url()).unwrap(),
        api_key: Some(secrecy::SecretString::from("bench".to_string())),
        min_delay: Duration::ZERO,
        min_jitter: Duration::ZERO,
        min_confidence: 0.7,
        offline: true,
        gazetteer_path: PathBuf::new(),
    }
}

fn key(o: Outcome) -> String {
    match o {
        Outcome::Done { dedup: true, .. } => "dedup".to_string(),
        Outcome::Done { provider, .. } => provider,
        Outcome::Fault { message } => panic!("{message}"),
        other => format!("{other:?}")
            .split([' ', '{'])
            .next()
            .unwrap_or("?")
            .to_string(),
    }
}

/// Drains the queue with `tasks()` loops, row by row (`run_once`) or in batches
/// (`run_batch`); returns (seconds, outcome counts).
async fn pipeline(w: &Worker, batch: bool) -> (f64, HashMap<String, usize>) {
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..tasks() {
        let w = w.clone();
        set.spawn(async move {
            let mut counts: HashMap<String, usize> = HashMap::new();
            loop {
                let outcomes = if batch {
                    run_batch(&w, BATCH_SIZE).await
                } else {
                    match run_once(&w).await {
                        Outcome::Idle => Vec::new(),
                        o => vec![o],
                    }
                };
                if outcomes.is_empty() {
                    break;
                }
                for o in outcomes {
                    *counts.entry(key(o)).or_default() += 1;
                }
            }
            counts
        });
    }
    let mut total: HashMap<String, usize> = HashMap::new();
    while let Some(r) = set.join_next().await {
        for (k, v) in r.unwrap() {
            *total.entry(k).or_default() += v;
        }
    }
    (started.elapsed().as_secs_f64(), total)
}

/// The baseline: claim and write `done` (+ primary point) with a constant, no resolution.
async fn baseline(pool: &PgPool) -> f64 {
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..tasks() {
        let pool = pool.clone();
        set.spawn(async move {
            let f = DoneFields {
                lat: 1.0,
                lon: 1.0,
                provider: "baseline".into(),
                confidence: Some(1.0),
                granularity: Some("city".into()),
                query: None,
            };
            while let Some(row) = claim::claim(&pool).await.unwrap() {
                let ma = done::mark_done(&pool, DoneBy::Geocoder(&row.claim()), &f)
                    .await
                    .unwrap();
                assert!(ma.is_some());
            }
        });
    }
    while set.join_next().await.is_some() {}
    started.elapsed().as_secs_f64()
}

/// The batch path's database ceiling: claim `BATCH_SIZE` rows, write them `done` with a
/// constant and sync their bands' points in one transaction, no resolution.
async fn batch_baseline(pool: &PgPool) -> f64 {
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..tasks() {
        let pool = pool.clone();
        set.spawn(async move {
            loop {
                let rows = claim::claim_batch(&pool, BATCH_SIZE as i64).await.unwrap();
                if rows.is_empty() {
                    break;
                }
                let finished: Vec<Finished> = rows
                    .iter()
                    .map(|r| Finished {
                        claim: r.claim(),
                        status: Finish::Done,
                        fields: DoneFields {
                            lat: 1.0,
                            lon: 1.0,
                            provider: "baseline".into(),
                            confidence: Some(1.0),
                            granularity: Some("city".into()),
                            query: None,
                        },
                    })
                    .collect();
                done::finish_batch(&pool, &finished).await.unwrap();
            }
        });
    }
    while set.join_next().await.is_some() {}
    started.elapsed().as_secs_f64()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let n: usize = std::env::var("BENCH_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
        let places = places();
        let picks = zipf(n, places.len());
        let distinct = {
            let mut p = picks.clone();
            p.sort_unstable();
            p.dedup();
            p.len()
        };
        let gaz_path = root().join("data/gazetteer/europe.tsv");
        let t = Instant::now();
        let gaz = match Gazetteer::load(&gaz_path) {
            Ok(g) => Some(Arc::new(g)),
            Err(e) => {
                println!("gazetteer not loaded ({e}); run scripts/fetch-gazetteer.sh — figures below are without it");
                None
            }
        };
        println!(
            "gazetteer load: {:.0} ms; mix: {} rows over {} distinct places ({} drawn), {} worker tasks",
            t.elapsed().as_secs_f64() * 1000.0,
            n,
            places.len(),
            distinct,
            tasks()
        );

        // All four measurements in one run, on fresh databases filled alike, so the
        // ratios hold even when the machine's load moves the absolute rates.
        // `BENCH_BATCH_ONLY=1` (large runs such as issue 13's 150,000 bands): only the batch
        // path, which `run` uses, and its bare loop; the row-by-row loops take minutes there.
        let batch_only = std::env::var_os("BENCH_BATCH_ONLY").is_some();
        let base_s = if batch_only {
            None
        } else {
            let base_db = TestDb::new().await;
            fill(&base_db.pool, &places, &picks).await;
            let s = baseline(&base_db.pool).await;
            drop(base_db);
            Some(s)
        };

        let bbase_db = TestDb::new().await;
        fill(&bbase_db.pool, &places, &picks).await;
        let bbase_s = batch_baseline(&bbase_db.pool).await;
        drop(bbase_db);

        let mut runs = Vec::new();
        for batch in [false, true].into_iter().filter(|b| *b || !batch_only) {
            let db = TestDb::new().await;
            fill(&db.pool, &places, &picks).await;
            let geo = FakeGeoapify::start().await;
            geo.answer_every_text_as_city(0.95);
            let g = Geocoder::with_parts(db.pool.clone(), &config(&geo), gaz.clone(), Duration::from_millis(10)).unwrap();
            let w = Worker::with_geocoder(db.pool.clone(), g);
            let (s, counts) = pipeline(&w, batch).await;
            runs.push((batch, s, counts, geo.call_count()));
        }

        let rate = |s: f64| n as f64 / s;
        // Ratios against the row-by-row baseline, or against the bare batch loop when only
        // the batch path ran.
        let base_s = match base_s {
            Some(b) => {
                println!("baseline, row by row (claim + done + primary point, no resolution): {:>8.0} rows/s ({b:.2} s)", rate(b));
                println!("bare batch loop ({BATCH_SIZE} rows: claim + done + primary points, no resolution): {:>8.0} rows/s ({bbase_s:.2} s), {:.2} x baseline", rate(bbase_s), b / bbase_s);
                b
            }
            None => {
                println!("bare batch loop ({BATCH_SIZE} rows: claim + done + primary points, no resolution) = baseline: {:>8.0} rows/s ({bbase_s:.2} s)", rate(bbase_s));
                bbase_s
            }
        };
        for (batch, s, counts, calls) in &runs {
            let mut keys: Vec<_> = counts.iter().collect();
            keys.sort();
            let name = if *batch { "pipeline, batches (run_batch)" } else { "pipeline, row by row (run_once)" };
            println!("{name}: {:>8.0} rows/s ({s:.2} s), {:.2} x baseline; outcomes {keys:?}", rate(*s), base_s / s);
            println!(
                "  provider calls: {calls} for {n} rows = {:.1} per 1,000 rows",
                *calls as f64 * 1000.0 / n as f64
            );
        }
    });
}

/// Claim loops of the benchmark (`BENCH_TASKS`, default the worker's [`WORKER_TASKS`]).
fn tasks() -> usize {
    std::env::var("BENCH_TASKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(WORKER_TASKS)
}
