//! `GET /admin/api/live` (what runs now), `GET /admin/api/health` (heartbeat rows with
//! `stale` computed in SQL, rule 24) and `GET /admin/api/crawl-checkpoints`.

use crate::admin::common::shapes::{HealthItem, ListPage, RunItem, StatusCounts, TriggerItem};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Page, PageParams, Query};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use bandmap_db::runs::TriggerStatus;
use bandmap_db::{catalogue_stats, checkpoints, geocoding_stats, monitoring};
use serde::Serialize;
use utoipa::ToSchema;

/// A crawl checkpoint, as `crates/db` reads it.
pub use bandmap_db::checkpoints::Checkpoint as CheckpointItem;

/// The page `page` of a complete (short) list, as CONTRACT §4's `{items,total,limit,offset}`.
fn page_of<T>(rows: Vec<T>, page: Page) -> ListPage<T> {
    let total = i64::try_from(rows.len()).unwrap_or(i64::MAX);
    let skip = usize::try_from(page.offset).unwrap_or(usize::MAX);
    let take = usize::try_from(page.limit).unwrap_or(0);
    ListPage::from_rows(
        rows.into_iter().skip(skip).take(take).collect(),
        total,
        page,
    )
}

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
        runs,
        geocoder: GeocoderLive {
            counts: counts.into(),
            processed_last_hour,
        },
        pending_jobs: jobs,
        enrich_queue: queue.total(),
        services,
    }))
}

/// Heartbeat rows of the background services, ordered by service, as a list page
/// (CONTRACT §4, issue 19 point 10).
#[utoipa::path(get, path = "/health", tag = "admin-monitoring", params(PageParams),
    security(("session" = [])),
    responses(
        (status = 200, description = "one row per service that ever wrote a heartbeat",
         body = ListPage<HealthItem>),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn health(
    State(state): State<AppState>,
    Query(q): Query<PageParams>,
) -> Result<Json<ListPage<HealthItem>>, ApiError> {
    let page = q.page();
    let rows = monitoring::health(&state.pool).await?;
    Ok(Json(page_of(rows, page)))
}

/// Read-only list of the crawl checkpoints, by key, as a list page (CONTRACT §4).
#[utoipa::path(get, path = "/crawl-checkpoints", tag = "admin-monitoring",
    params(PageParams), security(("session" = [])),
    responses(
        (status = 200, description = "the checkpoints", body = ListPage<CheckpointItem>),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn checkpoints(
    State(state): State<AppState>,
    Query(q): Query<PageParams>,
) -> Result<Json<ListPage<CheckpointItem>>, ApiError> {
    let page = q.page();
    let rows = checkpoints::list(&state.pool).await?;
    Ok(Json(page_of(rows, page)))
}
