//! Trigger polling, the daemon loop (start scan, recovery, heartbeat, clean shutdown) and
//! the set-based primary point sync, against a real PostgreSQL database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{band, log_lines, run_record};
use bandmap_db::band_locations::primary::{sync_primary_point, sync_primary_points};
use bandmap_db::runs;
use bandmap_db::runs::JobType;
use bandmap_db::triggers;
use bandmap_enqueue::{Periods, poll_once, run, run_once, run_with};
use bandmap_test_support::TestDb;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

async fn trigger(pool: &sqlx::PgPool, id: i64) -> (String, Option<i64>, Option<String>) {
    sqlx::query_as("SELECT status, run_id, error FROM job_triggers WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_pending_enqueue_trigger_is_claimed_and_ends_done_with_its_run() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 1, Some("Norway"), Some("NO"), Some("Oslo")).await;
    let crawl = triggers::create(p, JobType::Incremental, Some("admin"))
        .await
        .unwrap();
    let enq = triggers::create(p, JobType::GeocoderEnqueue, Some("admin"))
        .await
        .unwrap();

    let report = poll_once(p)
        .await
        .unwrap()
        .expect("the enqueue trigger is claimed");
    assert_eq!(report.created, 1);
    assert_eq!(
        trigger(p, enq).await,
        ("done".into(), Some(report.run_id), None)
    );
    let (status, _, _, kind) = run_record(p, report.run_id).await;
    assert_eq!(
        (status.as_str(), kind.as_str()),
        ("success", "geocoder_enqueue")
    );
    let trigger_of_run: Option<i64> =
        sqlx::query_scalar("SELECT trigger_id FROM crawl_run WHERE id = $1")
            .bind(report.run_id)
            .fetch_one(p)
            .await
            .unwrap();
    assert_eq!(trigger_of_run, Some(enq));
    assert!(
        log_lines(p, report.run_id).await[0]
            .1
            .contains(&format!("manual, trigger {enq}"))
    );

    // The crawler's trigger is not the enqueue daemon's business.
    assert!(poll_once(p).await.unwrap().is_none());
    assert_eq!(trigger(p, crawl).await, ("pending".into(), None, None));
}

#[tokio::test]
async fn a_scan_that_cannot_continue_ends_its_run_and_trigger_in_error() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 1, Some("Norway"), Some("NO"), Some("Oslo")).await;
    let enq = triggers::create(p, JobType::GeocoderEnqueue, None)
        .await
        .unwrap();
    // Reading the bands is impossible: the job itself cannot go on.
    sqlx::query("ALTER TABLE bands RENAME COLUMN location_text TO location_gone")
        .execute(p)
        .await
        .unwrap();
    let err = poll_once(p).await.unwrap_err();
    assert!(err.to_string().contains("location_text"), "{err}");
    let (status, run_id, error) = trigger(p, enq).await;
    assert_eq!(status, "error");
    let (run_status, _, run_error, _) = run_record(p, run_id.unwrap()).await;
    assert_eq!(run_status, "error");
    assert!(run_error.unwrap().contains("location_text"));
    assert!(error.unwrap().contains("location_text"));
}

fn config(db: &TestDb) -> Arc<bandmap_config::Config> {
    let vars = HashMap::from([("DATABASE_URL".to_string(), db.url.clone())]);
    Arc::new(bandmap_config::Config::from_map(&vars).unwrap())
}

/// Waits (bounded) for a condition the daemon brings about on its own schedule.
async fn eventually(pool: &sqlx::PgPool, sql: &str) {
    for _ in 0..200 {
        let ok: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_one(pool)
            .await
            .unwrap();
        if ok {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("condition never held: {sql}");
}

#[tokio::test]
async fn the_daemon_recovers_scans_at_start_beats_and_stops_on_shutdown() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 1, Some("Norway"), Some("NO"), Some("Oslo")).await;
    let stale: i64 = sqlx::query_scalar(
        "INSERT INTO crawl_run (type, status) VALUES ('geocoder_enqueue', 'running') RETURNING id",
    )
    .fetch_one(p)
    .await
    .unwrap();
    let crawler_run: i64 = sqlx::query_scalar(
        "INSERT INTO crawl_run (type, status) VALUES ('incremental', 'running') RETURNING id",
    )
    .fetch_one(p)
    .await
    .unwrap();
    // A scan of a live replica: its owner's lock is held (on a connection of its own).
    let mut replica = p.acquire().await.unwrap().detach();
    assert!(runs::try_lock_owner(&mut replica, 4242).await.unwrap());
    let live: i64 = sqlx::query_scalar(
        "INSERT INTO crawl_run (type, status, owner, owner_lock)
         VALUES ('geocoder_enqueue', 'running', 'enqueue elsewhere', 4242) RETURNING id",
    )
    .fetch_one(p)
    .await
    .unwrap();

    let shutdown = CancellationToken::new();
    let fire = shutdown.clone();
    let daemon = tokio::spawn(run(p.clone(), config(&db), shutdown));

    eventually(
        p,
        "SELECT EXISTS (SELECT 1 FROM band_locations WHERE ma_id = 1)",
    )
    .await;
    eventually(
        p,
        "SELECT EXISTS (SELECT 1 FROM service_health WHERE service = 'enqueue'
                        AND checks ? 'database' AND checks ? 'last_scan')",
    )
    .await;
    assert_eq!(run_record(p, stale).await.0, "interrupted");
    assert_eq!(
        run_record(p, crawler_run).await.0,
        "running",
        "not ours to close"
    );
    assert_eq!(
        run_record(p, live).await.0,
        "running",
        "a live replica's scan"
    );
    // This instance's own scans record it as their owner.
    eventually(
        p,
        "SELECT EXISTS (SELECT 1 FROM crawl_run WHERE type = 'geocoder_enqueue'
                        AND owner LIKE 'enqueue pid %' AND owner_lock IS NOT NULL)",
    )
    .await;
    sqlx::query("UPDATE crawl_run SET status = 'success' WHERE id = $1")
        .bind(live)
        .execute(p)
        .await
        .unwrap();
    drop(replica);

    fire.cancel();
    tokio::time::timeout(Duration::from_secs(30), daemon)
        .await
        .expect("the daemon stops on shutdown")
        .unwrap()
        .unwrap();
    let running: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM crawl_run WHERE type = 'geocoder_enqueue' AND status = 'running'",
    )
    .fetch_one(p)
    .await
    .unwrap();
    assert_eq!(running, 0, "no enqueue run left running");
}

#[tokio::test]
async fn a_cancel_request_is_honoured_and_recorded() {
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 1, Some("Norway"), Some("NO"), Some("Oslo")).await;
    // Every run opened from now on is already asked to cancel (as if the admin were fast).
    sqlx::raw_sql(
        "CREATE FUNCTION cancel_at_once() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN NEW.cancel_requested := TRUE; RETURN NEW; END $$;
         CREATE TRIGGER cancel_at_once BEFORE INSERT ON crawl_run
             FOR EACH ROW EXECUTE FUNCTION cancel_at_once();",
    )
    .execute(p)
    .await
    .unwrap();
    let r = run_once(p, None).await.unwrap();
    assert!(r.stopped_early);
    assert_eq!(r.created, 0);
    assert_eq!(run_record(p, r.run_id).await.0, "cancelled");
}

#[tokio::test]
async fn batch_primary_sync_follows_rule_19() {
    let db = TestDb::new().await;
    let p = &db.pool;
    for id in [1, 2, 3, 4, 5] {
        band(p, id, Some("Norway"), Some("NO"), Some("x")).await;
    }
    // Band 1: later step done first by id, origin step done → origin wins.
    // Band 2: a manual override (-1) of a later step never beats the origin (issue 19
    // point 3); an override of an origin row does (band 4). Band 3: nothing located →
    // cleared. Band 5: only a later step located → no point.
    sqlx::raw_sql(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, geocode_status, lat, lon) VALUES
           (1, 1, 1, 'Later', 'done', 10, 10),
           (1, 0, 0, 'Origin', 'done', 20, 20),
           (1, 0, 0, 'Origin2', 'done', 25, 25),
           (2, 0, 0, 'Origin', 'done', 30, 30),
           (2, -1, 1, 'Manual', 'done', 40, 40),
           (3, 0, 0, 'Pending', 'pending', NULL, NULL),
           (4, 0, 0, 'Origin', 'done', 50, 50),
           (4, -1, 0, 'Fixed', 'done', 55, 55),
           (5, 0, 0, 'Unlocated', 'error', NULL, NULL),
           (5, 1, 1, 'Later', 'done', 60, 60);
         UPDATE bands SET lat = 1, lon = 1 WHERE ma_id = 3;",
    )
    .execute(p)
    .await
    .unwrap();
    let mut conn = p.acquire().await.unwrap();
    let changed = sync_primary_points(&mut conn, &[1, 2, 3, 3, 4, 5])
        .await
        .unwrap();
    assert_eq!(changed, 4);
    let points: Vec<(i64, Option<f64>)> =
        sqlx::query_as("SELECT ma_id, lat FROM bands ORDER BY ma_id")
            .fetch_all(p)
            .await
            .unwrap();
    assert_eq!(
        points,
        [
            (1, Some(20.0)),
            (2, Some(30.0)),
            (3, None),
            (4, Some(55.0)),
            (5, None)
        ]
    );
    // Same answer as the one-band function, and nothing left to change.
    for id in [1, 2, 3, 4, 5] {
        sync_primary_point(&mut conn, id).await.unwrap();
    }
    assert_eq!(
        sync_primary_points(&mut conn, &[1, 2, 3, 4, 5])
            .await
            .unwrap(),
        0
    );
    assert_eq!(sync_primary_points(&mut conn, &[]).await.unwrap(), 0);
}

/// Number of finished runs of the daemon: (automatic, manual) geocoder_enqueue runs.
async fn runs_by_origin(pool: &sqlx::PgPool) -> (i64, i64) {
    sqlx::query_as(
        "SELECT count(*) FILTER (WHERE trigger_id IS NULL), count(*) FILTER (WHERE trigger_id IS NOT NULL)
         FROM crawl_run WHERE type = 'geocoder_enqueue' AND status = 'success'",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn stop(fire: CancellationToken, daemon: tokio::task::JoinHandle<anyhow::Result<()>>) {
    fire.cancel();
    tokio::time::timeout(Duration::from_secs(30), daemon)
        .await
        .expect("the daemon stops on shutdown")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn the_loop_claims_a_trigger_created_while_it_runs() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let shutdown = CancellationToken::new();
    let fire = shutdown.clone();
    // Polls every 100 ms; the automatic scan only at start (the next one is an hour away),
    // so the second run can only come from the trigger.
    let periods = Periods {
        poll: Duration::from_millis(100),
        auto: Duration::from_secs(3600),
    };
    let daemon = tokio::spawn(run_with(p.clone(), config(&db), shutdown, periods));
    eventually(
        p,
        "SELECT EXISTS (SELECT 1 FROM crawl_run WHERE type = 'geocoder_enqueue'
                        AND trigger_id IS NULL AND status = 'success')",
    )
    .await;

    band(p, 1, Some("Norway"), Some("NO"), Some("Oslo")).await;
    let enq = triggers::create(p, JobType::GeocoderEnqueue, Some("admin"))
        .await
        .unwrap();
    eventually(
        p,
        &format!("SELECT status = 'done' FROM job_triggers WHERE id = {enq}"),
    )
    .await;
    let (status, run_id, error) = trigger(p, enq).await;
    assert_eq!((status.as_str(), error), ("done", None));
    let run_id = run_id.expect("the trigger names its run");
    let (run_status, stats, _, kind) = run_record(p, run_id).await;
    assert_eq!(
        (
            run_status.as_str(),
            kind.as_str(),
            stats["created"].as_u64()
        ),
        ("success", "geocoder_enqueue", Some(1))
    );
    assert!(
        log_lines(p, run_id).await[0]
            .1
            .contains(&format!("manual, trigger {enq}"))
    );
    assert_eq!(runs_by_origin(p).await, (1, 1));
    stop(fire, daemon).await;
}

#[tokio::test]
async fn the_loop_scans_again_when_the_automatic_interval_has_passed() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let shutdown = CancellationToken::new();
    let fire = shutdown.clone();
    // No trigger exists, so every run is an automatic one.
    let periods = Periods {
        poll: Duration::from_millis(100),
        auto: Duration::from_millis(300),
    };
    let daemon = tokio::spawn(run_with(p.clone(), config(&db), shutdown, periods));
    eventually(
        p,
        "SELECT EXISTS (SELECT 1 FROM crawl_run WHERE type = 'geocoder_enqueue'
                        AND status = 'success')",
    )
    .await;
    // A band that appears after the start scan is queued by a later automatic scan.
    band(p, 2, Some("Sweden"), Some("SE"), Some("Umeå")).await;
    eventually(
        p,
        "SELECT EXISTS (SELECT 1 FROM band_locations WHERE ma_id = 2)",
    )
    .await;
    // Each band's rows commit on their own, before the run records its end: wait for the
    // scan that created the row to finish, or `stop` may interrupt it first.
    eventually(
        p,
        "SELECT EXISTS (SELECT 1 FROM crawl_run WHERE type = 'geocoder_enqueue'
                        AND trigger_id IS NULL AND status = 'success'
                        AND (stats->>'created')::int = 1)",
    )
    .await;
    stop(fire, daemon).await;

    let (automatic, manual) = runs_by_origin(p).await;
    assert!(automatic >= 2, "{automatic} automatic scans");
    assert_eq!(manual, 0);
    let creator: (i64,) = sqlx::query_as(
        "SELECT count(*) FROM crawl_run WHERE type = 'geocoder_enqueue' AND trigger_id IS NULL
           AND (stats->>'created')::int = 1",
    )
    .fetch_one(p)
    .await
    .unwrap();
    assert_eq!(
        creator.0, 1,
        "exactly one automatic scan created the band's row"
    );
}
