//! The scheduler: triggers (rule 9), rule 1 at start and at the 03:00 tick, the automatic
//! incremental, automatic enrichment, start recovery (rule 7), shutdown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_crawler::{
    BatchHook, JobKind, JobOptions, ScheduleState, Step, TickOutcome, drive, execute, run_once,
    startup,
};
use bandmap_db::DbError;
use bandmap_db::bands::enrich::{EnrichPriority, claim_batch, record_failure};
use bandmap_db::checkpoints;
use bandmap_db::runs::{JobType, Owner, Run, RunStatus};
use bandmap_fakes::solver::FakeSolver;
use bandmap_test_support::TestDb;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn ran(o: &TickOutcome) -> Option<(JobKind, Option<i64>, &'static str)> {
    match o {
        TickOutcome::Ran { kind, trigger, run } => Some((*kind, *trigger, run.status.as_str())),
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
    let geo = bandmap_db::triggers::create(&db.pool, JobType::GeocoderEnqueue, None)
        .await
        .unwrap();
    let bogus: i64 =
        sqlx::query_scalar("INSERT INTO job_triggers (job_type) VALUES ('bogus') RETURNING id")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    let inc = bandmap_db::triggers::create(&db.pool, JobType::Incremental, None)
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
    // Idle with a queue: automatic enrichment, 100 bands per run, until the queue is empty
    // (the demo's 308 bands: four runs).
    for _ in 0..4 {
        let o = run_once(&c, &mut state).await.unwrap();
        assert_eq!(ran(&o), Some((JobKind::Enrich, None, "success")));
    }
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
    let enrich = Run::start(&db.pool, JobType::Enrich, None, None)
        .await
        .unwrap()
        .id();
    let geo = Run::start(&db.pool, JobType::GeocoderEnqueue, None, None)
        .await
        .unwrap()
        .id();
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
    let killed = Run::start(&db.pool, JobType::FullCrawl, None, None)
        .await
        .unwrap()
        .id();
    let signal = CancellationToken::new();
    let trigger = signal.clone();
    let trigger = Arc::new(trigger);
    let fire = trigger.clone();
    let hook: BatchHook = Arc::new(move |_, _| {
        fire.cancel();
        Box::pin(async {})
    });
    let (c, _) = fake_crawler(&db.pool, &fake, "2026-11-22T02:00:00Z", signal);
    let c = Arc::new(c.with_batch_hook(hook));
    tokio::time::timeout(
        Duration::from_secs(60),
        bandmap_crawler::run_crawler(
            c,
            bandmap_runtime::Heartbeat::new("local", Duration::from_secs(3600)),
        ),
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
    // The full crawl started (no checkpoint) and was closed on shutdown: `interrupted`, as
    // `cancelled` is the admin's cancel (CONTRACT §3).
    let (status, err): (String, Option<String>) = sqlx::query_as(
        "SELECT status, error FROM crawl_run WHERE id <> $1 ORDER BY id DESC LIMIT 1",
    )
    .bind(killed)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(status, "interrupted");
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

async fn status_of(pool: &sqlx::PgPool, table: &str, id: i64) -> String {
    text(pool, &format!("SELECT status FROM {table} WHERE id = {id}"))
        .await
        .unwrap()
}

#[tokio::test]
async fn recovery_closes_runs_of_dead_instances_only_not_those_of_a_live_replica() {
    let db = TestDb::new().await;
    let (a, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let (b, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let owner_a = a.owner().await.unwrap().unwrap();
    let live = Run::start(&db.pool, JobType::FullCrawl, None, Some(&owner_a))
        .await
        .unwrap()
        .id();
    let ownerless = Run::start(&db.pool, JobType::Enrich, None, None)
        .await
        .unwrap()
        .id();
    // An owner whose lock nobody holds: an instance that died.
    let dead_owner = Owner {
        name: "crawler of a killed process".into(),
        lock: owner_a.lock.wrapping_add(1) & 0x7fff_ffff,
    };
    let dead = Run::start(&db.pool, JobType::Incremental, None, Some(&dead_owner))
        .await
        .unwrap()
        .id();
    assert_eq!(startup(&b).await.unwrap(), 2);
    assert_eq!(status_of(&db.pool, "crawl_run", live).await, "running");
    assert_eq!(
        status_of(&db.pool, "crawl_run", ownerless).await,
        "interrupted"
    );
    assert_eq!(status_of(&db.pool, "crawl_run", dead).await, "interrupted");
    // B's own runs are safe from A's recovery too.
    let owner_b = b.owner().await.unwrap().unwrap();
    assert_ne!(owner_a.lock, owner_b.lock);
    let b_run = execute(&b, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    let owned: Option<String> = sqlx::query_scalar("SELECT owner FROM crawl_run WHERE id = $1")
        .bind(b_run.run_id)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(owned, Some(owner_b.name.clone()));
    let b_running = Run::start(&db.pool, JobType::Enrich, None, Some(&owner_b))
        .await
        .unwrap()
        .id();
    assert_eq!(startup(&a).await.unwrap(), 0);
    assert_eq!(status_of(&db.pool, "crawl_run", b_running).await, "running");
    // A stops: its lock goes, and B's next recovery closes A's run.
    a.release_instance().await;
    assert_eq!(startup(&b).await.unwrap(), 1);
    assert_eq!(status_of(&db.pool, "crawl_run", live).await, "interrupted");
    assert_eq!(status_of(&db.pool, "crawl_run", b_running).await, "running");
}

#[tokio::test]
async fn shutdown_ends_a_triggered_run_interrupted_and_its_trigger_error() {
    let db = TestDb::new().await;
    let signal = CancellationToken::new();
    let trigger = signal.clone();
    let hook: BatchHook = Arc::new(move |_, _| {
        trigger.cancel();
        Box::pin(async {})
    });
    let mode = format!("recorded:{}", demo_dir().display());
    let cfg = config(&[("UPSTREAM_MODE", mode.as_str())]);
    let c = bandmap_crawler::Crawler::from_config(db.pool.clone(), &cfg, signal)
        .unwrap()
        .with_batch_hook(hook);
    let (t_id, run) = run_triggered_full_crawl(&c, &db.pool).await;
    assert_eq!(run.status, "interrupted");
    let (status, error) = status_and_error(&db.pool, "crawl_run", run.run_id).await;
    assert_eq!(status, "interrupted");
    assert!(error.unwrap().contains("shutting down"));
    let (status, error) = status_and_error(&db.pool, "job_triggers", t_id).await;
    assert_eq!(status, "error");
    assert!(error.unwrap().contains("shutting down"));
}

#[tokio::test]
async fn a_job_that_cannot_start_closes_its_trigger_error_and_the_full_check_stays_due() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T12:00:00Z");
    let mut state = ScheduleState::new(t("2026-11-22T12:00:00Z"), Duration::from_secs(3600));
    // No run can be opened.
    let block = "ALTER TABLE crawl_run ADD CONSTRAINT test_no_runs CHECK (false) NOT VALID";
    sqlx::query(block).execute(&db.pool).await.unwrap();
    let trigger = bandmap_db::triggers::create(&db.pool, JobType::Enrich, Some("admin"))
        .await
        .unwrap();
    assert!(run_once(&c, &mut state).await.is_err());
    let (status, error) = status_and_error(&db.pool, "job_triggers", trigger).await;
    assert_eq!(status, "error");
    assert!(error.unwrap().contains("test_no_runs"));
    // The rule-1 check (no checkpoint: due) fails to start its crawl and stays pending.
    assert!(run_once(&c, &mut state).await.is_err());
    assert!(state.full_check_due);
    sqlx::query("ALTER TABLE crawl_run DROP CONSTRAINT test_no_runs")
        .execute(&db.pool)
        .await
        .unwrap();
    let o = run_once(&c, &mut state).await.unwrap();
    assert_eq!(ran(&o), Some((JobKind::FullCrawl, None, "success")));
    assert!(!state.full_check_due);
}

/// A step that panics, then fails, then stops the loop.
struct Flaky {
    calls: u32,
    trigger: CancellationToken,
}

impl Step for Flaky {
    fn step(&mut self) -> impl Future<Output = Result<TickOutcome, DbError>> + Send {
        self.calls += 1;
        let calls = self.calls;
        if calls == 3 {
            self.trigger.cancel();
        }
        async move {
            match calls {
                1 => panic!("scheduler step panics"),
                2 => Err(DbError::Sqlx(sqlx::Error::PoolTimedOut)),
                _ => Ok(TickOutcome::Idle),
            }
        }
    }
}

#[tokio::test]
async fn the_service_loop_survives_a_panicking_and_a_failing_step() {
    let signal = CancellationToken::new();
    let trigger = signal.clone();
    let mut step = Flaky { calls: 0, trigger };
    drive(signal, Duration::from_millis(1), &mut step).await;
    assert_eq!(
        step.calls, 3,
        "the loop went on after the panic and the error"
    );
}

#[tokio::test]
async fn heartbeat_last_run_check_fails_when_the_last_finished_run_is_old() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let last_run = |c: &bandmap_crawler::Crawler| {
        let checks = bandmap_crawler::heartbeat::checks(c);
        async move { bandmap_health::evaluate(checks).await.1["last_run"].clone() }
    };
    assert_eq!(last_run(&c).await["ok"], false, "no run yet");
    let old = Run::start(&db.pool, JobType::Enrich, None, None)
        .await
        .unwrap()
        .id();
    sqlx::query(
        "UPDATE crawl_run SET status = 'success', finished_at = now() - interval '13 hours' WHERE id = $1",
    )
    .bind(old)
    .execute(&db.pool)
    .await
    .unwrap();
    let check = last_run(&c).await;
    assert_eq!(check["ok"], false, "{check}");
    assert!(check["error"].as_str().unwrap().contains("old"), "{check}");
    let fresh = Run::start(&db.pool, JobType::Incremental, None, None)
        .await
        .unwrap();
    fresh
        .finish(RunStatus::Success, &serde_json::json!({}), None)
        .await
        .unwrap();
    assert_eq!(last_run(&c).await["ok"], true);
}

#[tokio::test]
async fn claim_batch_takes_bands_by_priority_and_skips_backing_off_ones() {
    let db = TestDb::new().await;
    let p = &db.pool;
    for (id, name) in [
        (5, "Fresh"),
        (10, "New"),
        (20, "Changed"),
        (30, "Pending"),
        (40, "Failing"),
    ] {
        bandmap_db::bands::upsert::upsert_bands(
            p,
            &[bandmap_db::bands::upsert::BandInput {
                ma_id: id,
                name: name.into(),
                ..Default::default()
            }],
        )
        .await
        .unwrap();
    }
    for sql in [
        "UPDATE bands SET enriched = true, crawled_at = updated_at WHERE ma_id = 5",
        "UPDATE bands SET enriched = true, crawled_at = updated_at - interval '2 minutes' WHERE ma_id = 20",
        "UPDATE bands SET enriched = true, crawled_at = updated_at, enrich_pending = true WHERE ma_id IN (30, 40)",
    ] {
        sqlx::query(sql).execute(p).await.unwrap();
    }
    record_failure(p, 40, "page never parses").await.unwrap();
    let run = Run::start(p, JobType::Enrich, None, None)
        .await
        .unwrap()
        .id();
    let got: Vec<(i64, EnrichPriority)> = claim_batch(p, run, 10, &[])
        .await
        .unwrap()
        .into_iter()
        .map(|b| (b.ma_id, b.priority))
        .collect();
    assert_eq!(
        got,
        vec![
            (30, EnrichPriority::EnrichPending),
            (20, EnrichPriority::UpdatedSinceCrawl),
            (10, EnrichPriority::NeverEnriched),
        ]
    );
    // Another run gets nothing while these claims live; a limit takes the head.
    let other = Run::start(p, JobType::Enrich, None, None)
        .await
        .unwrap()
        .id();
    assert!(claim_batch(p, other, 10, &[]).await.unwrap().is_empty());
    bandmap_db::bands::enrich::release_claims(p, run)
        .await
        .unwrap();
    let head: Vec<i64> = claim_batch(p, other, 2, &[])
        .await
        .unwrap()
        .into_iter()
        .map(|b| b.ma_id)
        .collect();
    assert_eq!(head, vec![30, 20]);
}
