//! Shared helpers of the geocode integration tests: configuration pointing at the fake,
//! a tiny gazetteer, rows and their state.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use bandmap_config::{GeocoderConfig, GeocoderProvider};
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_gazetteer::Gazetteer;
use bandmap_geocode::{Geocoder, Worker};
use secrecy::SecretString;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;

pub const KEY: &str = "test-key";

/// Config for the fake, no spacing (tests that are not about the limiter).
pub fn config(fake: &FakeGeoapify) -> GeocoderConfig {
    GeocoderConfig {
        provider: GeocoderProvider::Geoapify,
        base_url: url::Url::parse(&fake.base_url()).unwrap(),
        api_key: Some(SecretString::from(KEY.to_string())),
        min_delay: Duration::ZERO,
        min_jitter: Duration::ZERO,
        min_confidence: 0.7,
        offline: false,
        gazetteer_path: "/nonexistent".into(),
    }
}

pub const TINY_TSV: &str = "\
R\t3\tNO\t1\tNO.46\tVestland\tHordaland
R\t1\tDE\t1\tDE.02\tBayern\tBavaria
R\t2\tDE\t1\tDE.07\tNordrhein-Westfalen\tNorth Rhine-Westphalia
P\t5\tBergen\tBjörgvin\tNO\tNO.46\t3\t60.39299\t5.32415\t294029
P\t2\tNeustadt\t\tDE\tDE.02\t1\t49.7\t12.1\t5000
P\t3\tNeustadt\t\tDE\tDE.07\t2\t51.2\t7.0\t4000
";

pub fn tiny_gazetteer() -> Arc<Gazetteer> {
    Arc::new(Gazetteer::from_reader(TINY_TSV.as_bytes()).unwrap())
}

/// A worker on `pool` with the given config and gazetteer; retries back off 10 ms.
pub fn worker(pool: &PgPool, cfg: &GeocoderConfig, gaz: Option<Arc<Gazetteer>>) -> Worker {
    let g = Geocoder::with_parts(pool.clone(), cfg, gaz, Duration::from_millis(10)).unwrap();
    Worker::with_geocoder(pool.clone(), g)
}

pub async fn band(pool: &PgPool, ma_id: i64) {
    sqlx::query("INSERT INTO bands (ma_id, name, country, country_code) VALUES ($1, $2, 'Norway', 'NO') ON CONFLICT DO NOTHING")
        .bind(ma_id)
        .bind(format!("Band {ma_id}"))
        .execute(pool)
        .await
        .unwrap();
}

/// Inserts a pending row; returns its id.
pub async fn row(
    pool: &PgPool,
    ma_id: i64,
    step: i32,
    city: &str,
    regions: &[&str],
    country: &str,
    cc: &str,
) -> i64 {
    band(pool, ma_id).await;
    let mut parts = vec![city];
    parts.extend(regions.iter().copied());
    let raw = parts.join(", ");
    let regions: Vec<String> = regions.iter().map(|s| s.to_string()).collect();
    sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, step_label, location_raw, city, regions, country, country_code)
         VALUES ($1, $2, $2, 'origin', $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(ma_id)
    .bind(step)
    .bind(raw)
    .bind(city)
    .bind(regions)
    .bind(country)
    .bind(cc)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[derive(Debug, sqlx::FromRow)]
pub struct RowState {
    pub geocode_status: String,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    pub provider: Option<String>,
    pub confidence: Option<f64>,
    pub geocode_granularity: Option<String>,
    pub query: Option<String>,
    pub attempts: i32,
    pub error: Option<String>,
    /// Seconds until the row is due (negative: overdue).
    pub due_in: f64,
}

pub async fn state(pool: &PgPool, id: i64) -> RowState {
    sqlx::query_as(
        "SELECT geocode_status, lat, lon, provider, confidence, geocode_granularity, query,
                attempts, error,
                EXTRACT(EPOCH FROM (next_attempt_at - now()))::float8 AS due_in
         FROM band_locations WHERE id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Makes every pending row due now (instead of sleeping through a backoff).
pub async fn make_due(pool: &PgPool) {
    sqlx::query("UPDATE band_locations SET next_attempt_at = now() - interval '1 second' WHERE geocode_status = 'pending'")
        .execute(pool)
        .await
        .unwrap();
}

/// The band's primary point.
pub async fn band_point(pool: &PgPool, ma_id: i64) -> (Option<f64>, Option<f64>, Option<i64>) {
    sqlx::query_as("SELECT lat, lon, geocode_location_id FROM bands WHERE ma_id = $1")
        .bind(ma_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

pub fn city(name: &str, lat: f64, lon: f64, conf: f64, cc: &str) -> serde_json::Value {
    FakeGeoapify::result(name, lat, lon, "city", Some(conf), cc)
}

/// Inserts a row the way the enqueue daemon creates a country-only row (no place: `city`
/// NULL, no regions, `location_raw` = the country name), but `pending`, as an admin
/// requeue leaves it. Returns its id.
pub async fn country_row(pool: &PgPool, ma_id: i64, country: &str, cc: &str) -> i64 {
    band(pool, ma_id).await;
    sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, step_label, location_raw, city, regions, country, country_code)
         VALUES ($1, 0, 0, 'origin', $2, NULL, '{}', $2, $3) RETURNING id",
    )
    .bind(ma_id)
    .bind(country)
    .bind(cc)
    .fetch_one(pool)
    .await
    .unwrap()
}
