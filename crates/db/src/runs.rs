//! Runs and triggers: one lifecycle for every job (crawls and enqueue scans).
//!
//! **Lifecycle.** A job request is a `job_triggers` row ([`crate::triggers`]): created
//! `pending` (by an admin, or by the crawler asking for an enqueue scan), then `claimed` by
//! the one service that runs its [`JobType`] (`FOR UPDATE SKIP LOCKED`; the crawler closes a
//! type nobody knows as `error`, rule 9), or `cancelled` by an admin while still pending.
//! Every execution of a job — requested or scheduled — is one `crawl_run` row, and the job
//! holds it as a [`Run`]: [`Run::start`] opens it `running`, owned by the instance's
//! advisory lock ([`Owner`], [`crate::run_owner`]) and recorded on its trigger; the job
//! appends `crawl_log` lines ([`Run::log`]), publishes its typed statistics
//! ([`stats`], [`Run::write_stats`]) and at each batch asks [`Run::check`] whether to stop
//! (the admin raised `cancel_requested`, or someone closed the run under it); it ends with
//! [`Run::close`] and one [`End`] (why it stopped), which maps to one final
//! [`RunStatus`] — `success`, `cancelled` (admin cancel only), `interrupted` (the service
//! shut down) or `error` — and one closing log line; the status closes its trigger in the same
//! transaction ([`RunStatus::trigger_status`]: `done` after success or cancel, `error`
//! otherwise). A run whose process died is closed `interrupted` by any instance's start
//! recovery once its owner's lock is gone ([`recover_orphaned`]), or by the admin cleanup
//! once it made no progress for 30 minutes and has no live owner ([`cleanup_stuck`]); its claimed trigger becomes `error`. Only a
//! `running` run is ever closed, so the first closer wins and a job that finds its run
//! closed under it stops without writing ([`Run::abandon`]).

mod end;
mod kinds;
mod recovery;
mod run;
pub mod stats;
pub(crate) mod text_enum;

pub use end::End;
pub use kinds::{JobType, Level, RunStatus, TriggerStatus};
pub use recovery::{cleanup_stuck, recover_orphaned};
pub use run::Run;
pub use text_enum::UnknownValue;

use crate::Result;
use sqlx::{Acquire, PgExecutor, Postgres};

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

/// Appends a log line to a run (or a free line when `run_id` is None).
pub async fn log(
    db: impl PgExecutor<'_>,
    run_id: Option<i64>,
    level: Level,
    message: &str,
) -> Result<i64> {
    let id = sqlx::query_scalar(
        "INSERT INTO crawl_log (run_id, level, message) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(run_id)
    .bind(level)
    .bind(message)
    .fetch_one(db)
    .await?;
    Ok(id)
}

/// The latest run of one of `types` that finished: its id, status and age in hours (the
/// crawler's heartbeat).
pub async fn last_finished(
    db: impl PgExecutor<'_>,
    types: &[JobType],
) -> Result<Option<(i64, RunStatus, f64)>> {
    Ok(sqlx::query_as(
        "SELECT id, status, EXTRACT(EPOCH FROM now() - finished_at)::float8 / 3600
         FROM crawl_run
         WHERE type = ANY($1) AND finished_at IS NOT NULL
         ORDER BY finished_at DESC LIMIT 1",
    )
    .bind(types)
    .fetch_optional(db)
    .await?)
}

/// The run's status and cancel flag; None when there is no such run.
pub async fn state(db: impl PgExecutor<'_>, run_id: i64) -> Result<Option<(RunStatus, bool)>> {
    Ok(
        sqlx::query_as("SELECT status, cancel_requested FROM crawl_run WHERE id = $1")
            .bind(run_id)
            .fetch_optional(db)
            .await?,
    )
}

/// Whether the run is still `running` (false once cleanup or recovery closed it).
pub async fn still_running(db: impl PgExecutor<'_>, run_id: i64) -> Result<bool> {
    Ok(matches!(
        state(db, run_id).await?,
        Some((RunStatus::Running, _))
    ))
}

/// Reads the cooperative cancel flag (rule 10).
pub async fn cancel_requested(db: impl PgExecutor<'_>, run_id: i64) -> Result<bool> {
    Ok(state(db, run_id).await?.is_some_and(|(_, flag)| flag))
}

/// What asking a run to stop did.
#[derive(Debug, PartialEq, Eq)]
pub enum RunCancel {
    /// The run is `running` and its flag is now raised; `was_requested` tells whether it
    /// already was (the audit's "before").
    Requested {
        /// The flag's value before this request.
        was_requested: bool,
    },
    /// The run exists but is not `running`.
    NotRunning,
    /// No such run.
    NotFound,
}

/// Raises `cancel_requested` on a running run (the admin's cancel, rule 10). Never touches
/// `status`: the job writes its final status itself.
pub async fn request_cancel<'c>(
    db: impl Acquire<'c, Database = Postgres>,
    run_id: i64,
) -> Result<RunCancel> {
    let mut tx = db.begin().await?;
    let row: Option<(RunStatus, bool)> =
        sqlx::query_as("SELECT status, cancel_requested FROM crawl_run WHERE id = $1 FOR UPDATE")
            .bind(run_id)
            .fetch_optional(&mut *tx)
            .await?;
    let outcome = match row {
        None => RunCancel::NotFound,
        Some((RunStatus::Running, was_requested)) => {
            sqlx::query(
                "UPDATE crawl_run SET cancel_requested = TRUE, updated_at = now() WHERE id = $1",
            )
            .bind(run_id)
            .execute(&mut *tx)
            .await?;
            RunCancel::Requested { was_requested }
        }
        Some(_) => RunCancel::NotRunning,
    };
    tx.commit().await?;
    Ok(outcome)
}
