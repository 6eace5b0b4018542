//! `GET /admin/api/activity` (runs and admin actions merged, newest first) and
//! `GET /admin/api/logs` (log lines, streamed with `min_id`).

use crate::admin::common::params;
use crate::admin::common::shapes::ListPage;
use crate::admin::common::vocab;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Page, Query};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use bandmap_db::monitoring::{ActivityRow, LogFilter};
use bandmap_db::runs::{JobType, Level, RunStatus};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// A `crawl_log` line, as `crates/db` reads it.
pub use bandmap_db::monitoring::LogLine as LogItem;

/// Query of `GET /admin/api/activity`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ActivityQuery {
    /// `run` or `admin`; absent = both.
    #[param(value_type = Option<String>, pattern = "^(run|admin)$")]
    kind: Option<String>,
    /// Page size (default 50, max 500).
    #[param(value_type = Option<i64>, minimum = 0)]
    limit: Option<String>,
    /// Rows to skip.
    #[param(value_type = Option<i64>, minimum = 0)]
    offset: Option<String>,
}

/// One activity entry: a run or an admin action.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ActivityItem {
    /// A `crawl_run` (any type); open its lines with `GET /admin/api/logs?run_id=`.
    Run {
        /// Run id.
        id: i64,
        /// Run type.
        #[serde(rename = "type")]
        #[schema(schema_with = vocab::job_type)]
        run_type: JobType,
        /// Run status.
        #[schema(schema_with = vocab::run_status)]
        status: RunStatus,
        /// Start (the sort key).
        started_at: DateTime<Utc>,
        /// End.
        finished_at: Option<DateTime<Utc>>,
        /// Progress statistics.
        stats: Value,
        /// Error text.
        error: Option<String>,
    },
    /// An `admin_audit_log` entry with its before/after diff.
    Admin {
        /// Audit id.
        id: i64,
        /// When (the sort key).
        at: DateTime<Utc>,
        /// Admin.
        username: String,
        /// Action, e.g. `location.patch`.
        action: String,
        /// Target, e.g. `location:42`.
        target: Option<String>,
        /// State before.
        before: Option<Value>,
        /// State after.
        after: Option<Value>,
    },
}

impl From<ActivityRow> for ActivityItem {
    fn from(r: ActivityRow) -> Self {
        if let ("run", Some(run_type), Some(status)) = (r.kind.as_str(), r.run_type, r.status) {
            ActivityItem::Run {
                id: r.id,
                run_type,
                status,
                started_at: r.at,
                finished_at: r.finished_at,
                stats: r.stats.unwrap_or(Value::Null),
                error: r.error,
            }
        } else {
            ActivityItem::Admin {
                id: r.id,
                at: r.at,
                username: r.username.unwrap_or_default(),
                action: r.action.unwrap_or_default(),
                target: r.target,
                before: r.before,
                after: r.after,
            }
        }
    }
}

/// Runs and admin actions in one chronological list, newest first.
#[utoipa::path(get, path = "/activity", tag = "admin-monitoring", params(ActivityQuery),
    security(("session" = [])),
    responses(
        (status = 200, description = "a page of entries", body = ListPage<ActivityItem>),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn activity(
    State(state): State<AppState>,
    Query(q): Query<ActivityQuery>,
) -> Result<Json<ListPage<ActivityItem>>, ApiError> {
    let kind = params::one_of("kind", q.kind.as_deref(), &["run", "admin"])?;
    let page = Page::parse(q.limit.as_deref(), q.offset.as_deref())?;
    let (rows, total) =
        bandmap_db::monitoring::activity(&state.pool, kind.as_deref(), page.limit, page.offset)
            .await?;
    Ok(Json(ListPage::from_rows(rows, total, page)))
}

/// Query of `GET /admin/api/logs`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LogsQuery {
    /// Only the lines of this run.
    #[param(value_type = Option<i64>)]
    run_id: Option<String>,
    /// Only lines with a larger id; the page is then in ascending id order (streaming).
    #[param(value_type = Option<i64>)]
    min_id: Option<String>,
    /// `debug`, `info`, `warn` or `error`.
    #[param(schema_with = vocab::log_level)]
    level: Option<String>,
    /// Page size (default 50, max 500).
    #[param(value_type = Option<i64>, minimum = 0)]
    limit: Option<String>,
    /// Rows to skip.
    #[param(value_type = Option<i64>, minimum = 0)]
    offset: Option<String>,
}

/// Log lines: ascending ids after `min_id` when given, newest first otherwise.
#[utoipa::path(get, path = "/logs", tag = "admin-monitoring", params(LogsQuery),
    security(("session" = [])),
    responses(
        (status = 200, description = "a page of lines", body = ListPage<LogItem>),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn logs(
    State(state): State<AppState>,
    Query(q): Query<LogsQuery>,
) -> Result<Json<ListPage<LogItem>>, ApiError> {
    let filter = LogFilter {
        run_id: params::int("run_id", q.run_id.as_deref())?,
        min_id: params::int("min_id", q.min_id.as_deref())?,
        level: params::variant("level", q.level.as_deref(), Level::ALL)?,
    };
    let page = Page::parse(q.limit.as_deref(), q.offset.as_deref())?;
    let (rows, total) =
        bandmap_db::monitoring::logs(&state.pool, &filter, page.limit, page.offset).await?;
    Ok(Json(ListPage::from_rows(rows, total, page)))
}
