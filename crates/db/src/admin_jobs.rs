//! Admin writes on `job_triggers` and `crawl_run`, on the caller's transaction so the audit
//! row lands in the same commit. They mean exactly what [`crate::jobs::create`] and
//! [`crate::jobs::cancel`] mean (same statements), plus the cooperative cancel of a run:
//! the API only raises `cancel_requested`; the job itself writes the final status
//! (rule 10).

use crate::Result;
use crate::jobs::CancelOutcome;
use sqlx::PgConnection;

/// Job types an admin may request (SPEC "job request creation").
pub const JOB_TYPES: [&str; 4] = ["enrich", "incremental", "full_crawl", "geocoder_enqueue"];

/// `job_triggers.status` values (CONTRACT §3).
pub const TRIGGER_STATUSES: [&str; 5] = ["pending", "claimed", "done", "error", "cancelled"];

/// Creates a pending trigger; returns its id.
pub async fn create_trigger(
    conn: &mut PgConnection,
    job_type: &str,
    created_by: &str,
) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "INSERT INTO job_triggers (job_type, created_by) VALUES ($1, $2) RETURNING id",
    )
    .bind(job_type)
    .bind(created_by)
    .fetch_one(conn)
    .await?)
}

/// Cancels a trigger that is still `pending`.
pub async fn cancel_trigger(conn: &mut PgConnection, id: i64) -> Result<CancelOutcome> {
    let status: Option<String> =
        sqlx::query_scalar("SELECT status FROM job_triggers WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    match status.as_deref() {
        None => Ok(CancelOutcome::NotFound),
        Some("pending") => {
            sqlx::query(
                "UPDATE job_triggers SET status = 'cancelled', finished_at = now() WHERE id = $1",
            )
            .bind(id)
            .execute(conn)
            .await?;
            Ok(CancelOutcome::Cancelled)
        }
        Some(_) => Ok(CancelOutcome::NotPending),
    }
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

/// Raises `cancel_requested` on a running run. Never touches `status`.
pub async fn request_run_cancel(conn: &mut PgConnection, id: i64) -> Result<RunCancel> {
    let row: Option<(String, bool)> =
        sqlx::query_as("SELECT status, cancel_requested FROM crawl_run WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    match row.as_ref().map(|(s, c)| (s.as_str(), *c)) {
        None => Ok(RunCancel::NotFound),
        Some(("running", was_requested)) => {
            sqlx::query(
                "UPDATE crawl_run SET cancel_requested = TRUE, updated_at = now() WHERE id = $1",
            )
            .bind(id)
            .execute(conn)
            .await?;
            Ok(RunCancel::Requested { was_requested })
        }
        Some(_) => Ok(RunCancel::NotRunning),
    }
}
