//! `job_triggers`: admin job requests and the one claim pattern (STYLE habit 5):
//! `FOR UPDATE SKIP LOCKED` in a transaction, filtered to the claimer's own types.

use crate::Result;
use sqlx::PgPool;

/// A claimed trigger.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Claimed {
    /// Trigger id.
    pub id: i64,
    /// Requested job type.
    pub job_type: String,
}

/// Creates a pending trigger.
pub async fn create(pool: &PgPool, job_type: &str, created_by: Option<&str>) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "INSERT INTO job_triggers (job_type, created_by) VALUES ($1, $2) RETURNING id",
    )
    .bind(job_type)
    .bind(created_by)
    .fetch_one(pool)
    .await?)
}

/// Claims the oldest pending trigger whose type is in `types`; two claimers never take the
/// same one.
pub async fn claim(pool: &PgPool, types: &[&str]) -> Result<Option<Claimed>> {
    Ok(sqlx::query_as(
        "UPDATE job_triggers SET status = 'claimed', claimed_at = now()
         WHERE id = (SELECT id FROM job_triggers WHERE status = 'pending' AND job_type = ANY($1)
                     ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
         RETURNING id, job_type",
    )
    .bind(types)
    .fetch_optional(pool)
    .await?)
}

/// Claims the oldest pending trigger whose type is NOT one of `known` — used by the crawler
/// to close unknown types as errors (rule 9). Types handled by other services must be in
/// `known` so they are never taken.
pub async fn claim_unknown(pool: &PgPool, known: &[&str]) -> Result<Option<Claimed>> {
    Ok(sqlx::query_as(
        "UPDATE job_triggers SET status = 'claimed', claimed_at = now()
         WHERE id = (SELECT id FROM job_triggers WHERE status = 'pending' AND NOT (job_type = ANY($1))
                     ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
         RETURNING id, job_type",
    )
    .bind(known)
    .fetch_optional(pool)
    .await?)
}

/// Records the run a claimed trigger started.
pub async fn attach_run(pool: &PgPool, trigger_id: i64, run_id: i64) -> Result<()> {
    sqlx::query("UPDATE job_triggers SET run_id = $2 WHERE id = $1")
        .bind(trigger_id)
        .bind(run_id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Closes a claimed trigger as an error with a message (e.g. `unknown job_type`).
pub async fn fail(pool: &PgPool, trigger_id: i64, message: &str) -> Result<()> {
    sqlx::query(
        "UPDATE job_triggers SET status = 'error', error = $2, finished_at = now() WHERE id = $1",
    )
    .bind(trigger_id)
    .bind(message)
    .execute(pool)
    .await?;
    Ok(())
}

/// Closes a trigger as an error with a message if it is still `claimed` (a trigger its run
/// already closed keeps that run's verdict). True when it was closed here.
pub async fn fail_if_claimed(pool: &PgPool, trigger_id: i64, message: &str) -> Result<bool> {
    let r = sqlx::query(
        "UPDATE job_triggers SET status = 'error', error = $2, finished_at = now()
         WHERE id = $1 AND status = 'claimed'",
    )
    .bind(trigger_id)
    .bind(message)
    .execute(pool)
    .await?;
    Ok(r.rows_affected() == 1)
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

/// Cancels a pending trigger.
pub async fn cancel(pool: &PgPool, trigger_id: i64) -> Result<CancelOutcome> {
    let updated = sqlx::query(
        "UPDATE job_triggers SET status = 'cancelled', finished_at = now() WHERE id = $1 AND status = 'pending'",
    )
    .bind(trigger_id)
    .execute(pool)
    .await?
    .rows_affected();
    if updated == 1 {
        return Ok(CancelOutcome::Cancelled);
    }
    let exists: Option<i64> = sqlx::query_scalar("SELECT id FROM job_triggers WHERE id = $1")
        .bind(trigger_id)
        .fetch_optional(pool)
        .await?;
    Ok(if exists.is_some() {
        CancelOutcome::NotPending
    } else {
        CancelOutcome::NotFound
    })
}

/// Creates a pending trigger of `job_type` unless one is already pending; returns the new
/// id, or None when one was waiting already. Used by services that hand work on (the
/// crawler asks for an enqueue scan after it changed the catalogue).
pub async fn request_once(pool: &PgPool, job_type: &str, created_by: &str) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar(
        "INSERT INTO job_triggers (job_type, created_by)
         SELECT $1, $2
         WHERE NOT EXISTS (SELECT 1 FROM job_triggers WHERE job_type = $1 AND status = 'pending')
         RETURNING id",
    )
    .bind(job_type)
    .bind(created_by)
    .fetch_optional(pool)
    .await?)
}
