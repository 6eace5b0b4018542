//! The geocoder on the one service runtime: a panic in a unit of work (a batch) is caught
//! and logged, and the next batch runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_geocode::Batches;
use bandmap_runtime::testing::{INJECTED, PanicFirst, capture};
use bandmap_runtime::{Pace, Service, drive};
use bandmap_test_support::TestDb;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_panicking_batch_is_caught_logged_and_the_next_batch_runs() {
    let (_guard, logs) = capture();
    let db = TestDb::new().await;
    let fake = FakeGeoapify::start().await;
    let id = country_row(&db.pool, 1, "Norway", "NO").await;
    let shutdown = CancellationToken::new();
    let batches = Batches(worker(&db.pool, &config(&fake), None));
    let mut unit = PanicFirst::new(batches, 1, shutdown.clone());
    let pace = Pace::finishing(Duration::from_millis(1));
    drive(Service::Geocoder, pace, &shutdown, &mut unit).await;

    assert_eq!(
        unit.units_after_panic(),
        1,
        "the loop went on after the panic"
    );
    assert_eq!(
        state(&db.pool, id).await.geocode_status,
        "country_only",
        "the next batch resolved the row"
    );
    let panicked = logs.lines_with(&["unit of work panicked", "geocoder", INJECTED]);
    assert_eq!(panicked.len(), 1, "logged once: {}", logs.text());
}
