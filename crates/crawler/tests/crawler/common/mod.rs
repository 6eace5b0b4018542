//! Helpers of the crawler's integration tests: configuration with zero delays, crawlers on
//! the demo recording or on a FakeSolver, upstream page builders.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use bandmap_config::Config;
use bandmap_crawler::Crawler;
use bandmap_fakes::solver::FakeSolver;
use bandmap_time::ManualClock;
use bandmap_upstream::{SolverClient, SolverConfig, UpstreamClient, UpstreamUrls};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::PgPool;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub const BASE: &str = "https://www.metal-archives.com";

pub fn demo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../demo/upstream")
}

pub fn config(extra: &[(&str, &str)]) -> Config {
    let mut vars: HashMap<String, String> = [
        ("CRAWLER_DELAY_MS", "0"),
        ("CRAWLER_COUNTRY_PAUSE_MS", "0"),
        ("CRAWLER_INCREMENTAL_INTERVAL_MIN", "60"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (k, v) in extra {
        vars.insert(k.to_string(), v.to_string());
    }
    Config::from_map(&vars).unwrap()
}

pub fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

pub fn demo_crawler(pool: &PgPool, now: &str) -> (Crawler, Arc<ManualClock>) {
    let mode = format!("recorded:{}", demo_dir().display());
    let cfg = config(&[("UPSTREAM_MODE", mode.as_str())]);
    let clock = Arc::new(ManualClock::new(t(now)));
    let c = Crawler::from_config(pool.clone(), &cfg, CancellationToken::new())
        .unwrap()
        .with_clock(clock.clone());
    (c, clock)
}

pub fn solver_client(fake: &FakeSolver) -> UpstreamClient {
    let cfg = SolverConfig::new(&fake.url()).with_backoff(Duration::from_millis(1));
    UpstreamClient::Solver(SolverClient::new(cfg).unwrap())
}

pub fn fake_crawler(
    pool: &PgPool,
    fake: &FakeSolver,
    now: &str,
    shutdown: CancellationToken,
) -> (Crawler, Arc<ManualClock>) {
    let cfg = config(&[("CHALLENGE_SOLVER_URL", fake.url().as_str())]);
    let clock = Arc::new(ManualClock::new(t(now)));
    let c = Crawler::from_config(pool.clone(), &cfg, shutdown)
        .unwrap()
        .with_client(solver_client(fake))
        .with_clock(clock.clone());
    (c, clock)
}

pub fn urls() -> UpstreamUrls {
    UpstreamUrls::new(BASE).unwrap()
}

/// A listed band: (ma_id, name, genre, location).
pub type Row<'a> = (i64, &'a str, &'a str, &'a str);

pub fn country_json(rows: &[Row<'_>], total: usize) -> Value {
    let data: Vec<Value> = rows
        .iter()
        .map(|(id, name, genre, loc)| {
            json!([
                format!("<a href='{BASE}/bands/{name}/{id}'>{name}</a>"),
                genre,
                loc,
                "<span class=\"active\">Active</span>"
            ])
        })
        .collect();
    json!({"error": "", "iTotalRecords": total, "iTotalDisplayRecords": total, "sEcho": 1, "aaData": data})
}

/// A changed band: (ma_id, name, country code, country name, genre, time text).
pub type Change<'a> = (i64, &'a str, &'a str, &'a str, &'a str, &'a str);

pub fn changes_json(rows: &[Change<'_>]) -> Value {
    changes_json_total(rows, rows.len())
}

/// One page of a change list that says the whole list holds `total` rows.
pub fn changes_json_total(rows: &[Change<'_>], total: usize) -> Value {
    let data: Vec<Value> = rows
        .iter()
        .map(|(id, name, cc, country, genre, at)| {
            json!([
                "Nov 1",
                format!("<a href=\"{BASE}/bands/{name}/{id}\">{name}</a>"),
                format!("<a href=\"{BASE}/lists/{cc}\">{country}</a>"),
                genre,
                at,
                format!("<a href=\"{BASE}/users/u\" class=\"profileMenu\">u</a>")
            ])
        })
        .collect();
    json!({"iTotalRecords": total, "iTotalDisplayRecords": total, "sEcho": 1, "aaData": data})
}

/// Serves every European country's first list page empty, and every month list empty.
pub fn serve_empty_lists(fake: &FakeSolver) {
    let u = urls();
    for c in bandmap_crawler::full_crawl::european_countries() {
        fake.add_json(u.country_page(c.code, 0), &country_json(&[], 0));
    }
}

/// Serves one month's created and modified lists.
pub fn serve_changes(
    fake: &FakeSolver,
    year: i32,
    month: u32,
    created: &[Change<'_>],
    modified: &[Change<'_>],
) {
    use bandmap_upstream::ChangeKind;
    let u = urls();
    fake.add_json(
        u.changes_page(year, month, ChangeKind::Created, 0),
        &changes_json(created),
    );
    fake.add_json(
        u.changes_page(year, month, ChangeKind::Modified, 0),
        &changes_json(modified),
    );
}

/// Serves a demo band page and discography under `ma_id`.
pub fn serve_demo_band(fake: &FakeSolver, ma_id: i64) {
    let u = urls();
    let dir = demo_dir();
    let page = std::fs::read_to_string(dir.join(format!("bands/_/{ma_id}"))).unwrap();
    let disco =
        std::fs::read_to_string(dir.join(format!("band/discography/id/{ma_id}/tab/all"))).unwrap();
    fake.add_html(u.band_page(ma_id), page);
    fake.add_html(u.discography(ma_id), disco);
}

pub async fn count(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(pool)
        .await
        .unwrap()
}

pub async fn text(pool: &PgPool, sql: &str) -> Option<String> {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(pool)
        .await
        .unwrap()
}

/// Creates an admin trigger for a full crawl, claims it as the scheduler does and runs its
/// job on `c`; returns the trigger id and the run's outcome.
pub async fn run_triggered_full_crawl(
    c: &Crawler,
    pool: &PgPool,
) -> (i64, bandmap_crawler::job::RunOutcome) {
    use bandmap_crawler::job::{JobKind, JobOptions, execute};
    let trigger =
        bandmap_db::triggers::create(pool, bandmap_db::runs::JobType::FullCrawl, Some("admin"))
            .await
            .unwrap();
    let claimed = bandmap_db::triggers::claim(pool, &[bandmap_db::runs::JobType::FullCrawl])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, trigger);
    let run = execute(c, JobKind::FullCrawl, Some(trigger), JobOptions::default())
        .await
        .unwrap();
    (trigger, run)
}

/// `(status, error)` of a row of `table` (`crawl_run` or `job_triggers`).
pub async fn status_and_error(pool: &PgPool, table: &str, id: i64) -> (String, Option<String>) {
    let sql = format!("SELECT status, error FROM {table} WHERE id = $1");
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}
