//! Heartbeats (rules 22–24): one row per service, overwritten; isolated probes; a failed
//! write is silent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::Service;
use bandmap_health::{Check, beat, database_check};
use bandmap_test_support::TestDb;
use serde_json::{Value, json};

async fn row(pool: &sqlx::PgPool, service: &str) -> (String, Value) {
    sqlx::query_as("SELECT state, checks FROM service_health WHERE service = $1")
        .bind(service)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_beat_writes_and_overwrites_one_row() {
    let db = TestDb::new().await;
    beat(
        &db.pool,
        Service::Geocoder,
        "local:1",
        vec![database_check(&db.pool)],
    )
    .await;
    let (state, checks) = row(&db.pool, "geocoder").await;
    assert_eq!(state, "ok");
    assert_eq!(checks["database"]["ok"], true);
    beat(
        &db.pool,
        Service::Geocoder,
        "local:1",
        vec![Check::new("key", async {
            Err::<Value, _>("GEOCODING_API_KEY missing".to_string())
        })],
    )
    .await;
    let (state, checks) = row(&db.pool, "geocoder").await;
    assert_eq!(state, "degraded");
    assert_eq!(checks["key"]["error"], "GEOCODING_API_KEY missing");
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM service_health")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(n, 1);
}

#[tokio::test]
async fn a_panicking_probe_is_a_failed_check_not_a_crash() {
    let db = TestDb::new().await;
    let boom = Check::new("boom", async {
        if std::hint::black_box(true) {
            panic!("probe exploded");
        }
        Ok(json!(null))
    });
    beat(
        &db.pool,
        Service::Crawler,
        "local:1",
        vec![boom, database_check(&db.pool)],
    )
    .await;
    let (state, checks) = row(&db.pool, "crawler").await;
    assert_eq!(state, "degraded");
    assert_eq!(checks["boom"]["ok"], false);
    assert_eq!(checks["database"]["ok"], true);
}

#[tokio::test]
async fn a_failed_write_is_silent() {
    let db = TestDb::new().await;
    db.pool.close().await;
    // Must return normally, without panicking.
    beat(&db.pool, Service::Llm, "local:1", vec![]).await;
}
