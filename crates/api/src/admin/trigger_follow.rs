//! `GET /admin/api/job-triggers/{id}` (issue 17): one job request and the run it started,
//! so the console can follow a request it made until the run ends and say how it ended.

use crate::admin::common::shapes::{RunItem, TriggerItem};
use crate::error::{ApiError, ErrorBody};
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use bandmap_db::monitoring;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_trigger))
}

/// A job request with its run.
#[derive(Debug, Serialize, ToSchema)]
pub struct TriggerWithRun {
    /// The request.
    pub trigger: TriggerItem,
    /// The run it started (null until a service claims the request and opens its run).
    pub run: Option<RunItem>,
}

/// One job request and, once started, its run (status, counters, end, error).
#[utoipa::path(
    get, path = "/job-triggers/{id}", tag = "admin-jobs",
    params(("id" = i64, Path, description = "Trigger id")),
    responses(
        (status = 200, description = "the request and its run", body = TriggerWithRun),
        (status = 400, description = "Non-numeric id", body = ErrorBody),
        (status = 401, description = "No session", body = ErrorBody),
        (status = 404, description = "Unknown request", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn get_trigger(
    State(state): State<AppState>,
    Path(id): Path<i64>,
) -> Result<axum::Json<TriggerWithRun>, ApiError> {
    let trigger = monitoring::trigger(&state.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no job request {id}")))?;
    let run = match trigger.run_id {
        Some(run_id) => monitoring::run(&state.pool, run_id).await?,
        None => None,
    };
    Ok(axum::Json(TriggerWithRun { trigger, run }))
}
