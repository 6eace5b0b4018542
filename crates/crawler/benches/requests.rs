//! Crawler figures: parser throughput (pages/s) on the demo recording, and upstream requests
//! per band for each job kind (full crawl on a FakeSolver country of 2,000 bands; incremental
//! and enrichment on the demo recording), each with its target as a baseline ratio.
//! `cargo bench -p bandmap-crawler --bench requests` (needs the test PostgreSQL; `BENCH_MS`
//! sets the time per parser measurement).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_config::Config;
use bandmap_crawler::{Crawler, JobKind, JobOptions, execute};
use bandmap_fakes::solver::FakeSolver;
use bandmap_test_support::TestDb;
use bandmap_time::ManualClock;
use bandmap_upstream::parse::{
    parse_band_page, parse_change_page, parse_country_page, parse_discography, unwrap_json,
};
use bandmap_upstream::{SolverClient, SolverConfig, UpstreamClient, UpstreamUrls};
use serde_json::json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../demo/upstream")
}

fn throughput(name: &str, pages: &[String], f: impl Fn(&str) -> bool) {
    let budget = Duration::from_millis(
        std::env::var("BENCH_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000),
    );
    let start = Instant::now();
    let mut n = 0u64;
    let mut ok = 0u64;
    while start.elapsed() < budget {
        for p in pages {
            ok += u64::from(f(p));
            n += 1;
        }
    }
    let s = start.elapsed().as_secs_f64();
    println!(
        "parse {name:<12} {:>9.0} pages/s  ({} pages, {} parsed ok)",
        n as f64 / s,
        n,
        ok
    );
}

fn read_all(dir: PathBuf) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p)
            } else {
                out.push(std::fs::read_to_string(p).unwrap())
            }
        }
    }
    out
}

fn config(extra: &[(&str, String)]) -> Config {
    let mut vars: HashMap<String, String> = HashMap::new();
    vars.insert("CRAWLER_DELAY_MS".into(), "0".into());
    vars.insert("CRAWLER_COUNTRY_PAUSE_MS".into(), "0".into());
    for (k, v) in extra {
        vars.insert((*k).into(), v.clone());
    }
    Config::from_map(&vars).unwrap()
}

fn report(job: &str, requests: u64, bands: u64, target: f64) {
    let per = requests as f64 / bands.max(1) as f64;
    println!(
        "{job:<36} {requests:>5} requests / {bands:>5} bands = {per:.4} req/band  (target {target:.4}, ratio {:.2})",
        per / target
    );
}

#[tokio::main]
async fn main() {
    let d = demo();
    let lists: Vec<String> = read_all(d.join("browse"));
    let changes: Vec<String> = read_all(d.join("archives"));
    let bands: Vec<String> = read_all(d.join("bands"));
    let discos: Vec<String> = read_all(d.join("band"));
    throughput("country list", &lists, |p| {
        unwrap_json(p)
            .ok()
            .and_then(|j| parse_country_page(&j).ok())
            .is_some()
    });
    throughput("change list", &changes, |p| {
        unwrap_json(p)
            .ok()
            .and_then(|j| parse_change_page(&j).ok())
            .is_some()
    });
    throughput("band page", &bands, |p| parse_band_page(p).is_ok());
    throughput("discography", &discos, |p| parse_discography(p).is_ok());

    // Full crawl on a FakeSolver: Norway with 2,000 bands, every other country empty.
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    let u = UpstreamUrls::new("https://www.metal-archives.com").unwrap();
    let countries = bandmap_crawler::full_crawl::european_countries();
    for c in &countries {
        fake.add_json(
            u.country_page(c.code, 0),
            &json!({"iTotalRecords": 0, "aaData": []}),
        );
    }
    let total = 2000;
    for page in 0..4 {
        let rows: Vec<_> = (0..500)
            .map(|i| {
                let id = 1 + page * 500 + i;
                json!([
                    format!("<a href='https://www.metal-archives.com/bands/B/{id}'>B{id}</a>"),
                    "Black Metal",
                    "Oslo",
                    "<span class=\"active\">Active</span>"
                ])
            })
            .collect();
        fake.add_json(
            u.country_page("NO", page * 500),
            &json!({"iTotalRecords": total, "aaData": rows}),
        );
    }
    let cfg = config(&[("CHALLENGE_SOLVER_URL", fake.url())]);
    let client = UpstreamClient::Solver(
        SolverClient::new(SolverConfig::new(&fake.url()).with_backoff(Duration::from_millis(1)))
            .unwrap(),
    );
    let c = Crawler::from_config(db.pool.clone(), &cfg, CancellationToken::new())
        .unwrap()
        .with_client(client);
    let t0 = Instant::now();
    let run = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    let elapsed = t0.elapsed();
    let no_requests = fake
        .requested_urls()
        .iter()
        .filter(|x| x.contains("/c/NO/"))
        .count() as u64;
    report("full crawl (NO, solver)", no_requests, total, 1.0 / 500.0);
    println!(
        "  whole run: {} requests for {} countries, {} bands, {:.2} s without delays",
        c.client().stats().requests,
        countries.len(),
        run.stats.json()["bands_seen"],
        elapsed.as_secs_f64()
    );

    // Demo recording: full crawl, incremental, enrichment.
    let db = TestDb::new().await;
    let cfg = config(&[("UPSTREAM_MODE", format!("recorded:{}", d.display()))]);
    let clock = Arc::new(ManualClock::new(
        chrono::DateTime::parse_from_rfc3339("2026-11-22T02:00:00Z")
            .unwrap()
            .to_utc(),
    ));
    let c = Crawler::from_config(db.pool.clone(), &cfg, CancellationToken::new())
        .unwrap()
        .with_clock(clock);
    let run = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    let r0 = c.client().stats().requests;
    report(
        "full crawl (demo, all countries)",
        r0,
        run.stats.json()["bands_seen"].as_u64().unwrap(),
        1.0 / 500.0,
    );
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    let r1 = c.client().stats().requests;
    let rows = run.stats.json()["bands_seen"].as_u64().unwrap()
        + run.stats.json()["non_european_skipped"].as_u64().unwrap();
    report("incremental (demo, 1 month)", r1 - r0, rows, 1.0 / 200.0);
    let t0 = Instant::now();
    let run = execute(&c, JobKind::Enrich, None, JobOptions::default())
        .await
        .unwrap();
    let r2 = c.client().stats().requests;
    report(
        "enrichment (demo)",
        r2 - r1,
        run.stats.json()["enriched"].as_u64().unwrap(),
        2.0,
    );
    println!(
        "  enrichment of {} bands: {:.2} s without delays",
        run.stats.json()["enriched"],
        t0.elapsed().as_secs_f64()
    );
}
