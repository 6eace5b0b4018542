//! `crawl_checkpoint`: small named values such as `last_created_check` and
//! `last_full_crawl_at`.

use crate::Result;
use sqlx::PgPool;

/// Checkpoint of the incremental crawl.
pub const LAST_CREATED_CHECK: &str = "last_created_check";
/// Checkpoint of the full crawl (rule 1).
pub const LAST_FULL_CRAWL_AT: &str = "last_full_crawl_at";

/// Reads one checkpoint.
pub async fn get(pool: &PgPool, key: &str) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT value FROM crawl_checkpoint WHERE key = $1")
            .bind(key)
            .fetch_optional(pool)
            .await?,
    )
}

/// Writes one checkpoint.
pub async fn set(pool: &PgPool, key: &str, value: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO crawl_checkpoint (key, value, updated_at) VALUES ($1, $2, now())
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
    )
    .bind(key)
    .bind(value)
    .execute(pool)
    .await?;
    Ok(())
}

/// A crawl checkpoint.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = CheckpointItem))]
pub struct Checkpoint {
    /// Key, e.g. `last_full_crawl_at`, `last_created_check`.
    pub key: String,
    /// Value.
    pub value: String,
    /// Last write.
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

/// Every checkpoint, by key.
pub async fn list(pool: &PgPool) -> Result<Vec<Checkpoint>> {
    Ok(
        sqlx::query_as("SELECT key, value, updated_at FROM crawl_checkpoint ORDER BY key")
            .fetch_all(pool)
            .await?,
    )
}
