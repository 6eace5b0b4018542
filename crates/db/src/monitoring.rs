//! Read-only monitoring queries of the admin API: the activity list (runs and admin actions
//! merged), log lines, running runs and pending triggers (live view), and the service
//! health rows with `stale` computed in SQL (rule 24).

use crate::Result;
use crate::runs::{JobType, Level, RunStatus, TriggerStatus};
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgPool;

/// One entry of the activity list: a run (`kind = "run"`) or an admin action
/// (`kind = "admin"`). Fields of the other kind are None.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ActivityRow {
    /// `run` or `admin`.
    pub kind: String,
    /// Run id or audit id.
    pub id: i64,
    /// Run start or action time (the sort key).
    pub at: DateTime<Utc>,
    /// Run type.
    pub run_type: Option<JobType>,
    /// Run status.
    pub status: Option<RunStatus>,
    /// Run end.
    pub finished_at: Option<DateTime<Utc>>,
    /// Run statistics.
    pub stats: Option<Value>,
    /// Run error text.
    pub error: Option<String>,
    /// Admin username.
    pub username: Option<String>,
    /// Admin action.
    pub action: Option<String>,
    /// Action target.
    pub target: Option<String>,
    /// State before.
    pub before: Option<Value>,
    /// State after.
    pub after: Option<Value>,
}

/// Newest-first page of runs and/or admin actions (`kind` None = both), and the total.
pub async fn activity(
    pool: &PgPool,
    kind: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<ActivityRow>, i64)> {
    let total: i64 = sqlx::query_scalar(
        "SELECT (CASE WHEN $1::text IS NULL OR $1 = 'run'
                      THEN (SELECT count(*) FROM crawl_run) ELSE 0 END)
              + (CASE WHEN $1::text IS NULL OR $1 = 'admin'
                      THEN (SELECT count(*) FROM admin_audit_log) ELSE 0 END)",
    )
    .bind(kind)
    .fetch_one(pool)
    .await?;
    // Each branch is cut to offset+limit rows by its own index before the merge.
    let rows = sqlx::query_as(
        "SELECT * FROM (
             (SELECT 'run' AS kind, id, started_at AS at, type AS run_type, status, finished_at,
                     stats, error, NULL::text AS username, NULL::text AS action,
                     NULL::text AS target, NULL::jsonb AS before, NULL::jsonb AS after
              FROM crawl_run WHERE $1::text IS NULL OR $1 = 'run'
              ORDER BY started_at DESC, id DESC LIMIT $4)
             UNION ALL
             (SELECT 'admin', id, at, NULL, NULL, NULL, NULL, NULL, username, action, target,
                     before, after
              FROM admin_audit_log WHERE $1::text IS NULL OR $1 = 'admin'
              ORDER BY at DESC, id DESC LIMIT $4)
         ) merged
         ORDER BY at DESC, kind, id DESC LIMIT $2 OFFSET $3",
    )
    .bind(kind)
    .bind(limit)
    .bind(offset)
    .bind(limit.saturating_add(offset))
    .fetch_all(pool)
    .await?;
    Ok((rows, total))
}

/// Filters of the log list.
#[derive(Debug, Clone, Default)]
pub struct LogFilter {
    /// Only lines of this run.
    pub run_id: Option<i64>,
    /// Only lines with a larger id; the page is then in ascending id order (streaming).
    pub min_id: Option<i64>,
    /// Only this level.
    pub level: Option<Level>,
}

/// A `crawl_log` line.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = LogItem))]
pub struct LogLine {
    /// Line id.
    pub id: i64,
    /// Run (null for admin action lines).
    pub run_id: Option<i64>,
    /// When.
    pub at: DateTime<Utc>,
    /// `debug`, `info`, `warn`, `error`.
    pub level: String,
    /// Text (may contain scraped text: escape it).
    pub message: String,
}

macro_rules! log_select {
    () => {
        "SELECT id, run_id, at, level, message FROM crawl_log
         WHERE ($1::bigint IS NULL OR run_id = $1) AND ($2::bigint IS NULL OR id > $2)
           AND ($3::text IS NULL OR level = $3)"
    };
}

/// A page of log lines: ascending ids after `min_id` when given, newest first otherwise.
pub async fn logs(
    pool: &PgPool,
    filter: &LogFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<LogLine>, i64)> {
    let total: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM crawl_log
         WHERE ($1::bigint IS NULL OR run_id = $1) AND ($2::bigint IS NULL OR id > $2)
           AND ($3::text IS NULL OR level = $3)",
    )
    .bind(filter.run_id)
    .bind(filter.min_id)
    .bind(filter.level)
    .fetch_one(pool)
    .await?;
    // Two static orders so each can walk the primary key (or `crawl_log_run`) index.
    let sql = if filter.min_id.is_some() {
        concat!(log_select!(), " ORDER BY id ASC LIMIT $4 OFFSET $5")
    } else {
        concat!(log_select!(), " ORDER BY id DESC LIMIT $4 OFFSET $5")
    };
    let rows = sqlx::query_as(sql)
        .bind(filter.run_id)
        .bind(filter.min_id)
        .bind(filter.level)
        .bind(limit)
        .bind(offset)
        .fetch_all(pool)
        .await?;
    Ok((rows, total))
}

/// A `crawl_run` row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = RunItem))]
pub struct RunRow {
    /// Run id.
    pub id: i64,
    /// The job it runs.
    #[sqlx(rename = "type")]
    #[serde(rename = "type")]
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::job_type))]
    pub run_type: JobType,
    /// Its status.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::run_status))]
    pub status: RunStatus,
    /// Cooperative cancel flag (rule 10).
    pub cancel_requested: bool,
    /// Start.
    pub started_at: DateTime<Utc>,
    /// End.
    pub finished_at: Option<DateTime<Utc>>,
    /// Last progress write.
    pub updated_at: DateTime<Utc>,
    /// Progress statistics (`total`, `processed`, `failed`…).
    pub stats: Value,
    /// Error text (may contain scraped text: escape it).
    pub error: Option<String>,
    /// Trigger that started it.
    pub trigger_id: Option<i64>,
}

/// Runs still `running`, newest first.
pub async fn running_runs(pool: &PgPool) -> Result<Vec<RunRow>> {
    Ok(sqlx::query_as(
        "SELECT id, type, status, cancel_requested, started_at, finished_at, updated_at, stats,
                error, trigger_id
         FROM crawl_run WHERE status = $1 ORDER BY started_at DESC, id DESC",
    )
    .bind(RunStatus::Running)
    .fetch_all(pool)
    .await?)
}

/// A `job_triggers` row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = TriggerItem))]
pub struct TriggerRow {
    /// Trigger id.
    pub id: i64,
    /// Requested job type (free text: an unknown type is closed as `error`).
    pub job_type: String,
    /// Its state.
    #[cfg_attr(feature = "openapi", schema(schema_with = crate::openapi::trigger_status))]
    pub status: TriggerStatus,
    /// Creation.
    pub created_at: DateTime<Utc>,
    /// Admin who asked.
    pub created_by: Option<String>,
    /// Claim time.
    pub claimed_at: Option<DateTime<Utc>>,
    /// End time.
    pub finished_at: Option<DateTime<Utc>>,
    /// Run it started.
    pub run_id: Option<i64>,
    /// Error text.
    pub error: Option<String>,
}

/// A page of triggers, newest first, optionally of one status; and the total.
pub async fn triggers(
    pool: &PgPool,
    status: Option<TriggerStatus>,
    limit: i64,
    offset: i64,
) -> Result<(Vec<TriggerRow>, i64)> {
    let total: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM job_triggers WHERE $1::text IS NULL OR status = $1",
    )
    .bind(status)
    .fetch_one(pool)
    .await?;
    let rows = sqlx::query_as(
        "SELECT id, job_type, status, created_at, created_by, claimed_at, finished_at, run_id,
                error
         FROM job_triggers WHERE $1::text IS NULL OR status = $1
         ORDER BY id DESC LIMIT $2 OFFSET $3",
    )
    .bind(status)
    .bind(limit)
    .bind(offset)
    .fetch_all(pool)
    .await?;
    Ok((rows, total))
}

/// A `service_health` row with `stale` computed in SQL (rule 24).
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = HealthItem))]
pub struct HealthRow {
    /// `crawler`, `geocoder`, `enqueue`, `llm`.
    pub service: String,
    /// `ok` or `degraded` (as the service last wrote it).
    pub state: String,
    /// Check results, by check name.
    pub checks: Value,
    /// Instance that wrote the row.
    pub instance: Option<String>,
    /// Last heartbeat write.
    pub last_write_at: DateTime<Utc>,
    /// True when the last write is more than 2 hours old, whatever `state` says.
    pub stale: bool,
}

/// Every health row, by service name.
pub async fn health(pool: &PgPool) -> Result<Vec<HealthRow>> {
    Ok(sqlx::query_as(
        "SELECT service, state, checks, instance, last_write_at,
                last_write_at < now() - interval '2 hours' AS stale
         FROM service_health ORDER BY service",
    )
    .fetch_all(pool)
    .await?)
}

/// One trigger, or None.
pub async fn trigger(pool: &PgPool, id: i64) -> Result<Option<TriggerRow>> {
    Ok(sqlx::query_as(
        "SELECT id, job_type, status, created_at, created_by, claimed_at, finished_at, run_id,
                error
         FROM job_triggers WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?)
}

/// One run, or None.
pub async fn run(pool: &PgPool, id: i64) -> Result<Option<RunRow>> {
    Ok(sqlx::query_as(
        "SELECT id, type, status, cancel_requested, started_at, finished_at, updated_at, stats,
                error, trigger_id
         FROM crawl_run WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?)
}

/// One admin action on the band or one of its location rows.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = HistoryItem))]
pub struct HistoryRow {
    /// Audit id.
    pub id: i64,
    /// When.
    pub at: DateTime<Utc>,
    /// Admin.
    pub username: String,
    /// Action, e.g. `band.patch`, `band.unlock`, `location.patch`.
    pub action: String,
    /// `band:<ma_id>` or `location:<id>`.
    pub target: Option<String>,
    /// State before.
    pub before: Option<Value>,
    /// State after.
    pub after: Option<Value>,
}

/// Newest-first page of the audit rows of band `ma_id`: those targeting the band and those
/// targeting one of its current location rows; and the total.
pub async fn band_history(
    pool: &PgPool,
    ma_id: i64,
    limit: i64,
    offset: i64,
) -> Result<(Vec<HistoryRow>, i64)> {
    // The band's own rows and those of its current location rows.
    let total: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM admin_audit_log
         WHERE target = 'band:' || $1::text
            OR target IN (SELECT 'location:' || id FROM band_locations WHERE ma_id = $1)",
    )
    .bind(ma_id)
    .fetch_one(pool)
    .await?;
    let rows = sqlx::query_as(
        "SELECT id, at, username, action, target, before, after FROM admin_audit_log
         WHERE target = 'band:' || $1::text
            OR target IN (SELECT 'location:' || id FROM band_locations WHERE ma_id = $1)
         ORDER BY at DESC, id DESC LIMIT $2 OFFSET $3",
    )
    .bind(ma_id)
    .bind(limit)
    .bind(offset)
    .fetch_all(pool)
    .await?;
    Ok((rows, total))
}
