//! geocode_cache: cached provider answers (rule 16). One row per (provider, normalised
//! query); the key is built by the geocoder (`provider:query`). A row with `lat` NULL is a
//! cached "no result". On a hit the caller reads `confidence` from the row, never a constant.

use crate::Result;
use serde_json::Value;
use sqlx::PgExecutor;

/// One cached answer.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CacheRow {
    /// `provider:normalised query`.
    pub key: String,
    /// Provider name (`geoapify`, legacy `nominatim`).
    pub provider: String,
    /// The query text as sent.
    pub query: String,
    /// The provider's answer (the chosen result object, or `{"results": []}`).
    pub raw: Value,
    /// Latitude of the chosen result; NULL = no result.
    pub lat: Option<f64>,
    /// Longitude of the chosen result.
    pub lon: Option<f64>,
    /// Confidence of the chosen result; NULL = the provider gave none.
    pub confidence: Option<f64>,
    /// Granularity stored when the row was written.
    pub granularity: Option<String>,
}

/// Reads one row by key.
pub async fn get(db: impl PgExecutor<'_>, key: &str) -> Result<Option<CacheRow>> {
    Ok(sqlx::query_as(
        "SELECT key, provider, query, raw, lat, lon, confidence, granularity
         FROM geocode_cache WHERE key = $1",
    )
    .bind(key)
    .fetch_optional(db)
    .await?)
}

/// Writes (or replaces) one row.
pub async fn put(db: impl PgExecutor<'_>, row: &CacheRow) -> Result<()> {
    sqlx::query(
        "INSERT INTO geocode_cache (key, provider, query, raw, lat, lon, confidence, granularity)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (key) DO UPDATE SET
             provider = EXCLUDED.provider, query = EXCLUDED.query, raw = EXCLUDED.raw,
             lat = EXCLUDED.lat, lon = EXCLUDED.lon, confidence = EXCLUDED.confidence,
             granularity = EXCLUDED.granularity, created_at = now()",
    )
    .bind(&row.key)
    .bind(&row.provider)
    .bind(&row.query)
    .bind(&row.raw)
    .bind(row.lat)
    .bind(row.lon)
    .bind(row.confidence)
    .bind(&row.granularity)
    .execute(db)
    .await?;
    Ok(())
}

/// Deletes every row of one provider (`purge-legacy-provider` passes `nominatim`).
pub async fn purge_provider(db: impl PgExecutor<'_>, provider: &str) -> Result<u64> {
    Ok(sqlx::query("DELETE FROM geocode_cache WHERE provider = $1")
        .bind(provider)
        .execute(db)
        .await?
        .rows_affected())
}

/// Number of cached answers.
pub async fn count(db: impl PgExecutor<'_>) -> Result<i64> {
    Ok(sqlx::query_scalar("SELECT count(*) FROM geocode_cache")
        .fetch_one(db)
        .await?)
}

/// The legacy provider whose rows `purge-legacy-provider` removes (CONTRACT §6).
pub const LEGACY_PROVIDER: &str = "nominatim";
