//! The enqueue daemon on the one service runtime: a panic in a unit of work (a poll) is
//! caught and logged, and the next poll runs its scan.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_db::Service;
use bandmap_db::run_owner::Instance;
use bandmap_enqueue::{Periods, Poll};
use bandmap_runtime::testing::{INJECTED, PanicFirst, capture};
use bandmap_runtime::{Pace, drive};
use bandmap_test_support::TestDb;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_panicking_poll_is_caught_logged_and_the_next_poll_scans() {
    let (_guard, logs) = capture();
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 1, Some("Norway"), Some("NO"), Some("Oslo")).await;
    let shutdown = CancellationToken::new();
    let periods = Periods {
        poll: Duration::from_millis(1),
        auto: Duration::from_secs(3600),
    };
    let instance = Arc::new(Instance::new(Service::Enqueue));
    let poll = Poll::new(p.clone(), instance.clone(), periods, shutdown.clone());
    let mut unit = PanicFirst::new(poll, 1, shutdown.clone());
    drive(
        Service::Enqueue,
        Pace::finishing(periods.poll),
        &shutdown,
        &mut unit,
    )
    .await;
    instance.release().await;

    assert_eq!(
        unit.units_after_panic(),
        1,
        "the loop went on after the panic"
    );
    assert_eq!(rows(p, 1).await.len(), 1, "the next poll scanned the band");
    let panicked = logs.lines_with(&["unit of work panicked", "enqueue", INJECTED]);
    assert_eq!(panicked.len(), 1, "logged once: {}", logs.text());
}
