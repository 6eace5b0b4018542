//! Heartbeat of service `llm` and the no-key idle mode.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_fakes::llm::FakeLlm;
use bandmap_llm::service::{NO_KEY, checks, run_worker};
use bandmap_llm::{Outcome, Worker};
use bandmap_test_support::TestDb;
use serde_json::Value;
use sqlx::PgPool;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

async fn health(pool: &PgPool) -> Option<(String, Value)> {
    sqlx::query_as("SELECT state, checks FROM service_health WHERE service = 'llm'")
        .fetch_optional(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn without_a_key_the_worker_idles_and_the_heartbeat_says_why() {
    let db = TestDb::new().await;
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    let worker = Worker::new(db.pool.clone(), None, FakeResolver::default());
    assert_eq!(worker.run_once().await.unwrap(), Outcome::NoKey);
    assert_eq!(row(&db.pool, id).await.geocode_status, "llm_needed");
    assert_eq!(
        row(&db.pool, id).await.attempts,
        3,
        "nothing claimed or counted"
    );

    // The service loop writes its first heartbeat at start, then stops on shutdown.
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    let task = tokio::spawn(run_worker(
        db.pool.clone(),
        worker,
        bandmap_runtime::Heartbeat::new("local", Duration::from_secs(3600)),
        Duration::from_millis(50),
        shutdown,
    ));
    let mut beat = None;
    for _ in 0..200 {
        beat = health(&db.pool).await;
        if beat.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    trigger.cancel();
    task.await.unwrap().unwrap();
    let (state, checks) = beat.expect("heartbeat written at start");
    assert_eq!(state, "degraded");
    assert_eq!(checks["database"]["ok"], true);
    assert_eq!(checks["api_key"]["ok"], false);
    assert_eq!(checks["api_key"]["error"], NO_KEY);
    assert!(
        checks["api"]["error"]
            .as_str()
            .unwrap()
            .contains("LLM_API_KEY")
    );
    assert!(
        checks["progress"]["error"]
            .as_str()
            .unwrap()
            .contains("1 row(s) waiting")
    );
}

#[tokio::test]
async fn with_a_key_the_heartbeat_checks_the_api_and_progress() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    let r = rig(&db.pool, &llm);
    let client = r.worker.caller().map(|c| c.client().clone());
    bandmap_health::beat(
        &db.pool,
        bandmap_db::Service::Llm,
        &bandmap_health::instance_name("local"),
        checks(&db.pool, client.as_ref()),
    )
    .await;
    let (state, c) = health(&db.pool).await.unwrap();
    assert_eq!(state, "ok", "{c}");
    assert_eq!(c["api_key"]["detail"], "present");
    assert_eq!(c["api"]["detail"]["models"], 2);
    assert_eq!(c["progress"]["detail"]["due"], 0);
    assert_eq!(llm.model_lists(), 1);

    // A due row and no call in 6 h: progress fails.
    llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    bandmap_health::beat(
        &db.pool,
        bandmap_db::Service::Llm,
        &bandmap_health::instance_name("local"),
        checks(&db.pool, client.as_ref()),
    )
    .await;
    let (state, c) = health(&db.pool).await.unwrap();
    assert_eq!(state, "degraded");
    assert!(
        c["progress"]["error"]
            .as_str()
            .unwrap()
            .contains("no LLM call")
    );

    // Unreachable API: the probe fails, the service does not.
    drop(llm);
    bandmap_health::beat(
        &db.pool,
        bandmap_db::Service::Llm,
        &bandmap_health::instance_name("local"),
        checks(&db.pool, client.as_ref()),
    )
    .await;
    let (_, c) = health(&db.pool).await.unwrap();
    assert_eq!(c["api"]["ok"], false);
}
