//! `bandmap_llm::run` / `run_with_geocoder` end to end: configuration → real geocoder
//! adapter → fake LLM API.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_fakes::llm::FakeLlm;
use bandmap_test_support::TestDb;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The binary spawns `run` on a multi-threaded runtime: its future must be `Send`.
#[allow(dead_code)]
fn run_future_is_send(pool: sqlx::PgPool, config: Arc<bandmap_config::Config>) {
    fn is_send<T: Send>(_: &T) {}
    let f = bandmap_llm::run(pool.clone(), config.clone(), CancellationToken::new());
    is_send(&f);
    let g = async move {
        let geocoder = bandmap_geocode::Geocoder::new(pool.clone(), &config.geocoder)
            .await
            .unwrap();
        bandmap_llm::run_with_geocoder(pool, config, geocoder, CancellationToken::new()).await
    };
    is_send(&g);
}

#[tokio::test]
async fn run_with_a_shared_geocoder_without_provider_sends_the_row_to_manual_and_stops() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer(json!({"city": "Kolbotn", "region": null, "country": "Norway", "confidence": 0.9}));
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    let vars: HashMap<String, String> = [
        ("DATABASE_URL", db.url.as_str()),
        ("LLM_BASE_URL", llm.url().as_str()),
        ("LLM_API_KEY", "gsk_test"),
        // No gazetteer, no provider: the geocoder cannot answer the LLM's city at all, so
        // the row waits for an admin (manual) instead of looping in llm_needed.
        ("GEOCODER_PROVIDER", "none"),
        ("GEOCODER_OFFLINE", "off"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = Arc::new(bandmap_config::Config::from_map(&vars).unwrap());
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    // The geocoder the caller shares (as `bandmap all` passes the geocoding worker's).
    let geocoder = bandmap_geocode::Geocoder::new(db.pool.clone(), &config.geocoder)
        .await
        .unwrap();
    let task = tokio::spawn(bandmap_llm::run_with_geocoder(
        db.pool.clone(),
        config,
        geocoder,
        shutdown,
    ));
    let mut state = row(&db.pool, id).await;
    for _ in 0..400 {
        if state.geocode_status != "llm_needed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
        state = row(&db.pool, id).await;
    }
    trigger.cancel();
    task.await.unwrap().unwrap();
    assert_eq!(llm.count(), 1);
    assert_eq!(state.geocode_status, "manual");
    assert_eq!(
        state.attempts, 3,
        "no attempt spent: nothing failed transiently"
    );
    let error = state.error.unwrap();
    assert!(error.contains("GEOCODER_PROVIDER=none"), "{error}");
    assert!(error.contains("Kolbotn"), "{error}");
    let checks: serde_json::Value =
        sqlx::query_scalar("SELECT checks FROM service_health WHERE service = 'llm'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(checks["api_key"]["ok"], true, "{checks}");
    assert_eq!(checks["api"]["ok"], true, "{checks}");
    assert_eq!(checks["database"]["ok"], true, "{checks}");
}
