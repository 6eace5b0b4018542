//! `job_triggers`: job requests and the one claim pattern (STYLE habit 5):
//! `FOR UPDATE SKIP LOCKED`, filtered to the claimer's own types. Every function takes any
//! executor — the pool, or the caller's transaction so an admin write and its audit row
//! land in one commit. The lifecycle is described in [`crate::runs`].

use crate::Result;
use crate::runs::{JobType, TriggerStatus};
use sqlx::{Acquire, PgExecutor, Postgres};

/// A claimed trigger of a type the claimer runs.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Claimed {
    /// Trigger id.
    pub id: i64,
    /// Requested job type.
    pub job_type: JobType,
}

/// A claimed trigger of a type no service knows (its text as stored).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Unknown {
    /// Trigger id.
    pub id: i64,
    /// The requested type, as written.
    pub job_type: String,
}

/// Creates a pending trigger; returns its id.
pub async fn create(
    db: impl PgExecutor<'_>,
    job_type: JobType,
    created_by: Option<&str>,
) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "INSERT INTO job_triggers (job_type, created_by) VALUES ($1, $2) RETURNING id",
    )
    .bind(job_type)
    .bind(created_by)
    .fetch_one(db)
    .await?)
}

/// Creates a pending trigger of `job_type` unless one is already pending; returns the new
/// id, or None when one was waiting already. Used by services that hand work on (the
/// crawler asks for an enqueue scan after it changed the catalogue).
pub async fn request_once(
    db: impl PgExecutor<'_>,
    job_type: JobType,
    created_by: &str,
) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar(
        "INSERT INTO job_triggers (job_type, created_by)
         SELECT $1, $2
         WHERE NOT EXISTS (SELECT 1 FROM job_triggers WHERE job_type = $1 AND status = 'pending')
         RETURNING id",
    )
    .bind(job_type)
    .bind(created_by)
    .fetch_optional(db)
    .await?)
}

/// Claims the oldest pending trigger whose type is in `types`; two claimers never take the
/// same one.
pub async fn claim(db: impl PgExecutor<'_>, types: &[JobType]) -> Result<Option<Claimed>> {
    Ok(sqlx::query_as(
        "UPDATE job_triggers SET status = 'claimed', claimed_at = now()
         WHERE id = (SELECT id FROM job_triggers WHERE status = 'pending' AND job_type = ANY($1)
                     ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
         RETURNING id, job_type",
    )
    .bind(types)
    .fetch_optional(db)
    .await?)
}

/// Claims the oldest pending trigger whose type is not a [`JobType`] at all, so the
/// crawler can close it as an error (rule 9). Known types, whoever runs them, are never
/// taken.
pub async fn claim_unknown(db: impl PgExecutor<'_>) -> Result<Option<Unknown>> {
    Ok(sqlx::query_as(
        "UPDATE job_triggers SET status = 'claimed', claimed_at = now()
         WHERE id = (SELECT id FROM job_triggers WHERE status = 'pending' AND NOT (job_type = ANY($1))
                     ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
         RETURNING id, job_type",
    )
    .bind(JobType::ALL)
    .fetch_optional(db)
    .await?)
}

/// Records the run a claimed trigger started.
pub async fn attach_run(db: impl PgExecutor<'_>, trigger_id: i64, run_id: i64) -> Result<()> {
    sqlx::query("UPDATE job_triggers SET run_id = $2 WHERE id = $1")
        .bind(trigger_id)
        .bind(run_id)
        .execute(db)
        .await?;
    Ok(())
}

/// Closes a trigger still `claimed` with `status` (and the error text, if any); a trigger
/// already closed keeps its verdict. True when it was closed here.
pub async fn close_claimed(
    db: impl PgExecutor<'_>,
    trigger_id: i64,
    status: TriggerStatus,
    error: Option<&str>,
) -> Result<bool> {
    let r = sqlx::query(
        "UPDATE job_triggers SET status = $2, finished_at = now(), error = $3
         WHERE id = $1 AND status = 'claimed'",
    )
    .bind(trigger_id)
    .bind(status)
    .bind(error)
    .execute(db)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Closes a claimed trigger as `error` with a message (e.g. `unknown job_type`, or a job
/// that could not run). True when it was still claimed and is closed now.
pub async fn fail_if_claimed(
    db: impl PgExecutor<'_>,
    trigger_id: i64,
    message: &str,
) -> Result<bool> {
    close_claimed(db, trigger_id, TriggerStatus::Error, Some(message)).await
}

/// What cancelling a trigger did.
#[derive(Debug, PartialEq, Eq)]
pub enum CancelOutcome {
    /// It was pending and is now cancelled.
    Cancelled,
    /// It exists but is not pending.
    NotPending,
    /// No such trigger.
    NotFound,
}

/// Cancels a trigger that is still `pending`.
pub async fn cancel<'c>(
    db: impl Acquire<'c, Database = Postgres>,
    trigger_id: i64,
) -> Result<CancelOutcome> {
    let mut tx = db.begin().await?;
    let updated = sqlx::query(
        "UPDATE job_triggers SET status = 'cancelled', finished_at = now() WHERE id = $1 AND status = 'pending'",
    )
    .bind(trigger_id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if updated == 1 {
        tx.commit().await?;
        return Ok(CancelOutcome::Cancelled);
    }
    let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM job_triggers WHERE id = $1")
        .bind(trigger_id)
        .fetch_optional(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(if exists.is_some() {
        CancelOutcome::NotPending
    } else {
        CancelOutcome::NotFound
    })
}

/// Closes as `error` the triggers claimed more than 30 minutes ago that never got a run: the
/// instance that claimed them could not open one and could not record the failure either
/// (its database connection was gone), so nothing else would ever close them.
pub(crate) async fn close_runless(db: impl PgExecutor<'_>, reason: &str) -> Result<u64> {
    let done = sqlx::query(
        "UPDATE job_triggers SET status = 'error', finished_at = now(), error = $1
         WHERE status = 'claimed' AND run_id IS NULL
           AND claimed_at < now() - interval '30 minutes'",
    )
    .bind(reason)
    .execute(db)
    .await?;
    Ok(done.rows_affected())
}
