//! Issue 18: a worker's token is checked on every exit. An LLM lease that expired while its
//! call ran cannot write over the row once another worker re-claimed it, and a geocoder row
//! that keeps crashing its worker (stuck in `processing`) counts an attempt at each
//! self-repair and finally stops in `error` instead of being repaired forever.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::band_locations::done::{self, DoneBy, DoneFields};
use bandmap_db::band_locations::exits::MAX_ATTEMPTS;
use bandmap_db::band_locations::{GeocodeStatus, llm, upkeep};
use bandmap_test_support::TestDb;
use sqlx::PgPool;
use std::time::Duration;

async fn row(pool: &PgPool, status: GeocodeStatus) -> i64 {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code) VALUES (1, 'B', 'Norway', 'NO')",
    )
    .execute(pool)
    .await
    .unwrap();
    sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, city,
                                     country, country_code, geocode_status, next_attempt_at)
         VALUES (1, 0, 0, 'Bergen', 'Bergen', 'Norway', 'NO', $1, now() - interval '1 second')
         RETURNING id",
    )
    .bind(status)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// The lease ran out (its 15 minutes passed while the call hung).
async fn expire_lease(pool: &PgPool, id: i64) {
    sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now() - interval '1 second' WHERE id = $1",
    )
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
}

async fn status_of(pool: &PgPool, id: i64) -> (GeocodeStatus, i32, Option<String>) {
    sqlx::query_as("SELECT geocode_status, attempts, error FROM band_locations WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}

fn fields(provider: &str) -> DoneFields {
    DoneFields {
        lat: 60.39,
        lon: 5.32,
        provider: provider.into(),
        confidence: Some(0.9),
        granularity: Some("city".into()),
        query: None,
    }
}

#[tokio::test]
async fn an_expired_llm_lease_cannot_write_over_the_worker_that_reclaimed_the_row() {
    let db = TestDb::new().await;
    let id = row(&db.pool, GeocodeStatus::LlmNeeded).await;
    let first = llm::claim(&db.pool).await.unwrap().unwrap().lease();
    assert!(
        llm::claim(&db.pool).await.unwrap().is_none(),
        "hidden while leased"
    );
    expire_lease(&db.pool, id).await;
    let second = llm::claim(&db.pool).await.unwrap().unwrap().lease();
    assert_eq!(first.id(), second.id());
    assert_ne!(
        first.token(),
        second.token(),
        "each claim draws a new token"
    );

    // Every exit of the first worker is refused and changes nothing.
    let before: (GeocodeStatus, i32, Option<String>) = status_of(&db.pool, id).await;
    assert!(!llm::mark_retry(&db.pool, &first, "late").await.unwrap());
    assert!(
        !llm::mark_manual(&db.pool, &first, "late", None)
            .await
            .unwrap()
    );
    assert!(!llm::mark_error(&db.pool, &first, "late").await.unwrap());
    assert!(
        !llm::postpone(&db.pool, &first, Duration::from_secs(60), "late")
            .await
            .unwrap()
    );
    let late = done::mark_done(&db.pool, DoneBy::Llm(&first), &fields("late"))
        .await
        .unwrap();
    assert_eq!(late, None);
    assert_eq!(status_of(&db.pool, id).await, before);

    // The second worker's result is written, once.
    let written = done::mark_done(&db.pool, DoneBy::Llm(&second), &fields("llm+test"))
        .await
        .unwrap();
    assert_eq!(written, Some(1));
    let provider: String = sqlx::query_scalar("SELECT provider FROM band_locations WHERE id = $1")
        .bind(id)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(provider, "llm+test");
}

#[tokio::test]
async fn a_lease_is_good_for_one_exit() {
    let db = TestDb::new().await;
    let id = row(&db.pool, GeocodeStatus::LlmNeeded).await;
    let lease = llm::claim(&db.pool).await.unwrap().unwrap().lease();
    assert!(llm::mark_retry(&db.pool, &lease, "timeout").await.unwrap());
    expire_lease(&db.pool, id).await;
    // The row is due again but nobody claimed it: the spent lease still cannot write.
    assert!(!llm::mark_retry(&db.pool, &lease, "again").await.unwrap());
    assert_eq!(status_of(&db.pool, id).await.1, 1, "one attempt counted");
}

#[tokio::test]
async fn a_row_that_keeps_crashing_the_geocoder_counts_attempts_and_stops_in_error() {
    let db = TestDb::new().await;
    let id = row(&db.pool, GeocodeStatus::Pending).await;
    for n in 1..=MAX_ATTEMPTS {
        // Claimed, then the process died mid-row: the claim is left behind.
        sqlx::query(
            "UPDATE band_locations SET geocode_status = 'processing',
                 claimed_at = now() - interval '1 hour' WHERE id = $1",
        )
        .bind(id)
        .execute(&db.pool)
        .await
        .unwrap();
        let repaired = upkeep::repair_stuck(&db.pool, Duration::from_secs(600))
            .await
            .unwrap();
        assert_eq!(repaired, 1);
        let (status, attempts, error) = status_of(&db.pool, id).await;
        assert_eq!(attempts, n, "each crash counts an attempt");
        assert_eq!(error.as_deref(), Some(upkeep::STUCK_ERROR));
        let expected = if n < MAX_ATTEMPTS {
            GeocodeStatus::Pending
        } else {
            GeocodeStatus::Error
        };
        assert_eq!(status, expected, "after crash {n}");
    }
}
