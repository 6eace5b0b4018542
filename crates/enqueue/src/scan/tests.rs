//! A scan stopped by a shutdown ends `interrupted` (issue 19 point 8).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::run_scan;
use bandmap_db::bands::upsert::{BandInput, upsert_bands};
use bandmap_db::runs::RunStatus;
use bandmap_test_support::TestDb;

#[tokio::test]
async fn a_scan_ended_by_shutdown_is_interrupted_saying_so() {
    let db = TestDb::new().await;
    let p = &db.pool;
    // Written through `db`, the one writer of `bands` (issue 26).
    upsert_bands(
        p,
        &[BandInput {
            ma_id: 1,
            name: "Band 1".into(),
            country: Some("Norway".into()),
            country_code: Some("NO".into()),
            location_text: Some("Oslo".into()),
            ..Default::default()
        }],
    )
    .await
    .unwrap();
    let shutdown = tokio_util::sync::CancellationToken::new();
    shutdown.cancel();
    let report = run_scan(p, None, None, Some(&shutdown), None)
        .await
        .unwrap();
    assert!(report.stopped_early);
    let (status, error): (RunStatus, Option<String>) =
        sqlx::query_as("SELECT status, error FROM crawl_run WHERE id = $1")
            .bind(report.run_id)
            .fetch_one(p)
            .await
            .unwrap();
    assert_eq!(status, RunStatus::Interrupted);
    assert!(error.unwrap().contains("shutdown"));
}
