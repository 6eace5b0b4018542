//! `GET /admin/api/live` (what runs now), `GET /admin/api/health` (heartbeat rows with
//! `stale` computed in SQL, rule 24) and `GET /admin/api/crawl-checkpoints`.

use super::shapes::{HealthItem, RunItem, StatusCounts, TriggerItem};
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use bandmap_db::runs::TriggerStatus;
use bandmap_db::{catalogue_stats, checkpoints, geocoding_stats, monitoring};
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

/// Geocoder state of the live view: rows per status plus recent throughput.
#[derive(Debug, Serialize, ToSchema)]
pub struct GeocoderLive {
    /// Rows per status.
    #[serde(flatten)]
    pub counts: StatusCounts,
    /// Rows that reached an outcome (not `pending`/`processing`) in the last hour.
    pub processed_last_hour: i64,
}

/// `GET /admin/api/live`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Live {
    /// Runs in `running`, newest first.
    pub runs: Vec<RunItem>,
    /// Geocoder counters.
    pub geocoder: GeocoderLive,
    /// Triggers still `pending`, newest first (at most 500).
    pub pending_jobs: Vec<TriggerItem>,
    /// Bands waiting for enrichment (see `GET /admin/api/queue`).
    pub enrich_queue: i64,
    /// Heartbeat rows, as `GET /admin/api/health`.
    pub services: Vec<HealthItem>,
}

/// Running runs, geocoder counters, pending jobs, enrichment queue and service health.
#[utoipa::path(get, path = "/live", tag = "admin-monitoring", security(("session" = [])),
    responses(
        (status = 200, description = "live state", body = Live),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn live(State(state): State<AppState>) -> Result<Json<Live>, ApiError> {
    let pool = &state.pool;
    let runs = monitoring::running_runs(pool).await?;
    let counts = geocoding_stats::status_counts(pool).await?;
    let processed_last_hour = geocoding_stats::processed_last_hour(pool).await?;
    let (jobs, _) = monitoring::triggers(pool, Some(TriggerStatus::Pending), 500, 0).await?;
    let queue = catalogue_stats::queue_counts(pool).await?;
    let services = monitoring::health(pool).await?;
    Ok(Json(Live {
        runs: runs.into_iter().map(Into::into).collect(),
        geocoder: GeocoderLive {
            counts: counts.into(),
            processed_last_hour,
        },
        pending_jobs: jobs.into_iter().map(Into::into).collect(),
        enrich_queue: queue.total(),
        services: services.into_iter().map(Into::into).collect(),
    }))
}

/// Heartbeat rows of the background services, a bare JSON array ordered by service.
#[utoipa::path(get, path = "/health", tag = "admin-monitoring", security(("session" = [])),
    responses(
        (status = 200, description = "one row per service that ever wrote a heartbeat",
         body = Vec<HealthItem>),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn health(State(state): State<AppState>) -> Result<Json<Vec<HealthItem>>, ApiError> {
    let rows = monitoring::health(&state.pool).await?;
    Ok(Json(rows.into_iter().map(Into::into).collect()))
}

/// A crawl checkpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckpointItem {
    /// Key, e.g. `last_full_crawl_at`, `last_created_check`.
    pub key: String,
    /// Value.
    pub value: String,
    /// Last write.
    pub updated_at: DateTime<Utc>,
}

/// `GET /admin/api/crawl-checkpoints`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Checkpoints {
    /// Every checkpoint, by key.
    pub items: Vec<CheckpointItem>,
}

/// Read-only list of the crawl checkpoints.
#[utoipa::path(get, path = "/crawl-checkpoints", tag = "admin-monitoring",
    security(("session" = [])),
    responses(
        (status = 200, description = "every checkpoint", body = Checkpoints),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn checkpoints(State(state): State<AppState>) -> Result<Json<Checkpoints>, ApiError> {
    let rows = checkpoints::list(&state.pool).await?;
    Ok(Json(Checkpoints {
        items: rows
            .into_iter()
            .map(|c| CheckpointItem {
                key: c.key,
                value: c.value,
                updated_at: c.updated_at,
            })
            .collect(),
    }))
}
