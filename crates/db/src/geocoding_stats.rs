//! Counters of the geocoding pipeline for the admin API (`GET /admin/api/geocoding`,
//! `GET /admin/api/live`) and the admin purge of the legacy provider's cache. LLM counters
//! live in [`crate::llm_cache`], cache counts in [`crate::geocode_cache`].

use crate::Result;
use crate::band_locations::GeocodeStatus;
use sqlx::PgExecutor;
use std::collections::BTreeMap;

/// Row counts per `geocode_status`, every status present (0 when absent).
pub async fn status_counts(db: impl PgExecutor<'_>) -> Result<BTreeMap<GeocodeStatus, i64>> {
    let rows: Vec<(GeocodeStatus, i64)> = sqlx::query_as(
        "SELECT s.status, count(l.id)
         FROM unnest($1::text[]) AS s(status)
         LEFT JOIN band_locations l ON l.geocode_status = s.status
         GROUP BY s.status",
    )
    .bind(&GeocodeStatus::ALL[..])
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().collect())
}

/// Rows whose geocoding reached an outcome (anything but `pending`/`processing`) during the
/// last hour, by `updated_at`.
pub async fn processed_last_hour(db: impl PgExecutor<'_>) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT count(*) FROM band_locations
         WHERE geocode_status NOT IN ('pending', 'processing')
           AND updated_at > now() - interval '1 hour'",
    )
    .fetch_one(db)
    .await?)
}

// One provider's share of the rows that carry a provider.
/// Rows of one provider.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ProviderItem))]
pub struct ProviderCount {
    /// Provider (`gazetteer`, `geoapify`, `llm+…`, `manual`…).
    pub provider: String,
    /// `band_locations` rows carrying it (any status).
    pub count: i64,
    /// Average confidence (non-finite values ignored).
    pub avg_confidence: Option<f64>,
}

/// Rows per provider (any status), most used first.
pub async fn providers(db: impl PgExecutor<'_>) -> Result<Vec<ProviderCount>> {
    Ok(sqlx::query_as(
        "SELECT provider, count(*) AS count,
                avg(CASE WHEN confidence IN ('NaN', 'Infinity', '-Infinity') THEN NULL
                         ELSE confidence END) AS avg_confidence
         FROM band_locations WHERE provider IS NOT NULL
         GROUP BY provider ORDER BY count(*) DESC, provider",
    )
    .fetch_all(db)
    .await?)
}

/// Deletes the legacy provider's cache entries ([`crate::geocode_cache::LEGACY_PROVIDER`],
/// name compared case-insensitively) on the caller's transaction, so the admin's audit row
/// commits with it; returns how many.
pub async fn purge_legacy_provider(db: impl PgExecutor<'_>) -> Result<u64> {
    Ok(
        sqlx::query("DELETE FROM geocode_cache WHERE lower(provider) = $1")
            .bind(crate::geocode_cache::LEGACY_PROVIDER)
            .execute(db)
            .await?
            .rows_affected(),
    )
}
