//! Issue 29: re-queueing a hand-placed row gives it back to the pipeline without the
//! admin's point — no provider `manual`, confidence 1 or old coordinates left on a row the
//! pipeline is looking for again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::band_locations::manual_point::set_manual_point;
use bandmap_db::band_locations::requeue::{Bulk, bulk_requeue, requeue_one};
use bandmap_test_support::TestDb;
use sqlx::PgPool;

type Row = (
    String,
    i32,
    Option<f64>,
    Option<f64>,
    Option<String>,
    Option<f64>,
    Option<String>,
);

async fn row(pool: &PgPool, id: i64) -> Row {
    sqlx::query_as(
        "SELECT geocode_status, step_order, lat, lon, provider, confidence::float8, geocode_granularity
         FROM band_locations WHERE id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// A band with one place row located by a provider; returns the row's id.
async fn located_row(pool: &PgPool) -> i64 {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code) VALUES (1, 'B', 'Norway', 'NO')",
    )
    .execute(pool)
    .await
    .unwrap();
    sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, city, country,
                                     country_code, geocode_status, lat, lon, provider, confidence,
                                     geocode_granularity)
         VALUES (1, 0, 0, 'Bergen', 'Bergen', 'Norway', 'NO', 'done', 60.39, 5.32, 'gazetteer', 0.8, 'city')
         RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn place_by_hand(pool: &PgPool, id: i64) {
    let mut tx = pool.begin().await.unwrap();
    set_manual_point(
        &mut tx,
        id,
        bandmap_db::point::Point::new(59.9, 10.7).unwrap(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

async fn band_point(pool: &PgPool) -> (Option<f64>, Option<String>) {
    sqlx::query_as("SELECT lat, geocode_provider FROM bands WHERE ma_id = 1")
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn requeueing_a_hand_placed_row_clears_the_admins_point() {
    let db = TestDb::new().await;
    let id = located_row(&db.pool).await;
    place_by_hand(&db.pool, id).await;
    assert_eq!(row(&db.pool, id).await.4.as_deref(), Some("manual"));

    let mut tx = db.pool.begin().await.unwrap();
    assert!(requeue_one(&mut tx, id).await.unwrap());
    tx.commit().await.unwrap();
    assert_eq!(
        row(&db.pool, id).await,
        ("pending".to_string(), 0, None, None, None, None, None),
        "pending at its parsed step, nothing of the override left"
    );
    assert_eq!(
        band_point(&db.pool).await,
        (None, None),
        "the band has no point"
    );
}

#[tokio::test]
async fn requeueing_a_provider_row_keeps_its_point_until_the_pipeline_answers() {
    let db = TestDb::new().await;
    let id = located_row(&db.pool).await;
    let mut tx = db.pool.begin().await.unwrap();
    assert!(requeue_one(&mut tx, id).await.unwrap());
    tx.commit().await.unwrap();
    let r = row(&db.pool, id).await;
    assert_eq!(
        (r.0.as_str(), r.2, r.4.as_deref()),
        ("pending", Some(60.39), Some("gazetteer"))
    );
}

#[tokio::test]
async fn requeue_all_clears_an_override_too() {
    let db = TestDb::new().await;
    let id = located_row(&db.pool).await;
    place_by_hand(&db.pool, id).await;
    let mut tx = db.pool.begin().await.unwrap();
    bulk_requeue(&mut tx, Bulk::RequeueAll).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!(
        row(&db.pool, id).await,
        ("pending".to_string(), 0, None, None, None, None, None)
    );
}
