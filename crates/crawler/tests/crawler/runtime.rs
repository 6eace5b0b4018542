//! The crawler on the one service runtime: a panic in a unit of work (a scheduler step)
//! is caught and logged, and the next step runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_crawler::{Scheduled, Steps};
use bandmap_db::runs::JobType;
use bandmap_db::triggers;
use bandmap_runtime::testing::{INJECTED, PanicFirst, capture};
use bandmap_runtime::{Pace, Service, drive};
use bandmap_test_support::TestDb;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_panicking_step_is_caught_logged_and_the_next_step_runs() {
    let (_guard, logs) = capture();
    let db = TestDb::new().await;
    let (crawler, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let trigger = triggers::create(&db.pool, JobType::Enrich, Some("admin"))
        .await
        .unwrap();
    let shutdown = CancellationToken::new();
    let steps = Steps(Scheduled::new(Arc::new(crawler)));
    let mut unit = PanicFirst::new(steps, 1, shutdown.clone());
    let pace = Pace::finishing(Duration::from_millis(1));
    drive(Service::Crawler, pace, &shutdown, &mut unit).await;

    assert_eq!(
        unit.units_after_panic(),
        1,
        "the loop went on after the panic"
    );
    let (status, error) = status_and_error(&db.pool, "job_triggers", trigger).await;
    assert_eq!(
        (status.as_str(), error),
        ("done", None),
        "the next step ran"
    );
    let panicked = logs.lines_with(&["unit of work panicked", "crawler", INJECTED]);
    assert_eq!(panicked.len(), 1, "logged once: {}", logs.text());
}
