//! The daemon plans with the offline gazetteer's place names it loads at start (issue 13),
//! handed to its scans rather than kept process-wide: `Tukums, Riga` is two places of one
//! step, where a scan without names reads `Riga` as Tukums' region.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::band;
use bandmap_enqueue::{Periods, run_with};
use bandmap_test_support::TestDb;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn europe() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("BANDMAP_REQUIRE_GAZETTEER").is_none(),
        "{} is absent but BANDMAP_REQUIRE_GAZETTEER is set",
        path.display()
    );
    eprintln!("SKIPPED: {} is absent", path.display());
    None
}

/// `(parsed_step, location_raw)` of the band's rows, in order.
async fn rows(pool: &sqlx::PgPool, ma_id: i64) -> Vec<(i32, String)> {
    sqlx::query_as(
        "SELECT parsed_step, location_raw FROM band_locations WHERE ma_id = $1
         ORDER BY parsed_step, location_raw",
    )
    .bind(ma_id)
    .fetch_all(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn the_daemon_plans_with_the_gazetteer_it_loaded() {
    let Some(gazetteer) = europe() else {
        return;
    };
    let db = TestDb::new().await;
    let p = &db.pool;
    band(p, 1, Some("Latvia"), Some("LV"), Some("Tukums, Riga")).await;
    let vars = HashMap::from([
        ("DATABASE_URL".to_string(), db.url.clone()),
        ("GEOCODER_OFFLINE".to_string(), "on".to_string()),
        (
            "GAZETTEER_PATH".to_string(),
            gazetteer.display().to_string(),
        ),
    ]);
    let config = Arc::new(bandmap_config::Config::from_map(&vars).unwrap());
    let shutdown = CancellationToken::new();
    let periods = Periods {
        poll: Duration::from_millis(100),
        auto: Duration::from_secs(3600),
    };
    let daemon = tokio::spawn(run_with(p.clone(), config, shutdown.clone(), periods));
    // The start scan runs once the gazetteer is loaded; wait (bounded) for its rows.
    let mut planned = Vec::new();
    for _ in 0..600 {
        planned = rows(p, 1).await;
        if !planned.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    shutdown.cancel();
    tokio::time::timeout(Duration::from_secs(30), daemon)
        .await
        .expect("the daemon stops on shutdown")
        .unwrap()
        .unwrap();
    assert_eq!(
        planned,
        vec![(0, "Riga".to_string()), (0, "Tukums".to_string())],
        "two places of one step"
    );
}
