//! `crawl_run` and `crawl_log`: one row per job execution (crawls and enqueue scans), its
//! progress statistics, its cooperative cancel flag, and its log lines.

use crate::Result;
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use std::fmt;

/// `crawl_run.type` values (CONTRACT §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunType {
    /// Incremental crawl.
    Incremental,
    /// Enrichment.
    Enrich,
    /// Full crawl.
    FullCrawl,
    /// Enqueue scan.
    GeocoderEnqueue,
}

impl RunType {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunType::Incremental => "incremental",
            RunType::Enrich => "enrich",
            RunType::FullCrawl => "full_crawl",
            RunType::GeocoderEnqueue => "geocoder_enqueue",
        }
    }

    /// Parses a stored or requested name.
    pub fn parse(s: &str) -> Option<RunType> {
        match s {
            "incremental" => Some(RunType::Incremental),
            "enrich" => Some(RunType::Enrich),
            "full_crawl" => Some(RunType::FullCrawl),
            "geocoder_enqueue" => Some(RunType::GeocoderEnqueue),
            _ => None,
        }
    }
}

impl fmt::Display for RunType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Final `crawl_run.status` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// Finished.
    Success,
    /// The job could not continue.
    Error,
    /// Stopped at the admin's request (written by the job itself, rule 10).
    Cancelled,
    /// Stopped without finishing, not at the admin's request (the service shut down).
    Interrupted,
}

impl RunEnd {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunEnd::Success => "success",
            RunEnd::Error => "error",
            RunEnd::Cancelled => "cancelled",
            RunEnd::Interrupted => "interrupted",
        }
    }

    /// The status of the trigger that started a run ending so (CONTRACT §11): `done` for
    /// success or an admin cancel; `error` otherwise, as the job did not do its work.
    pub fn trigger_status(self) -> &'static str {
        match self {
            RunEnd::Success | RunEnd::Cancelled => "done",
            RunEnd::Error | RunEnd::Interrupted => "error",
        }
    }
}

/// Log levels of `crawl_log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Detail.
    Debug,
    /// Normal progress.
    Info,
    /// A per-item failure.
    Warn,
    /// A run failure.
    Error,
}

impl Level {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// Opens a run in `running`, with no owner (any instance's start recovery may close it).
pub async fn start(pool: &PgPool, kind: RunType, trigger_id: Option<i64>) -> Result<i64> {
    start_owned(pool, kind, trigger_id, None).await
}

/// The advisory-lock class (first key of `pg_try_advisory_lock(int4, int4)`) of run owners;
/// the second key is the owner's [`Owner::lock`]. "bmcr" in ASCII.
pub const CRAWL_OWNER_LOCK_CLASS: i32 = 0x62_6d_63_72;

/// The live instance that runs a run: its name, and the key of the session advisory lock it
/// holds for its lifetime ([`try_lock_owner`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// Human-readable instance id (logs, admin).
    pub name: String,
    /// Second key of the advisory lock (class [`CRAWL_OWNER_LOCK_CLASS`]); non-negative.
    pub lock: i32,
}

/// Takes the owner lock `lock` on `conn`'s session; false when another session holds it.
/// The lock lives as long as that connection: keep it open while the instance runs.
pub async fn try_lock_owner(conn: &mut sqlx::PgConnection, lock: i32) -> Result<bool> {
    Ok(sqlx::query_scalar("SELECT pg_try_advisory_lock($1, $2)")
        .bind(CRAWL_OWNER_LOCK_CLASS)
        .bind(lock)
        .fetch_one(conn)
        .await?)
}

/// Opens a run in `running` owned by `owner` (None: no owner).
pub async fn start_owned(
    pool: &PgPool,
    kind: RunType,
    trigger_id: Option<i64>,
    owner: Option<&Owner>,
) -> Result<i64> {
    let id = sqlx::query_scalar(
        "INSERT INTO crawl_run (type, status, trigger_id, owner, owner_lock)
         VALUES ($1, 'running', $2, $3, $4) RETURNING id",
    )
    .bind(kind.as_str())
    .bind(trigger_id)
    .bind(owner.map(|o| o.name.as_str()))
    .bind(owner.map(|o| o.lock))
    .fetch_one(pool)
    .await?;
    Ok(id)
}

/// Replaces the progress statistics of a running run.
pub async fn write_stats(pool: &PgPool, run_id: i64, stats: &Value) -> Result<()> {
    sqlx::query("UPDATE crawl_run SET stats = $2, updated_at = now() WHERE id = $1")
        .bind(run_id)
        .bind(stats)
        .execute(pool)
        .await?;
    Ok(())
}

/// Whether the run is still `running` (false once cleanup or recovery closed it).
pub async fn still_running(pool: &PgPool, run_id: i64) -> Result<bool> {
    let status: Option<String> = sqlx::query_scalar("SELECT status FROM crawl_run WHERE id = $1")
        .bind(run_id)
        .fetch_optional(pool)
        .await?;
    Ok(status.as_deref() == Some("running"))
}

/// Reads the cooperative cancel flag (rule 10).
pub async fn cancel_requested(pool: &PgPool, run_id: i64) -> Result<bool> {
    let flag: Option<bool> =
        sqlx::query_scalar("SELECT cancel_requested FROM crawl_run WHERE id = $1")
            .bind(run_id)
            .fetch_optional(pool)
            .await?;
    Ok(flag.unwrap_or(false))
}

/// Closes a run with its final status, statistics and error text; also closes the trigger
/// that started it ([`RunEnd::trigger_status`]).
/// Only a run still `running` is closed, so a run closed by cleanup is not reopened.
pub async fn finish(
    pool: &PgPool,
    run_id: i64,
    end: RunEnd,
    stats: &Value,
    error: Option<&str>,
) -> Result<()> {
    let mut tx = pool.begin().await?;
    let trigger: Option<Option<i64>> = sqlx::query_scalar(
        "UPDATE crawl_run SET status = $2, stats = $3, error = $4, finished_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'running' RETURNING trigger_id",
    )
    .bind(run_id)
    .bind(end.as_str())
    .bind(stats)
    .bind(error)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(Some(trigger_id)) = trigger {
        let status = end.trigger_status();
        sqlx::query(
            "UPDATE job_triggers SET status = $2, finished_at = now(), error = $3
             WHERE id = $1 AND status = 'claimed'",
        )
        .bind(trigger_id)
        .bind(status)
        .bind(error)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Appends a log line to a run (or a free line when `run_id` is None).
pub async fn log(pool: &PgPool, run_id: Option<i64>, level: Level, message: &str) -> Result<i64> {
    let id = sqlx::query_scalar(
        "INSERT INTO crawl_log (run_id, level, message) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(run_id)
    .bind(level.as_str())
    .bind(message)
    .fetch_one(pool)
    .await?;
    Ok(id)
}

/// Rule 7 with several live instances: closes as `interrupted` the runs of the given types
/// left `running` by a dead instance only (returns how many) — runs with no owner, or whose owner's advisory
/// lock no session holds any more (its process or connection is gone). Runs of a live
/// replica are left alone.
pub async fn recover_orphaned(pool: &PgPool, types: &[RunType], reason: &str) -> Result<u64> {
    let names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
    close_interrupted(pool, &names, Scope::Orphaned, reason).await
}

/// Which `running` runs a closing statement takes.
#[derive(Debug, Clone, Copy)]
enum Scope {
    StartedOver30MinAgo,
    Orphaned,
}

/// Closes runs of any type started more than 30 minutes ago and still `running` (the admin
/// cleanup, SPEC "run older than 30 minutes"). A job whose run was closed under it notices
/// at its next batch through [`still_running`] and stops.
pub async fn cleanup_stuck(pool: &PgPool, reason: &str) -> Result<u64> {
    let mut tx = pool.begin().await?;
    let closed = cleanup_stuck_in(&mut tx, reason).await?;
    tx.commit().await?;
    Ok(closed)
}

/// [`cleanup_stuck`] on the caller's transaction, so the admin API commits the closing and
/// its audit row together.
pub async fn cleanup_stuck_in(conn: &mut PgConnection, reason: &str) -> Result<u64> {
    let all = ["incremental", "enrich", "full_crawl", "geocoder_enqueue"];
    let closed = close_interrupted_in(conn, &all, Scope::StartedOver30MinAgo, reason).await?;
    let orphaned = close_runless_triggers_in(conn, reason).await?;
    if orphaned > 0 {
        tracing::warn!(
            triggers = orphaned,
            "claimed triggers that never got a run closed"
        );
    }
    Ok(closed)
}

/// Closes as `error` the triggers claimed more than 30 minutes ago that never got a run: the
/// instance that claimed them could not open one and could not record the failure either
/// (its database connection was gone), so nothing else would ever close them.
async fn close_runless_triggers_in(conn: &mut PgConnection, reason: &str) -> Result<u64> {
    let done = sqlx::query(
        "UPDATE job_triggers SET status = 'error', finished_at = now(), error = $1
         WHERE status = 'claimed' AND run_id IS NULL
           AND claimed_at < now() - interval '30 minutes'",
    )
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

async fn close_interrupted(
    pool: &PgPool,
    types: &[&str],
    scope: Scope,
    reason: &str,
) -> Result<u64> {
    let mut tx = pool.begin().await?;
    let closed = close_interrupted_in(&mut tx, types, scope, reason).await?;
    tx.commit().await?;
    Ok(closed)
}

async fn close_interrupted_in(
    tx: &mut PgConnection,
    types: &[&str],
    scope: Scope,
    reason: &str,
) -> Result<u64> {
    let (only_old, only_orphaned) = match scope {
        Scope::StartedOver30MinAgo => (true, false),
        Scope::Orphaned => (false, true),
    };
    // pg_locks shows a two-key advisory lock as classid = key 1, objid = key 2, objsubid 2;
    // owner_lock is non-negative, so its oid value equals it.
    let closed: Vec<(i64, Option<i64>)> = sqlx::query_as(
        "UPDATE crawl_run r SET status = 'interrupted', error = $2, finished_at = now(), updated_at = now()
         WHERE r.type = ANY($1) AND r.status = 'running'
           AND (NOT $3 OR r.started_at < now() - interval '30 minutes')
           AND (NOT $4 OR r.owner_lock IS NULL OR NOT EXISTS (
                SELECT 1 FROM pg_locks l
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND l.classid::bigint = $5 AND l.objid::bigint = r.owner_lock))
         RETURNING r.id, r.trigger_id",
    )
    .bind(types)
    .bind(reason)
    .bind(only_old)
    .bind(only_orphaned)
    .bind(i64::from(CRAWL_OWNER_LOCK_CLASS))
    .fetch_all(&mut *tx)
    .await?;
    let triggers: Vec<i64> = closed.iter().filter_map(|(_, t)| *t).collect();
    sqlx::query(
        "UPDATE job_triggers SET status = 'error', finished_at = now(), error = $2
         WHERE id = ANY($1) AND status = 'claimed'",
    )
    .bind(&triggers)
    .bind(reason)
    .execute(&mut *tx)
    .await?;
    for (run_id, _) in &closed {
        sqlx::query("INSERT INTO crawl_log (run_id, level, message) VALUES ($1, 'warn', $2)")
            .bind(run_id)
            .bind(format!("run closed as interrupted: {reason}"))
            .execute(&mut *tx)
            .await?;
    }
    Ok(closed.len() as u64)
}
