//! `bandmap_llm::run` end to end: configuration → real geocoder adapter → fake LLM API.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use bandmap_fakes::llm::FakeLlm;
use bandmap_test_support::TestDb;
use common::*;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// The binary spawns `run` on a multi-threaded runtime: its future must be `Send`.
#[allow(dead_code)]
fn run_future_is_send(pool: sqlx::PgPool, config: Arc<bandmap_config::Config>) {
    fn is_send<T: Send>(_: &T) {}
    let f = bandmap_llm::run(pool, config, bandmap_health::Shutdown::never());
    is_send(&f);
}

#[tokio::test]
async fn run_processes_a_row_through_the_real_geocoder_and_stops_on_shutdown() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer(json!({"city": "Kolbotn", "region": null, "country": "Norway", "confidence": 0.9}));
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    let vars: HashMap<String, String> = [
        ("DATABASE_URL", db.url.as_str()),
        ("LLM_BASE_URL", llm.url().as_str()),
        ("LLM_API_KEY", "gsk_test"),
        // No gazetteer, no provider: the geocoder cannot answer, so the row must wait.
        ("GEOCODER_PROVIDER", "none"),
        ("GEOCODER_OFFLINE", "off"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = Arc::new(bandmap_config::Config::from_map(&vars).unwrap());
    let (trigger, shutdown) = bandmap_health::shutdown_pair();
    let task = tokio::spawn(bandmap_llm::run(db.pool.clone(), config, shutdown));
    let mut state = row(&db.pool, id).await;
    for _ in 0..400 {
        if state.attempts > 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
        state = row(&db.pool, id).await;
    }
    trigger.fire();
    task.await.unwrap().unwrap();
    assert_eq!(llm.count(), 1);
    assert_eq!(state.geocode_status, "llm_needed");
    assert_eq!(state.attempts, 4);
    assert!(state.error.unwrap().contains("GEOCODER_PROVIDER=none"));
    let checks: serde_json::Value =
        sqlx::query_scalar("SELECT checks FROM service_health WHERE service = 'llm'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(checks["api_key"]["ok"], true, "{checks}");
    assert_eq!(checks["api"]["ok"], true, "{checks}");
    assert_eq!(checks["database"]["ok"], true, "{checks}");
}
