//! `GET /admin/api/activity` (runs and admin actions merged, newest first) and
//! `GET /admin/api/logs` (log lines, streamed with `min_id`).

use crate::admin::common::shapes::ListPage;
use crate::admin::common::vocab;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{PageParams, Query};
use crate::param::{self, Integer, OneOf, Vocabulary};
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
    /// `run` or `admin` (any case); absent = both.
    #[serde(default, deserialize_with = "param::kind")]
    #[param(inline)]
    kind: Option<KindParam>,
    /// The page.
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// `ActivityKind` as a parameter (an alias: utoipa reads a generic type's schema through
/// `ComposeSchema`, a plain path's through [`utoipa::PartialSchema`]).
pub type KindParam = OneOf<ActivityKind>;

/// `Level` as a parameter (an alias: utoipa reads a generic type's schema through
/// `ComposeSchema`, a plain path's through [`utoipa::PartialSchema`]).
pub type LevelParam = OneOf<Level>;

/// What an activity entry is: a run or an admin action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivityKind {
    /// A `crawl_run`.
    Run,
    /// An `admin_audit_log` entry.
    Admin,
}

impl std::fmt::Display for ActivityKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ActivityKind::Run => "run",
            ActivityKind::Admin => "admin",
        })
    }
}

impl Vocabulary for ActivityKind {
    fn all() -> &'static [Self] {
        &[ActivityKind::Run, ActivityKind::Admin]
    }
    fn schema() -> utoipa::openapi::Object {
        vocab::names(vec!["run", "admin"], "An activity kind.")
    }
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
#[utoipa::path(get, path = "/activity", tag = "admin-monitoring", params(ActivityQuery, PageParams),
    security(("session" = [])),
    responses(
        (status = 200, description = "a page of entries", body = ListPage<ActivityItem>),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn activity(
    State(state): State<AppState>,
    Query(q): Query<ActivityQuery>,
) -> Result<Json<ListPage<ActivityItem>>, ApiError> {
    let kind = q.kind.map(|k| k.0.to_string());
    let page = q.page.page();
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
    #[serde(default, deserialize_with = "param::run_id")]
    #[param(inline)]
    run_id: Option<Integer>,
    /// Only lines with a larger id; the page is then in ascending id order (streaming).
    #[serde(default, deserialize_with = "param::min_id")]
    #[param(inline)]
    min_id: Option<Integer>,
    /// `debug`, `info`, `warn` or `error` (any case).
    #[serde(default, deserialize_with = "param::level")]
    #[param(inline)]
    level: Option<LevelParam>,
    /// The page.
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// Log lines: ascending ids after `min_id` when given, newest first otherwise.
#[utoipa::path(get, path = "/logs", tag = "admin-monitoring", params(LogsQuery, PageParams),
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
        run_id: q.run_id.map(|i| i.0),
        min_id: q.min_id.map(|i| i.0),
        level: q.level.map(|l| l.0),
    };
    let page = q.page.page();
    let (rows, total) =
        bandmap_db::monitoring::logs(&state.pool, &filter, page.limit, page.offset).await?;
    Ok(Json(ListPage::from_rows(rows, total, page)))
}
