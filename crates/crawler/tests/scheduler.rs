//! The scheduler: triggers (rule 9), rule 1 at start and at the 03:00 tick, the automatic
//! incremental, automatic enrichment, start recovery (rule 7), shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bandmap_crawler::{BatchHook, JobKind, ScheduleState, TickOutcome, run_once, startup};
use bandmap_db::checkpoints;
use bandmap_fakes::solver::FakeSolver;
use bandmap_test_support::TestDb;
use common::*;
use std::sync::Arc;
use std::time::Duration;

fn ran(o: &TickOutcome) -> Option<(JobKind, Option<i64>, &'static str)> {
    match o {
        TickOutcome::Ran { kind, trigger, run } => Some((*kind, *trigger, run.status)),
        _ => None,
    }
}

#[tokio::test]
async fn triggers_unknown_types_are_closed_and_geocoder_enqueue_is_left_pending() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    checkpoints::set(&db.pool, "last_full_crawl_at", "2026-11-21T00:00:00Z")
        .await
        .unwrap();
    let mut state = ScheduleState::new(t("2026-11-22T02:00:00Z"), Duration::from_secs(3600));
    let geo = bandmap_db::jobs::create(&db.pool, "geocoder_enqueue", None)
        .await
        .unwrap();
    let bogus = bandmap_db::jobs::create(&db.pool, "bogus", None)
        .await
        .unwrap();
    let inc = bandmap_db::jobs::create(&db.pool, "incremental", None)
        .await
        .unwrap();
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(
        o,
        TickOutcome::RejectedTrigger {
            id: bogus,
            job_type: "bogus".into()
        }
    );
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT error FROM job_triggers WHERE id = {bogus}")
        )
        .await
        .as_deref(),
        Some("unknown job_type")
    );
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM job_triggers WHERE id = {bogus}")
        )
        .await
        .as_deref(),
        Some("error")
    );
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(ran(&o), Some((JobKind::Incremental, Some(inc), "success")));
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM job_triggers WHERE id = {inc}")
        )
        .await
        .as_deref(),
        Some("done")
    );
    // The rest of the schedule runs (enrichment of the new bands), never the enqueue trigger.
    for _ in 0..3 {
        let _ = run_once(&c, &mut state).await.unwrap();
    }
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM job_triggers WHERE id = {geo}")
        )
        .await
        .as_deref(),
        Some("pending")
    );
}

#[tokio::test]
async fn rule_1_is_checked_at_start_and_at_the_0300_tick_and_incremental_follows_its_interval() {
    let db = TestDb::new().await;
    let (c, clock) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    checkpoints::set(&db.pool, "last_full_crawl_at", "2026-11-21T00:00:00Z")
        .await
        .unwrap();
    let mut state = ScheduleState::new(t("2026-11-22T02:00:00Z"), Duration::from_secs(3600));
    // Start: full crawl not due, incremental not yet, empty queue.
    assert_eq!(run_once(&c, &mut state).await.unwrap(), TickOutcome::Idle);
    // The checkpoint ages, but the check runs only at the tick.
    checkpoints::set(&db.pool, "last_full_crawl_at", "2026-01-01T00:00:00Z")
        .await
        .unwrap();
    clock.set(t("2026-11-22T02:59:59Z"));
    assert_eq!(run_once(&c, &mut state).await.unwrap(), TickOutcome::Idle);
    clock.set(t("2026-11-22T03:00:00Z"));
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(ran(&o), Some((JobKind::FullCrawl, None, "success")));
    assert_eq!(state.next_daily_tick, t("2026-11-23T03:00:00Z"));
    // One interval after start: the incremental.
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(ran(&o), Some((JobKind::Incremental, None, "success")));
    assert_eq!(state.next_incremental_at, t("2026-11-22T04:00:00Z"));
    // Idle with a queue: automatic enrichment, 100 bands per run, until the queue is empty.
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(ran(&o), Some((JobKind::Enrich, None, "success")));
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(ran(&o), Some((JobKind::Enrich, None, "success")));
    assert_eq!(run_once(&c, &mut state).await.unwrap(), TickOutcome::Idle);
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM bands WHERE NOT enriched").await,
        0
    );
}

#[tokio::test]
async fn a_missing_checkpoint_starts_a_full_crawl_at_start() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T12:00:00Z");
    let mut state = ScheduleState::new(t("2026-11-22T12:00:00Z"), Duration::from_secs(3600));
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(ran(&o), Some((JobKind::FullCrawl, None, "success")));
}

#[tokio::test]
async fn start_recovers_runs_left_running_of_crawler_types_only() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let enrich = bandmap_db::runs::start(&db.pool, bandmap_db::runs::RunType::Enrich, None)
        .await
        .unwrap();
    let geo = bandmap_db::runs::start(&db.pool, bandmap_db::runs::RunType::GeocoderEnqueue, None)
        .await
        .unwrap();
    assert_eq!(startup(&c).await.unwrap(), 1);
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM crawl_run WHERE id = {enrich}")
        )
        .await
        .as_deref(),
        Some("interrupted")
    );
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM crawl_run WHERE id = {geo}")
        )
        .await
        .as_deref(),
        Some("running")
    );
}

#[tokio::test]
async fn the_service_loop_recovers_beats_runs_and_stops_on_shutdown_destroying_the_session() {
    let db = TestDb::new().await;
    let fake = FakeSolver::start().await;
    serve_empty_lists(&fake);
    big_norway_small(&fake);
    let killed = bandmap_db::runs::start(&db.pool, bandmap_db::runs::RunType::FullCrawl, None)
        .await
        .unwrap();
    let (trigger, signal) = bandmap_health::shutdown_pair();
    let trigger = Arc::new(trigger);
    let fire = trigger.clone();
    let hook: BatchHook = Arc::new(move |_, _| {
        fire.fire();
        Box::pin(async {})
    });
    let (c, _) = fake_crawler(&db.pool, &fake, "2026-11-22T02:00:00Z", signal);
    let c = Arc::new(c.with_batch_hook(hook));
    tokio::time::timeout(
        Duration::from_secs(60),
        bandmap_crawler::run_crawler(c, Duration::from_secs(3600)),
    )
    .await
    .expect("the loop stops on shutdown");
    assert_eq!(
        text(
            &db.pool,
            &format!("SELECT status FROM crawl_run WHERE id = {killed}")
        )
        .await
        .as_deref(),
        Some("interrupted")
    );
    // The full crawl started (no checkpoint) and was closed on shutdown.
    let (status, err): (String, Option<String>) = sqlx::query_as(
        "SELECT status, error FROM crawl_run WHERE id <> $1 ORDER BY id DESC LIMIT 1",
    )
    .bind(killed)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(status, "cancelled");
    assert!(err.unwrap().contains("shutting down"));
    assert_eq!(
        count(
            &db.pool,
            "SELECT count(*) FROM crawl_run WHERE status = 'running'"
        )
        .await,
        0
    );
    assert!(
        fake.count("sessions.destroy") >= 1,
        "session destroyed at shutdown"
    );
    let checks: serde_json::Value =
        sqlx::query_scalar("SELECT checks FROM service_health WHERE service = 'crawler'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(checks["database"]["ok"], true);
    assert_eq!(checks["challenge_solver"]["ok"], true);
    assert!(checks.get("last_run").is_some());
}

fn big_norway_small(fake: &FakeSolver) {
    let u = urls();
    fake.add_json(
        u.country_page("NO", 0),
        &country_json(&[(1, "A", "Black Metal", "Oslo")], 1),
    );
}
