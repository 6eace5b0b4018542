//! Shared helpers of the enqueue integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use sqlx::PgPool;

/// Inserts a band.
pub async fn band(
    pool: &PgPool,
    ma_id: i64,
    country: Option<&str>,
    code: Option<&str>,
    location: Option<&str>,
) {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(ma_id)
    .bind(format!("Band {ma_id}"))
    .bind(country)
    .bind(code)
    .bind(location)
    .execute(pool)
    .await
    .unwrap();
}

/// One stored row, as the tests compare it.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Row {
    pub step_order: i32,
    pub parsed_step: i32,
    pub step_label: Option<String>,
    pub location_raw: String,
    pub city: Option<String>,
    pub regions: Vec<String>,
    pub country: Option<String>,
    pub country_code: Option<String>,
    pub geocode_status: String,
}

/// The rows of a band in step then id order.
pub async fn rows(pool: &PgPool, ma_id: i64) -> Vec<Row> {
    sqlx::query_as(
        "SELECT step_order, parsed_step, step_label, location_raw, city, regions, country,
                country_code, geocode_status
         FROM band_locations WHERE ma_id = $1 ORDER BY step_order, id",
    )
    .bind(ma_id)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// Number of band_locations rows.
pub async fn count_rows(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM band_locations")
        .fetch_one(pool)
        .await
        .unwrap()
}

/// (status, stats, error) of a run.
pub async fn run_record(
    pool: &PgPool,
    run_id: i64,
) -> (String, serde_json::Value, Option<String>, String) {
    sqlx::query_as("SELECT status, stats, error, type FROM crawl_run WHERE id = $1")
        .bind(run_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// (level, message) of a run's log lines in order.
pub async fn log_lines(pool: &PgPool, run_id: i64) -> Vec<(String, String)> {
    sqlx::query_as("SELECT level, message FROM crawl_log WHERE run_id = $1 ORDER BY id")
        .bind(run_id)
        .fetch_all(pool)
        .await
        .unwrap()
}
