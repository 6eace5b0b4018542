//! Runs, logs and job-trigger claiming against a real database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::runs::{self, JobType, Level, Run, RunStatus};
use bandmap_db::triggers::{self, CancelOutcome};
use bandmap_test_support::TestDb;
use serde_json::json;

#[tokio::test]
async fn claims_are_restricted_to_the_claimer_types_and_never_shared() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let enq = triggers::create(p, JobType::GeocoderEnqueue, None)
        .await
        .unwrap();
    let a = triggers::create(p, JobType::Enrich, None).await.unwrap();
    let b = triggers::create(p, JobType::Incremental, None)
        .await
        .unwrap();
    let crawler = [JobType::Enrich, JobType::Incremental, JobType::FullCrawl];
    let (x, y, z) = tokio::join!(
        triggers::claim(p, &crawler),
        triggers::claim(p, &crawler),
        triggers::claim(p, &crawler)
    );
    let mut got: Vec<i64> = [x, y, z]
        .into_iter()
        .filter_map(|c| c.unwrap().map(|c| c.id))
        .collect();
    got.sort();
    assert_eq!(got, vec![a, b]);
    let left = triggers::claim(p, &[JobType::GeocoderEnqueue])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(left.id, enq);
}

#[tokio::test]
async fn unknown_types_are_claimed_only_by_the_unknown_claim() {
    let db = TestDb::new().await;
    let p = &db.pool;
    triggers::create(p, JobType::GeocoderEnqueue, None)
        .await
        .unwrap();
    let weird: i64 =
        sqlx::query_scalar("INSERT INTO job_triggers (job_type) VALUES ('reindex') RETURNING id")
            .fetch_one(p)
            .await
            .unwrap();
    let c = triggers::claim_unknown(p).await.unwrap().unwrap();
    assert_eq!(c.id, weird);
    triggers::fail_if_claimed(p, c.id, "unknown job_type")
        .await
        .unwrap();
    assert!(triggers::claim_unknown(p).await.unwrap().is_none());
    let (status, error): (String, Option<String>) =
        sqlx::query_as("SELECT status, error FROM job_triggers WHERE id = $1")
            .bind(weird)
            .fetch_one(p)
            .await
            .unwrap();
    assert_eq!(
        (status.as_str(), error.as_deref()),
        ("error", Some("unknown job_type"))
    );
}

#[tokio::test]
async fn a_finished_run_closes_its_trigger() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let t = triggers::create(p, JobType::Enrich, Some("admin"))
        .await
        .unwrap();
    let claimed = triggers::claim(p, &[JobType::Enrich])
        .await
        .unwrap()
        .unwrap();
    let handle = Run::start(p, JobType::Enrich, Some(claimed.id), None)
        .await
        .unwrap();
    let run = handle.id();
    handle.log(Level::Info, "hello").await.unwrap();
    handle
        .finish(RunStatus::Cancelled, &json!({"seen": 3}), None)
        .await
        .unwrap();
    let (status, run_id): (String, Option<i64>) =
        sqlx::query_as("SELECT status, run_id FROM job_triggers WHERE id = $1")
            .bind(t)
            .fetch_one(p)
            .await
            .unwrap();
    assert_eq!((status.as_str(), run_id), ("done", Some(run)));
    let run_status: String = sqlx::query_scalar("SELECT status FROM crawl_run WHERE id = $1")
        .bind(run)
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(run_status, "cancelled");
}

#[tokio::test]
async fn recovery_and_cleanup_close_runs_as_interrupted() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let old = Run::start(p, JobType::FullCrawl, None, None)
        .await
        .unwrap()
        .id();
    let fresh_run = Run::start(p, JobType::GeocoderEnqueue, None, None)
        .await
        .unwrap();
    let fresh = fresh_run.id();
    // Stuck: started long ago and silent since (issue 19 point 1).
    sqlx::query(
        "UPDATE crawl_run SET started_at = now() - interval '2 hours',
             updated_at = now() - interval '2 hours' WHERE id = $1",
    )
    .bind(old)
    .execute(p)
    .await
    .unwrap();
    // Two claimed triggers without a run: one claimed long ago (its instance could not
    // open the run nor record the failure), one just now (its run is being opened).
    let lost = triggers::create(p, JobType::Incremental, None)
        .await
        .unwrap();
    let opening = triggers::create(p, JobType::Enrich, None).await.unwrap();
    sqlx::query(
        "UPDATE job_triggers SET status = 'claimed',
             claimed_at = CASE WHEN id = $1 THEN now() - interval '2 hours' ELSE now() END
         WHERE id IN ($1, $2)",
    )
    .bind(lost)
    .bind(opening)
    .execute(p)
    .await
    .unwrap();
    assert_eq!(
        runs::cleanup_stuck(p, "stuck for more than 30 minutes")
            .await
            .unwrap(),
        1
    );
    let trigger = |id: i64| {
        sqlx::query_as::<_, (String, Option<String>)>(
            "SELECT status, error FROM job_triggers WHERE id = $1",
        )
        .bind(id)
        .fetch_one(p)
    };
    assert_eq!(
        trigger(lost).await.unwrap(),
        (
            "error".into(),
            Some("stuck for more than 30 minutes".into())
        )
    );
    assert_eq!(trigger(opening).await.unwrap(), ("claimed".into(), None));
    let s: String = sqlx::query_scalar("SELECT status FROM crawl_run WHERE id = $1")
        .bind(old)
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(s, "interrupted");
    assert!(runs::still_running(p, fresh).await.unwrap());
    // Recovery only touches its own types (an ownerless run counts as orphaned).
    assert_eq!(
        runs::recover_orphaned(p, &[JobType::Enrich], "killed")
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        runs::recover_orphaned(p, &[JobType::GeocoderEnqueue], "killed")
            .await
            .unwrap(),
        1
    );
    // Finishing a run that was closed under it does not reopen it.
    fresh_run
        .finish(RunStatus::Success, &json!({}), None)
        .await
        .unwrap();
    let s: String = sqlx::query_scalar("SELECT status FROM crawl_run WHERE id = $1")
        .bind(fresh)
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(s, "interrupted");
}

/// Ages a run: started and last changed `age` ago, its log lines too.
async fn age_run(p: &sqlx::PgPool, id: i64, age: &str) {
    sqlx::query(
        "UPDATE crawl_run SET started_at = now() - $2::interval,
             updated_at = now() - $2::interval WHERE id = $1",
    )
    .bind(id)
    .bind(age)
    .execute(p)
    .await
    .unwrap();
    sqlx::query("UPDATE crawl_log SET at = now() - $2::interval WHERE run_id = $1")
        .bind(id)
        .bind(age)
        .execute(p)
        .await
        .unwrap();
}

#[tokio::test]
async fn cleanup_closes_only_runs_without_progress_nor_live_owner() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let start = |job| Run::start(p, job, None, None);
    // Long but still logging: survives.
    let logging = start(JobType::FullCrawl).await.unwrap();
    age_run(p, logging.id(), "3 hours").await;
    logging.log(Level::Info, "page 812").await.unwrap();
    // Long but its counters just moved: survives.
    let counting = start(JobType::Enrich).await.unwrap();
    age_run(p, counting.id(), "3 hours").await;
    counting.write_stats(&json!({"done": 5})).await.unwrap();
    // Silent, but its owner's lock is held by a live session: survives.
    let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    assert!(runs::try_lock_owner(&mut conn, 4242).await.unwrap());
    let owner = runs::Owner {
        name: "live".into(),
        lock: 4242,
    };
    let owned = Run::start(p, JobType::Incremental, None, Some(&owner))
        .await
        .unwrap();
    age_run(p, owned.id(), "3 hours").await;
    // Silent with a dead owner (lock held by nobody): closed.
    let dead = runs::Owner {
        name: "dead".into(),
        lock: 4343,
    };
    let silent = Run::start(p, JobType::GeocoderEnqueue, None, Some(&dead))
        .await
        .unwrap();
    silent.log(Level::Info, "scan started").await.unwrap();
    age_run(p, silent.id(), "45 minutes").await;
    assert_eq!(runs::cleanup_stuck(p, "stuck").await.unwrap(), 1);
    for alive in [logging.id(), counting.id(), owned.id()] {
        assert!(runs::still_running(p, alive).await.unwrap(), "run {alive}");
    }
    assert!(!runs::still_running(p, silent.id()).await.unwrap());
}

#[tokio::test]
async fn cancelling_triggers() {
    let db = TestDb::new().await;
    let p = &db.pool;
    let t = triggers::create(p, JobType::FullCrawl, None).await.unwrap();
    assert_eq!(
        triggers::cancel(p, t).await.unwrap(),
        CancelOutcome::Cancelled
    );
    assert_eq!(
        triggers::cancel(p, t).await.unwrap(),
        CancelOutcome::NotPending
    );
    assert_eq!(
        triggers::cancel(p, 999_999).await.unwrap(),
        CancelOutcome::NotFound
    );
}
