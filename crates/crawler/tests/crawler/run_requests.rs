//! Issue 29: a run's `client_requests` counts the requests that run made, not the running
//! total of the process's shared client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_crawler::{JobKind, JobOptions, execute};
use bandmap_test_support::TestDb;

#[tokio::test]
async fn each_run_records_its_own_upstream_request_count() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let full = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    let after_full = c.client().stats().requests;
    assert!(after_full > 0);
    assert_eq!(full.stats.json()["client_requests"], after_full);

    let incremental = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(incremental.status, "success", "{incremental:?}");
    let own = c.client().stats().requests - after_full;
    assert_eq!(own, 2, "created and modified lists, one page each");
    assert_eq!(
        incremental.stats.json()["client_requests"],
        own,
        "the incremental run counts its own two requests, not the process's {}",
        c.client().stats().requests
    );
    // What the Journal reads: the stored row says the same.
    let stored: Option<i64> = sqlx::query_scalar(
        "SELECT (stats->>'client_requests')::bigint FROM crawl_run WHERE id = $1",
    )
    .bind(incremental.run_id)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(stored, Some(2));
}
