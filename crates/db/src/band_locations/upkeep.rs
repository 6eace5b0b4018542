//! Upkeep of the geocoder's queue, outside any claim: the self-repair of rows stuck in
//! `processing` (their worker died), waking rows that waited for a provider, and the
//! queue figures of the heartbeat.

use crate::Result;
use chrono::{DateTime, Utc};
use std::time::Duration;

/// `error` of a row whose worker stopped while processing it (self-repair).
pub const STUCK_ERROR: &str = "the geocoder stopped while processing this row";

/// Self-repair: rows `processing` for longer than `older_than` (their worker died) count a
/// failed attempt — a row that crashes the worker must not be re-claimed forever (issue
/// 18) — and go back to `pending`, due now; one whose attempts reach
/// [`super::exits::MAX_ATTEMPTS`] goes to `error` instead (an admin re-queues it after a
/// fix; not to the LLM worker, which shares the process under `bandmap all`). `error`
/// says why. Returns how many rows were repaired.
pub async fn repair_stuck(conn: impl sqlx::PgExecutor<'_>, older_than: Duration) -> Result<u64> {
    Ok(sqlx::query(
        "UPDATE band_locations SET claimed_at = NULL, next_attempt_at = now(),
             attempts = attempts + 1, error = $2, wait_count = 0,
             geocode_status = CASE WHEN attempts + 1 >= $3 THEN $4 ELSE $5 END
         WHERE geocode_status = 'processing'
           AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $1))",
    )
    .bind(older_than.as_secs_f64())
    .bind(STUCK_ERROR)
    .bind(super::exits::MAX_ATTEMPTS)
    .bind(super::status::GeocodeStatus::Error)
    .bind(super::status::GeocodeStatus::Pending)
    .execute(conn)
    .await?
    .rows_affected())
}

/// Queue figures for the heartbeat's progress check.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Progress {
    /// Rows `pending` (due or waiting for their backoff).
    pub pending: i64,
    /// Last change of a row that left the queue (`done`, `llm_needed`, `error`, …).
    pub last_finished: Option<DateTime<Utc>>,
}

/// Reads [`Progress`].
pub async fn progress(conn: impl sqlx::PgExecutor<'_>) -> Result<Progress> {
    Ok(sqlx::query_as(
        "SELECT count(*) FILTER (WHERE geocode_status = 'pending') AS pending,
                max(updated_at) FILTER (WHERE geocode_status NOT IN ('pending', 'processing'))
                    AS last_finished
         FROM band_locations",
    )
    .fetch_one(conn)
    .await?)
}

/// Makes rows that wait for a provider (their `error` starts with `prefix`) due now; used
/// at start when a provider is configured.
pub async fn wake_waiting(conn: impl sqlx::PgExecutor<'_>, prefix: &str) -> Result<u64> {
    Ok(sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now(), wait_count = 0
         WHERE geocode_status = 'pending' AND next_attempt_at > now()
           AND starts_with(error, $1)",
    )
    .bind(prefix)
    .execute(conn)
    .await?
    .rows_affected())
}
