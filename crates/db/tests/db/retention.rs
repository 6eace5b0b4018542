//! Issue 18, retention: the prune deletes rows older than each table's age, keeps the
//! younger ones, and works through a backlog larger than one batch.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::retention::{Ages, BATCH, prune};
use bandmap_test_support::TestDb;
use std::time::Duration;

const DAY: Duration = Duration::from_secs(24 * 3600);

#[tokio::test]
async fn rows_past_their_age_are_pruned_and_younger_ones_kept() {
    let db = TestDb::new().await;
    let p = &db.pool;
    // A backlog of old attempts larger than one batch, and a recent one.
    sqlx::query(
        "INSERT INTO admin_login_attempts (username, ip, at, success)
         SELECT 'u' || g, '203.0.113.7', now() - interval '40 days', false
         FROM generate_series(1, $1) g",
    )
    .bind(BATCH * 2 + 7)
    .execute(p)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO admin_login_attempts (username, ip, at, success)
         VALUES ('recent', '203.0.113.7', now() - interval '1 day', true)",
    )
    .execute(p)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO crawl_log (at, message) VALUES
             (now() - interval '100 days', 'old'), (now() - interval '10 days', 'young')",
    )
    .execute(p)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO admin_audit_log (at, username, action) VALUES
             (now() - interval '400 days', 'admin', 'old'),
             (now() - interval '300 days', 'admin', 'young')",
    )
    .execute(p)
    .await
    .unwrap();

    let ages = Ages {
        login_attempts: 30 * DAY,
        refused_logins: 7 * DAY,
        crawl_log: 90 * DAY,
        audit_log: 365 * DAY,
    };
    let pruned = prune(p, &ages).await.unwrap();
    assert_eq!(pruned.login_attempts, (BATCH * 2 + 7) as u64);
    assert_eq!(pruned.crawl_log, 1);
    assert_eq!(pruned.audit_log, 1);
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM admin_login_attempts")
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(left, 1);
    let kept: Vec<String> = sqlx::query_scalar("SELECT message FROM crawl_log")
        .fetch_all(p)
        .await
        .unwrap();
    assert_eq!(kept, ["young"]);
    let kept: Vec<String> = sqlx::query_scalar("SELECT action FROM admin_audit_log")
        .fetch_all(p)
        .await
        .unwrap();
    assert_eq!(kept, ["young"]);
    // Nothing left to do: a second prune deletes nothing.
    assert_eq!(prune(p, &ages).await.unwrap().total(), 0);
}

#[tokio::test]
async fn refused_attempts_are_kept_a_week_and_real_ones_a_month() {
    let db = TestDb::new().await;
    let p = &db.pool;
    sqlx::query(
        "INSERT INTO admin_login_attempts (username, ip, at, success, locked_out, attempts) VALUES
             ('', '203.0.113.7', now() - interval '10 days', false, true, 500),
             ('', '203.0.113.7', now() - interval '2 days', false, true, 40),
             ('guess', '203.0.113.7', now() - interval '10 days', false, false, 1)",
    )
    .execute(p)
    .await
    .unwrap();
    let ages = Ages {
        login_attempts: 30 * DAY,
        refused_logins: 7 * DAY,
        crawl_log: 90 * DAY,
        audit_log: 365 * DAY,
    };
    let pruned = prune(p, &ages).await.unwrap();
    assert_eq!(pruned.login_attempts, 1, "only the refused row past a week");
    let left: Vec<(bool, i32)> = sqlx::query_as(
        "SELECT locked_out, attempts FROM admin_login_attempts ORDER BY locked_out, attempts",
    )
    .fetch_all(p)
    .await
    .unwrap();
    assert_eq!(left, [(false, 1), (true, 40)]);
}
