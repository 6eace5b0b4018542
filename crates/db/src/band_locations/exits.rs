//! The geocoder's other exits of a claimed row (its `done` is [`super::done`]): retry with
//! backoff (CONTRACT §11) or hand to the LLM (rule 18), `error`, waiting without consuming
//! an attempt, and giving a claim back unprocessed. Each takes the row's [`GeocodeClaim`]
//! and applies only while the row is still `processing` under it; otherwise it is refused
//! (`None` / `false`) and the row is left as it is.

use super::claim::GeocodeClaim;
use super::status::GeocodeStatus;
use crate::Result;
use bandmap_time::Backoff;
use chrono::{DateTime, Utc};
use std::time::Duration;

/// Failed attempts after which a row goes to the LLM worker (rule 18).
pub const MAX_ATTEMPTS: i32 = 3;

/// Delay before a geocoder retry after failed attempt `n`: 30 s doubling, capped at 10 min.
/// The SQL of [`record_failure`] evaluates it from the row's stored `attempts`.
pub const RETRY_BACKOFF: Backoff =
    Backoff::doubling(Duration::from_secs(30), Duration::from_secs(10 * 60));

/// Where a failed row went.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct FailedTo {
    /// [`GeocodeStatus::Pending`] (retry later) or [`GeocodeStatus::LlmNeeded`].
    pub geocode_status: GeocodeStatus,
    /// Attempts after this one.
    pub attempts: i32,
}

/// A failed attempt (rule 18, CONTRACT §11): `attempts` + 1 and `error` = the real error;
/// handed to the LLM (`llm_needed`, due now) when `to_llm` (every fallback failed) or after
/// [`MAX_ATTEMPTS`], otherwise a retry: back to `pending`, not before
/// [`RETRY_BACKOFF`] of the new attempt count.
pub async fn record_failure(
    conn: impl sqlx::PgExecutor<'_>,
    claim: &GeocodeClaim,
    error: &str,
    to_llm: bool,
) -> Result<Option<FailedTo>> {
    Ok(sqlx::query_as(
        "UPDATE band_locations SET
             attempts = attempts + 1, error = $3, claimed_at = NULL, wait_count = 0,
             llm_lease = NULL,
             geocode_status = CASE WHEN $4 OR attempts + 1 >= $5 THEN $6 ELSE $7 END,
             next_attempt_at = CASE WHEN $4 OR attempts + 1 >= $5 THEN now()
                                    ELSE now() + LEAST(make_interval(secs => $8) * power(2, LEAST(attempts, 30)),
                                                       make_interval(secs => $9)) END
         WHERE id = $1 AND geocode_status = 'processing' AND claimed_at = $2
         RETURNING geocode_status, attempts",
    )
    .bind(claim.id())
    .bind(claim.claimed_at())
    .bind(error)
    .bind(to_llm)
    .bind(MAX_ATTEMPTS)
    .bind(GeocodeStatus::LlmNeeded)
    .bind(GeocodeStatus::Pending)
    .bind(RETRY_BACKOFF.first.as_secs_f64())
    .bind(RETRY_BACKOFF.max.as_secs_f64())
    .fetch_optional(conn)
    .await?)
}

/// A refusal retrying will not fix, or processing that raised: `error` with the message.
pub async fn mark_error(
    conn: impl sqlx::PgExecutor<'_>,
    claim: &GeocodeClaim,
    error: &str,
) -> Result<bool> {
    Ok(sqlx::query(
        "UPDATE band_locations SET geocode_status = 'error', error = $3,
             attempts = attempts + 1, claimed_at = NULL, wait_count = 0
         WHERE id = $1 AND geocode_status = 'processing' AND claimed_at = $2",
    )
    .bind(claim.id())
    .bind(claim.claimed_at())
    .bind(error)
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// Nothing could decide the row now (no provider): back to `pending`, `attempts`
/// unchanged, `error` says why. The delay grows with each consecutive wait of the row
/// (`wait_count`): `first × 2^wait_count`, capped at `max`, so rows nobody can decide stop
/// being re-claimed every few minutes forever. Any other exit resets `wait_count`.
pub async fn wait(
    conn: impl sqlx::PgExecutor<'_>,
    claim: &GeocodeClaim,
    reason: &str,
    first: Duration,
    max: Duration,
) -> Result<bool> {
    Ok(sqlx::query(
        "UPDATE band_locations SET geocode_status = 'pending', error = $3, claimed_at = NULL,
             next_attempt_at = now() + LEAST(make_interval(secs => $4) * power(2, LEAST(wait_count, 30)),
                                             make_interval(secs => $5)),
             wait_count = wait_count + 1
         WHERE id = $1 AND geocode_status = 'processing' AND claimed_at = $2",
    )
    .bind(claim.id())
    .bind(claim.claimed_at())
    .bind(reason)
    .bind(first.as_secs_f64())
    .bind(max.as_secs_f64())
    .execute(conn)
    .await?
    .rows_affected()
        == 1)
}

/// Gives claimed rows back unprocessed: `pending`, due now, attempts and `error` unchanged
/// (only while still ours). Used when a batch runs out of its time budget.
pub async fn release(conn: impl sqlx::PgExecutor<'_>, claims: &[GeocodeClaim]) -> Result<u64> {
    if claims.is_empty() {
        return Ok(0);
    }
    let ids: Vec<i64> = claims.iter().map(GeocodeClaim::id).collect();
    let ats: Vec<DateTime<Utc>> = claims.iter().map(GeocodeClaim::claimed_at).collect();
    Ok(sqlx::query(
        "UPDATE band_locations b SET geocode_status = 'pending', claimed_at = NULL,
             next_attempt_at = now()
         FROM UNNEST($1::bigint[], $2::timestamptz[]) AS r(id, claimed_at)
         WHERE b.id = r.id AND b.geocode_status = 'processing' AND b.claimed_at = r.claimed_at",
    )
    .bind(&ids)
    .bind(&ats)
    .execute(conn)
    .await?
    .rows_affected())
}
