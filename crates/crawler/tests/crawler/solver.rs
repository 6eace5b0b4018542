//! The crawler against a loopback FakeSolver: faults through whole jobs, locks and
//! conflicts, cancel between batches, rule 5 waits, panics isolated.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_crawler::{
    BatchHook, JobKind, JobOptions, ScheduleState, TickOutcome, execute, run_once,
};
use bandmap_db::bands::enrich::{failure, record_failure};
use bandmap_db::bands::upsert::{BandInput, upsert_bands};
use bandmap_fakes::solver::{FakeSolver, SolverFault};
use bandmap_test_support::TestDb;
use bandmap_upstream::ChangeKind;
use serde_json::json;
use std::sync::Arc;
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

const NOW: &str = "2026-11-22T02:00:00Z";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../upstream/tests/fixtures/upstream")
            .join(name),
    )
    .unwrap()
}

#[tokio::test]
async fn every_fault_kind_recreates_the_session_and_the_job_succeeds() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_changes(
        &fake,
        2026,
        11,
        &[(
            3540000001,
            "Band_A",
            "NO",
            "Norway",
            "Black Metal",
            "November 20th, 05:42",
        )],
        &[],
    );
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let recreating = [
        SolverFault::Http403,
        SolverFault::Http429,
        SolverFault::SolutionStatus403,
        SolverFault::SolutionStatus429,
        SolverFault::Challenge,
        SolverFault::AttentionRequired,
        SolverFault::AccessDenied,
        SolverFault::EmptyBody,
        SolverFault::Zero,
        SolverFault::Forbidden,
        SolverFault::GarbageHtml,
        SolverFault::Blocked500,
    ];
    for fault in recreating {
        let destroyed = fake.count("sessions.destroy");
        fake.fail_next(fault, 1);
        let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
            .await
            .unwrap();
        assert_eq!(run.status, "success", "{fault:?}: {run:?}");
        assert_eq!(
            fake.count("sessions.destroy"),
            destroyed + 1,
            "{fault:?} recreates the session"
        );
    }
    // A plain solver error is retried without a new session.
    let destroyed = fake.count("sessions.destroy");
    fake.fail_next(SolverFault::Error500, 1);
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success");
    assert_eq!(fake.count("sessions.destroy"), destroyed);
    assert_eq!(count(&db.pool, "SELECT count(*) FROM bands").await, 1);

    // HTML pages of an enrichment too.
    fake.add_html(
        urls().band_page(3540000001),
        fixture("band_active_tabs.html").replace("3540000101", "3540000001"),
    );
    fake.add_html(
        urls().discography(3540000001),
        fixture("discography_all.html"),
    );
    for fault in [
        SolverFault::Challenge,
        SolverFault::EmptyBody,
        SolverFault::Http429,
    ] {
        let created = fake.count("sessions.create");
        fake.fail_next(fault, 1);
        let run = execute(&c, JobKind::Enrich, None, JobOptions::default())
            .await
            .unwrap();
        assert_eq!(run.stats.json()["enriched"], 1, "{fault:?}: {run:?}");
        assert_eq!(fake.count("sessions.create"), created + 1, "{fault:?}");
        sqlx::query("UPDATE bands SET enriched = false")
            .execute(&db.pool)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn an_unreadable_listing_ends_the_incremental_in_error_and_keeps_the_checkpoint() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_changes(&fake, 2026, 11, &[], &[]);
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    fake.fail_next(SolverFault::Http403, 4);
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "error");
    assert!(run.error.unwrap().contains("listing unreadable"));
    assert_eq!(
        count(
            &db.pool,
            "SELECT count(*) FROM crawl_checkpoint WHERE key = 'last_created_check'"
        )
        .await,
        0
    );
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success");
    assert_eq!(
        count(
            &db.pool,
            "SELECT count(*) FROM crawl_checkpoint WHERE key = 'last_created_check'"
        )
        .await,
        1
    );
}

#[tokio::test]
async fn non_european_bands_never_enter() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_changes(
        &fake,
        2026,
        11,
        &[
            (
                1,
                "Euro",
                "SE",
                "Sweden",
                "Death Metal",
                "November 2nd, 10:00",
            ),
            (
                2,
                "Yank",
                "US",
                "United States",
                "Thrash Metal",
                "November 2nd, 10:01",
            ),
        ],
        &[(
            3,
            "Braz",
            "BR",
            "Brazil",
            "Thrash Metal",
            "November 3rd, 10:00",
        )],
    );
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success");
    let ids: Vec<i64> = sqlx::query_scalar("SELECT ma_id FROM bands")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(ids, vec![1]);
    assert_eq!(run.stats.json()["non_european_skipped"], 2);
}

#[tokio::test]
async fn a_locked_field_survives_a_crawl_the_conflict_is_recorded_and_cleared_when_equal() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_empty_lists(&fake);
    let u = urls();
    let page = |genre: &str| {
        country_json(
            &[
                (10, "Band_X", genre, "Oslo"),
                (11, "Band_Y", "Doom Metal", "Bergen"),
            ],
            2,
        )
    };
    fake.add_json(u.country_page("NO", 0), &page("Black Metal"));
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    assert_eq!(
        execute(&c, JobKind::FullCrawl, None, JobOptions::default())
            .await
            .unwrap()
            .status,
        "success"
    );
    sqlx::query(
        "UPDATE bands SET genre = 'Admin Genre', locked_fields = ARRAY['genre'] WHERE ma_id = 10",
    )
    .execute(&db.pool)
    .await
    .unwrap();

    fake.add_json(u.country_page("NO", 0), &page("Black/Death Metal"));
    let run = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success");
    assert_eq!(
        text(&db.pool, "SELECT genre FROM bands WHERE ma_id = 10")
            .await
            .as_deref(),
        Some("Admin Genre")
    );
    let pending: serde_json::Value =
        sqlx::query_scalar("SELECT crawler_pending FROM bands WHERE ma_id = 10")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(pending, json!({"genre": "Black/Death Metal"}));

    fake.add_json(u.country_page("NO", 0), &page("Admin Genre"));
    execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    let pending: serde_json::Value =
        sqlx::query_scalar("SELECT crawler_pending FROM bands WHERE ma_id = 10")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(pending, json!({}));
}

fn big_norway(fake: &FakeSolver, n: i64) {
    let u = urls();
    let names: Vec<String> = (0..n).map(|i| format!("Band_{i}")).collect();
    let rows: Vec<Row<'_>> = (0..n)
        .map(|i| (100 + i, names[i as usize].as_str(), "Black Metal", "Oslo"))
        .collect();
    for (p, chunk) in rows.chunks(500).enumerate() {
        fake.add_json(
            u.country_page("NO", p as u64 * 500),
            &country_json(chunk, n as usize),
        );
    }
}

#[tokio::test]
async fn a_full_crawl_costs_one_request_per_500_bands_and_publishes_progress() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_empty_lists(&fake);
    big_norway(&fake, 1200);
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let run = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success");
    assert_eq!(run.stats.json()["bands_seen"], 1200);
    let norway_requests = fake
        .requested_urls()
        .iter()
        .filter(|u| u.contains("/c/NO/"))
        .count();
    assert_eq!(norway_requests, 3);
}

#[tokio::test]
async fn cancel_between_batches_ends_the_run_cancelled_and_the_trigger_done() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_empty_lists(&fake);
    big_norway(&fake, 1200);
    let pool = db.pool.clone();
    // Set the flag between batches, once three chunks of ten are written.
    let hook: BatchHook = Arc::new(move |run_id, _batch| {
        let pool = pool.clone();
        Box::pin(async move {
            let n: i64 = sqlx::query_scalar("SELECT count(*) FROM bands")
                .fetch_one(&pool)
                .await
                .unwrap();
            if n == 30 {
                sqlx::query("UPDATE crawl_run SET cancel_requested = true WHERE id = $1")
                    .bind(run_id)
                    .execute(&pool)
                    .await
                    .unwrap();
            }
        })
    });
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let c = c.with_batch_hook(hook);
    let (trigger, run) = run_triggered_full_crawl(&c, &db.pool).await;
    assert_eq!(run.status, "cancelled");
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM crawl_run WHERE id = {}", run.run_id)
        )
        .await
        .as_deref(),
        Some("cancelled")
    );
    // Rule 8: statistics every 10 bands; three batches of ten were written.
    assert_eq!(count(&db.pool, "SELECT count(*) FROM bands").await, 30);
    let stats: serde_json::Value = sqlx::query_scalar("SELECT stats FROM crawl_run WHERE id = $1")
        .bind(run.run_id)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(stats["bands_seen"], 30);
    assert_eq!(stats["country_code"], "NO");
    assert!(stats["country_index"].as_u64().unwrap() >= 1);
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM job_triggers WHERE id = {trigger}")
        )
        .await
        .as_deref(),
        Some("done")
    );
    assert_eq!(
        count(
            &db.pool,
            &format!("SELECT run_id FROM job_triggers WHERE id = {trigger}")
        )
        .await,
        run.run_id
    );
}

#[tokio::test]
async fn a_panicking_job_ends_its_run_in_error() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_empty_lists(&fake);
    big_norway(&fake, 30);
    let hook: BatchHook = Arc::new(|_, batch| {
        Box::pin(async move {
            assert!(batch < 2, "boom");
        })
    });
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let c = c.with_batch_hook(hook);
    let run = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "error");
    assert!(
        run.error.as_deref().unwrap().starts_with("job panicked"),
        "{run:?}"
    );
    let err = text(
        &db.pool,
        &format!("SELECT error FROM crawl_run WHERE id = {}", run.run_id),
    )
    .await;
    assert!(err.unwrap().contains("boom"));
}

#[tokio::test]
async fn enrichment_waits_after_a_failed_fetch_and_counts_the_failure() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    let u = urls();
    // 3540000101 has a page with a line-up and a discography; 3540000500 is unknown (404 page).
    fake.add_html(u.band_page(3540000101), fixture("band_active_tabs.html"));
    fake.add_html(u.discography(3540000101), fixture("discography_all.html"));
    for (id, name) in [(3540000101, "Fjellgrav"), (3540000500, "Missing")] {
        bandmap_db::bands::upsert::upsert_bands(
            &db.pool,
            &[bandmap_db::bands::upsert::BandInput {
                ma_id: id,
                name: name.into(),
                ..Default::default()
            }],
        )
        .await
        .unwrap();
    }
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let run = execute(&c, JobKind::Enrich, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success", "{run:?}");
    assert_eq!(run.stats.json()["enriched"], 1);
    assert_eq!(run.stats.json()["failed"], 1);
    // 2 requests for the good band, 1 for the missing one; a wait after each (rule 5).
    assert_eq!(c.client().stats().requests, 3);
    assert_eq!(c.politeness_waits(), 3);
    let page: serde_json::Value =
        sqlx::query_scalar("SELECT band_page FROM bands WHERE ma_id = 3540000101")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert!(
        page["lineup"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["artist_url"].is_string())
    );
    assert!(!page["releases"].as_array().unwrap().is_empty());
    let logs = count(&db.pool, &format!(
        "SELECT count(*) FROM crawl_log WHERE run_id = {} AND (message LIKE '%failed=1%3540000500%' OR message LIKE '%3540000500%failed=1%')",
        run.run_id
    )).await;
    assert!(logs >= 1);
}

async fn add_band(pool: &sqlx::PgPool, ma_id: i64, name: &str) {
    upsert_bands(
        pool,
        &[BandInput {
            ma_id,
            name: name.into(),
            ..Default::default()
        }],
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn enrichment_waits_after_a_fetch_failure_too() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    add_band(&db.pool, 3540000500, "Unreachable").await;
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    // Every attempt of the client fails: the fetch itself fails, not the parse.
    fake.fail_next(SolverFault::Error500, 20);
    let run = execute(&c, JobKind::Enrich, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success", "{run:?}");
    assert_eq!(run.stats.json()["failed"], 1);
    assert_eq!(run.stats.json()["enriched"].as_u64().unwrap_or(0), 0);
    assert!(c.client().stats().requests >= 1);
    assert_eq!(
        c.politeness_waits(),
        1,
        "rule 5: a wait after the failed fetch"
    );
}

#[tokio::test]
async fn a_band_that_always_fails_steps_aside_with_a_growing_backoff_and_success_clears_it() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    let u = urls();
    // Two bands at the head of the queue (enrich_pending) whose pages never parse (deleted
    // upstream: 404 page), one good band behind them (never enriched).
    add_band(&db.pool, 3540000500, "Gone One").await;
    add_band(&db.pool, 3540000501, "Gone Two").await;
    add_band(&db.pool, 3540000101, "Fjellgrav").await;
    sqlx::query("UPDATE bands SET enrich_pending = true WHERE ma_id IN (3540000500, 3540000501)")
        .execute(&db.pool)
        .await
        .unwrap();
    fake.add_html(u.band_page(3540000101), fixture("band_active_tabs.html"));
    fake.add_html(u.discography(3540000101), fixture("discography_all.html"));
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let two = JobOptions { max_bands: Some(2) };
    let run = execute(&c, JobKind::Enrich, None, two).await.unwrap();
    assert_eq!(run.stats.json()["failed"], 2, "{run:?}");
    let f = failure(&db.pool, 3540000500).await.unwrap().unwrap();
    assert_eq!(f.attempts, 1);
    assert!(f.error.unwrap().contains("3540000500"));
    // The next run of two takes the good band: the failing ones wait out their backoff.
    let run = execute(&c, JobKind::Enrich, None, two).await.unwrap();
    assert_eq!(run.stats.json()["enriched"], 1, "{run:?}");
    assert_eq!(run.stats.json()["failed"], 0, "{run:?}");
    assert!(
        !bandmap_db::bands::enrich::has_due(&db.pool).await.unwrap(),
        "only backing-off bands are left"
    );
    // Backoff due: tried again first, fails again, the backoff doubles.
    sqlx::query("UPDATE enrich_failures SET next_at = now() - interval '1 second'")
        .execute(&db.pool)
        .await
        .unwrap();
    let run = execute(&c, JobKind::Enrich, None, two).await.unwrap();
    assert_eq!(run.stats.json()["failed"], 2, "{run:?}");
    let wait: f64 = sqlx::query_scalar(
        "SELECT EXTRACT(EPOCH FROM next_at - failed_at)::float8 FROM enrich_failures WHERE ma_id = 3540000500",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(wait, 2.0 * 15.0 * 60.0);
    assert_eq!(
        failure(&db.pool, 3540000500)
            .await
            .unwrap()
            .unwrap()
            .attempts,
        2
    );
    // The band comes back upstream: success clears its failure record.
    sqlx::query("UPDATE enrich_failures SET next_at = now() - interval '1 second'")
        .execute(&db.pool)
        .await
        .unwrap();
    fake.add_html(
        u.band_page(3540000500),
        fixture("band_active_tabs.html").replace("3540000101", "3540000500"),
    );
    fake.add_html(u.discography(3540000500), fixture("discography_all.html"));
    let one = JobOptions { max_bands: Some(1) };
    let run = execute(&c, JobKind::Enrich, None, one).await.unwrap();
    assert_eq!(run.stats.json()["enriched"], 1, "{run:?}");
    assert_eq!(failure(&db.pool, 3540000500).await.unwrap(), None);
    assert!(failure(&db.pool, 3540000501).await.unwrap().is_some());
}

#[tokio::test]
async fn recording_a_failure_moves_neither_updated_at_nor_the_map_version() {
    let db = TestDb::new().await;
    add_band(&db.pool, 7, "Seven").await;
    let before: (chrono::DateTime<chrono::Utc>, i64) = sqlx::query_as(
        "SELECT updated_at, (SELECT last_value FROM map_data_version) FROM bands WHERE ma_id = 7",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    let f = record_failure(&db.pool, 7, "boom").await.unwrap().unwrap();
    assert_eq!(f.attempts, 1);
    let after: (chrono::DateTime<chrono::Utc>, i64) = sqlx::query_as(
        "SELECT updated_at, (SELECT last_value FROM map_data_version) FROM bands WHERE ma_id = 7",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(before, after);
    assert_eq!(
        record_failure(&db.pool, 8, "no such band").await.unwrap(),
        None
    );
}

#[tokio::test]
async fn rule_4_raises_once_per_list_text_whatever_the_zone_of_the_page() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    let u = urls();
    // The page says "Last modified on: 2026-11-02 08:15:09"; the list shows the same edit
    // five hours later on the wall clock (another zone).
    let listed = |at: &'static str| -> Vec<Change<'static>> {
        vec![(3540000101, "Fjellgrav", "NO", "Norway", "Black Metal", at)]
    };
    serve_changes(&fake, 2026, 11, &[], &listed("November 2nd, 13:15"));
    fake.add_html(u.band_page(3540000101), fixture("band_active_tabs.html"));
    fake.add_html(u.discography(3540000101), fixture("discography_all.html"));
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let incremental = || execute(&c, JobKind::Incremental, None, JobOptions::default());
    let run = incremental().await.unwrap();
    assert_eq!(
        run.stats.json()["enrich_pending_raised"],
        0,
        "not enriched yet"
    );
    let run = execute(&c, JobKind::Enrich, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.stats.json()["enriched"], 1);
    assert_eq!(
        text(&db.pool, "SELECT ma_modified_text FROM bands")
            .await
            .as_deref(),
        Some("November 2nd, 13:15"),
        "the list's text, not the page's"
    );
    // Pretend the page was read soon after that edit, so only the text decides.
    let read_soon_after = "UPDATE bands SET crawled_at = '2026-11-02T14:00:00Z'";
    sqlx::query(read_soon_after)
        .execute(&db.pool)
        .await
        .unwrap();
    let run = incremental().await.unwrap();
    assert_eq!(
        run.stats.json()["enrich_pending_raised"],
        0,
        "same text: no raise"
    );
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM bands WHERE enrich_pending").await,
        0
    );
    // A new edit upstream: raised once, and only once.
    serve_changes(&fake, 2026, 11, &[], &listed("November 21st, 09:00"));
    let run = incremental().await.unwrap();
    assert_eq!(run.stats.json()["enrich_pending_raised"], 1);
    let run = incremental().await.unwrap();
    assert_eq!(run.stats.json()["enrich_pending_raised"], 0);
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM bands WHERE enrich_pending").await,
        1
    );
}

#[tokio::test]
async fn incremental_stops_paging_at_the_checkpoint() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    let u = urls();
    let created = |offset| u.changes_page(2026, 11, ChangeKind::Created, offset);
    let modified = |offset| u.changes_page(2026, 11, ChangeKind::Modified, offset);
    // Newest first; the checkpoint is Nov 21st 02:00, read back to Nov 20th 02:00 (a day
    // for upstream's unknown zone). Pages further down are not served: reading one fails.
    fake.add_json(
        created(0),
        &changes_json_total(
            &[(
                1,
                "A",
                "NO",
                "Norway",
                "Black Metal",
                "November 21st, 10:00",
            )],
            600,
        ),
    );
    fake.add_json(
        created(200),
        &changes_json_total(
            &[(
                2,
                "B",
                "NO",
                "Norway",
                "Black Metal",
                "November 19th, 10:00",
            )],
            600,
        ),
    );
    fake.add_json(
        modified(0),
        &changes_json_total(
            &[(
                3,
                "C",
                "US",
                "United States",
                "Doom Metal",
                "November 19th, 08:00",
            )],
            400,
        ),
    );
    bandmap_db::checkpoints::set(&db.pool, "last_created_check", "2026-11-21T02:00:00Z")
        .await
        .unwrap();
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success", "{run:?}");
    assert_eq!(
        fake.requested_urls(),
        vec![created(0), created(200), modified(0)]
    );
    assert_eq!(count(&db.pool, "SELECT count(*) FROM bands").await, 2);
}

#[tokio::test]
async fn a_list_page_without_european_rows_still_reads_the_cancel_flag() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    let u = urls();
    let us = [(
        3,
        "C",
        "US",
        "United States",
        "Doom Metal",
        "November 21st, 08:00",
    )];
    for kind in [ChangeKind::Created, ChangeKind::Modified] {
        for offset in [0, 200] {
            fake.add_json(
                u.changes_page(2026, 11, kind, offset),
                &changes_json_total(&us, 400),
            );
        }
    }
    let pool = db.pool.clone();
    let hook: BatchHook = Arc::new(move |run_id, _| {
        let pool = pool.clone();
        Box::pin(async move {
            sqlx::query("UPDATE crawl_run SET cancel_requested = true WHERE id = $1")
                .bind(run_id)
                .execute(&pool)
                .await
                .unwrap();
        })
    });
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let c = c.with_batch_hook(hook);
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "cancelled", "{run:?}");
    assert_eq!(
        fake.requested_urls().len(),
        1,
        "stopped after the first page"
    );
}

#[tokio::test]
async fn a_run_ending_in_error_sets_its_trigger_error() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_changes(&fake, 2026, 11, &[], &[]);
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    bandmap_db::checkpoints::set(&db.pool, "last_full_crawl_at", NOW)
        .await
        .unwrap();
    let trigger = bandmap_db::triggers::create(
        &db.pool,
        bandmap_db::runs::JobType::Incremental,
        Some("admin"),
    )
    .await
    .unwrap();
    fake.fail_next(SolverFault::Http403, 4);
    let mut state = ScheduleState::new(t(NOW), std::time::Duration::from_secs(3600));
    let TickOutcome::Ran { run, .. } = run_once(&c, &mut state).await.unwrap() else {
        panic!("the trigger's job runs");
    };
    assert_eq!(run.status, "error");
    let (status, error, run_id): (String, Option<String>, Option<i64>) =
        sqlx::query_as("SELECT status, error, run_id FROM job_triggers WHERE id = $1")
            .bind(trigger)
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(status, "error");
    assert!(error.unwrap().contains("listing unreadable"));
    assert_eq!(run_id, Some(run.run_id));
}

/// (run id, trigger status, trigger's run id) as read at a batch.
type TriggerSeen = (i64, String, Option<i64>);

#[tokio::test]
async fn a_trigger_is_claimed_while_its_job_runs_and_records_the_run_id() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_changes(
        &fake,
        2026,
        11,
        &[(
            3540000001,
            "Band_A",
            "NO",
            "Norway",
            "Black Metal",
            "November 20th, 05:42",
        )],
        &[],
    );
    bandmap_db::checkpoints::set(&db.pool, "last_full_crawl_at", NOW)
        .await
        .unwrap();
    let trigger = bandmap_db::triggers::create(
        &db.pool,
        bandmap_db::runs::JobType::Incremental,
        Some("admin"),
    )
    .await
    .unwrap();
    let seen: Arc<Mutex<Vec<TriggerSeen>>> = Arc::default();
    let (pool, log) = (db.pool.clone(), seen.clone());
    let hook: BatchHook = Arc::new(move |run_id, _| {
        let (pool, log) = (pool.clone(), log.clone());
        Box::pin(async move {
            let (status, attached): (String, Option<i64>) =
                sqlx::query_as("SELECT status, run_id FROM job_triggers WHERE id = $1")
                    .bind(trigger)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            log.lock().unwrap().push((run_id, status, attached));
        })
    });
    let (c, _) = fake_crawler(&db.pool, &fake, NOW, CancellationToken::new());
    let c = c.with_batch_hook(hook);
    let mut state = ScheduleState::new(t(NOW), std::time::Duration::from_secs(3600));
    let TickOutcome::Ran { run, .. } = run_once(&c, &mut state).await.unwrap() else {
        panic!("the trigger's job runs");
    };
    assert_eq!(run.status, "success");
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    for (run_id, status, attached) in seen {
        assert_eq!(status, "claimed");
        assert_eq!(attached, Some(run_id));
        assert_eq!(run_id, run.run_id);
    }
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM job_triggers WHERE id = {trigger}")
        )
        .await
        .as_deref(),
        Some("done")
    );
}
