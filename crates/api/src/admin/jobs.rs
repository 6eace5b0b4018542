//! Admin API: job requests (`job_triggers`) and crawl-run control. Cancelling a run only
//! raises `cancel_requested`: the job writes its final status itself (rule 10).

use crate::admin::common::shapes::{ListPage, TriggerItem};
use crate::admin::common::{audit, params, vocab};
use crate::auth::AdminSession;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, PageParams, Path, Query};
use crate::param::OneOf;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use bandmap_db::runs::{self, JobType, RunCancel, RunStatus, TriggerStatus};
use bandmap_db::triggers::{self, CancelOutcome};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_trigger, list_triggers))
        .routes(routes!(cancel_trigger))
        .routes(routes!(cancel_run))
        .routes(routes!(cleanup_runs))
}

/// Body of `POST /admin/api/job-triggers`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTrigger {
    /// The job to run (case-insensitive).
    #[schema(schema_with = vocab::job_type)]
    pub job_type: String,
}

/// Id of the created request.
#[derive(Debug, Serialize, ToSchema)]
pub struct Created {
    /// Trigger id.
    pub id: i64,
}

/// Registers a job request (a pending `job_triggers` row). Audited.
#[utoipa::path(post, path = "/job-triggers", tag = "admin-jobs", request_body = NewTrigger,
    security(("session" = [])),
    responses(
        (status = 201, description = "registered", body = Created),
        (status = 400, description = "unknown job_type or bad body", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn create_trigger(
    State(state): State<AppState>,
    session: AdminSession,
    Json(body): Json<NewTrigger>,
) -> Result<(StatusCode, axum::Json<Created>), ApiError> {
    let job_type = params::variant::<JobType>("job_type", Some(&body.job_type))?
        .ok_or_else(|| ApiError::bad_request("job_type is required"))?;
    let mut tx = state.pool.begin().await?;
    let id = triggers::create(&mut *tx, job_type, Some(&session.username)).await?;
    let after = json!({"id": id, "job_type": job_type, "status": TriggerStatus::Pending});
    audit::record(
        &mut tx,
        &session,
        "job_trigger.create",
        &format!("job_trigger:{id}"),
        None,
        Some(after),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, axum::Json(Created { id })))
}

/// `TriggerStatus` as a parameter (an alias: utoipa reads a generic type's schema through
/// `ComposeSchema`, a plain path's through [`utoipa::PartialSchema`]).
pub type TriggerStatusParam = OneOf<TriggerStatus>;

/// Query of `GET /admin/api/job-triggers`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TriggersQuery {
    /// Only triggers in this state (case-insensitive).
    #[serde(default, deserialize_with = "crate::param::status")]
    #[param(inline)]
    status: Option<TriggerStatusParam>,
    /// The page.
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// Job requests, newest first.
#[utoipa::path(get, path = "/job-triggers", tag = "admin-jobs", params(TriggersQuery, PageParams),
    security(("session" = [])),
    responses(
        (status = 200, description = "a page of requests", body = ListPage<TriggerItem>),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn list_triggers(
    State(state): State<AppState>,
    Query(q): Query<TriggersQuery>,
) -> Result<axum::Json<ListPage<TriggerItem>>, ApiError> {
    let status = q.status.map(|s| s.0);
    let page = q.page.page();
    let (rows, total) =
        bandmap_db::monitoring::triggers(&state.pool, status, page.limit, page.offset).await?;
    Ok(axum::Json(ListPage::from_rows(rows, total, page)))
}

/// State of a request after cancellation.
#[derive(Debug, Serialize, ToSchema)]
pub struct TriggerCancelled {
    /// Trigger id.
    pub id: i64,
    /// Always `cancelled`.
    #[schema(schema_with = vocab::trigger_status)]
    pub status: TriggerStatus,
}

/// Cancels a request that is still `pending`. Audited.
#[utoipa::path(post, path = "/job-triggers/{id}/cancel", tag = "admin-jobs",
    params(("id" = i64, Path, description = "trigger id")), security(("session" = [])),
    responses(
        (status = 200, description = "the request is cancelled", body = TriggerCancelled),
        (status = 400, description = "invalid id", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody),
        (status = 404, description = "unknown id", body = ErrorBody),
        (status = 409, description = "not pending", body = ErrorBody)))]
pub async fn cancel_trigger(
    State(state): State<AppState>,
    session: AdminSession,
    Path(id): Path<i64>,
) -> Result<axum::Json<TriggerCancelled>, ApiError> {
    let mut tx = state.pool.begin().await?;
    match triggers::cancel(&mut *tx, id).await? {
        CancelOutcome::NotFound => return Err(ApiError::not_found(format!("no job trigger {id}"))),
        CancelOutcome::NotPending => {
            return Err(ApiError::Conflict(format!(
                "job trigger {id} is not pending"
            )));
        }
        CancelOutcome::Cancelled => {}
    }
    let target = format!("job_trigger:{id}");
    let (before, after) = (
        json!({"status": TriggerStatus::Pending}),
        json!({"status": TriggerStatus::Cancelled}),
    );
    audit::record(
        &mut tx,
        &session,
        "job_trigger.cancel",
        &target,
        Some(before),
        Some(after),
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(TriggerCancelled {
        id,
        status: TriggerStatus::Cancelled,
    }))
}

/// State of a run after the cancel request.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunCancelRequested {
    /// Run id.
    pub id: i64,
    /// Still `running`: the job writes `cancelled` itself at its next batch.
    #[schema(schema_with = vocab::run_status)]
    pub status: RunStatus,
    /// Always true.
    pub cancel_requested: bool,
}

/// Asks a running run to stop: sets `cancel_requested` only; never writes the final
/// status. Audited.
#[utoipa::path(post, path = "/crawl-runs/{id}/cancel", tag = "admin-jobs",
    params(("id" = i64, Path, description = "crawl_run id")), security(("session" = [])),
    responses(
        (status = 200, description = "flag raised", body = RunCancelRequested),
        (status = 400, description = "invalid id", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody),
        (status = 404, description = "unknown id", body = ErrorBody),
        (status = 409, description = "not running", body = ErrorBody)))]
pub async fn cancel_run(
    State(state): State<AppState>,
    session: AdminSession,
    Path(id): Path<i64>,
) -> Result<axum::Json<RunCancelRequested>, ApiError> {
    let mut tx = state.pool.begin().await?;
    let was_requested = match runs::request_cancel(&mut *tx, id).await? {
        RunCancel::NotFound => return Err(ApiError::not_found(format!("no crawl run {id}"))),
        RunCancel::NotRunning => {
            return Err(ApiError::Conflict(format!("crawl run {id} is not running")));
        }
        RunCancel::Requested { was_requested } => was_requested,
    };
    let target = format!("crawl_run:{id}");
    let before = json!({"status": RunStatus::Running, "cancel_requested": was_requested});
    let after = json!({"status": RunStatus::Running, "cancel_requested": true});
    audit::record(
        &mut tx,
        &session,
        "crawl_run.cancel",
        &target,
        Some(before),
        Some(after),
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(RunCancelRequested {
        id,
        status: RunStatus::Running,
        cancel_requested: true,
    }))
}

/// Result of the cleanup.
#[derive(Debug, Serialize, ToSchema)]
pub struct Closed {
    /// Runs closed as `interrupted`.
    pub closed: u64,
}

/// Closes runs still `running` that started more than 30 minutes ago (status
/// `interrupted`, their claimed triggers `error`). Audited.
#[utoipa::path(post, path = "/crawl-runs/cleanup", tag = "admin-jobs",
    security(("session" = [])),
    responses(
        (status = 200, description = "runs closed", body = Closed),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn cleanup_runs(
    State(state): State<AppState>,
    session: AdminSession,
) -> Result<axum::Json<Closed>, ApiError> {
    let reason = format!("closed by admin cleanup ({})", session.username);
    // One transaction: the runs closed, their triggers, log lines and the audit row.
    let mut tx = state.pool.begin().await?;
    let closed = runs::cleanup_stuck(&mut *tx, &reason).await?;
    let after = json!({"closed": closed});
    audit::record(
        &mut tx,
        &session,
        "crawl_runs.cleanup",
        "crawl_runs",
        None,
        Some(after),
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(Closed { closed }))
}
