//! `GET /admin/api/stats` (catalogue breakdowns, genre keywords) and `GET /admin/api/queue`
//! (enrichment queue by priority). The rules are documented in
//! [`bandmap_db::catalogue_stats`] and docs/admin-api.md.

use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use bandmap_db::catalogue_stats;
use serde::Serialize;
use utoipa::ToSchema;

/// The breakdown bucket, the queue counts and the queued band, as `crates/db` reads them.
pub use bandmap_db::catalogue_stats::{
    KeyCount as Bucket, QueueCounts as Priorities, QueuedBand as QueueItem,
};

/// `GET /admin/api/stats`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Stats {
    /// Bands in the catalogue.
    pub bands_total: i64,
    /// Bands enriched.
    pub enriched: i64,
    /// Bands with a primary point.
    pub geocoded: i64,
    /// Bands per country, largest first, complete.
    pub by_country: Vec<Bucket>,
    /// Bands per genre keyword, largest first, complete.
    pub by_genre_keyword: Vec<Bucket>,
    /// Bands per status, largest first, complete.
    pub by_status: Vec<Bucket>,
}

/// Band statistics with complete breakdowns by country, genre keyword and status.
#[utoipa::path(get, path = "/stats", tag = "admin-monitoring", security(("session" = [])),
    responses(
        (status = 200, description = "statistics", body = Stats),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn stats(State(state): State<AppState>) -> Result<Json<Stats>, ApiError> {
    let pool = &state.pool;
    let totals = catalogue_stats::totals(pool).await?;
    Ok(Json(Stats {
        bands_total: totals.bands_total,
        enriched: totals.enriched,
        geocoded: totals.geocoded,
        by_country: catalogue_stats::by_country(pool).await?,
        by_genre_keyword: catalogue_stats::by_genre_keyword(pool).await?,
        by_status: catalogue_stats::by_status(pool).await?,
    }))
}

/// `GET /admin/api/queue`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Queue {
    /// Bands waiting for enrichment.
    pub total: i64,
    /// Breakdown per priority (sums to `total`).
    pub by_priority: Priorities,
    /// The first 50 bands, by priority then `ma_id`.
    pub next: Vec<QueueItem>,
}

/// Size of `next`.
const QUEUE_HEAD: i64 = 50;

/// The enrichment queue with its priority breakdown.
#[utoipa::path(get, path = "/queue", tag = "admin-monitoring", security(("session" = [])),
    responses(
        (status = 200, description = "the queue", body = Queue),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn queue(State(state): State<AppState>) -> Result<Json<Queue>, ApiError> {
    let counts = catalogue_stats::queue_counts(&state.pool).await?;
    let head = catalogue_stats::queue_head(&state.pool, QUEUE_HEAD).await?;
    Ok(Json(Queue {
        total: counts.total(),
        by_priority: counts,
        next: head,
    }))
}
