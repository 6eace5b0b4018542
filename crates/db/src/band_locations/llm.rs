//! The LLM worker's side of the lifecycle: its claim (a lease on an `llm_needed` row) and
//! its exits — `manual`, `error`, a retry with backoff, a postponement — each taking the
//! row's [`LlmLease`]. Its `done` is [`super::done::mark_done`] with
//! [`super::done::DoneBy::Llm`].
//!
//! The claim is a lease: one `llm_needed` row whose `next_attempt_at` has passed is picked
//! with `FOR UPDATE SKIP LOCKED` and its `next_attempt_at` pushed [`LEASE`] ahead, in one
//! statement; no transaction stays open during the API call, the row keeps its status (the
//! geocoder's self-repair of `processing` rows never touches it), and a worker that dies
//! mid-call simply lets the lease expire. Each claim draws a new token
//! (`band_locations.llm_lease`, from a sequence) that its [`LlmLease`] carries. Every exit
//! only applies while the row is still `llm_needed` (an admin may have reset or corrected
//! it meanwhile) *and* still carries that token (a worker whose lease expired while its
//! call ran, and whose row another worker re-claimed, must not write over the second
//! worker's result); otherwise it is refused (`false`) and the row is left as it is. Every
//! exit clears the token: a lease is good for one exit.

use super::status::GeocodeStatus;
use crate::Result;
use bandmap_time::Backoff;
use std::time::Duration;

/// How long a claimed row is hidden from other workers.
pub const LEASE: Duration = Duration::from_secs(15 * 60);

/// Delay before an LLM retry after failed attempt `n`: 60 s doubling, capped at 6 h. The
/// SQL of [`mark_retry`] evaluates it from the row's stored `attempts`.
pub const RETRY_BACKOFF: Backoff =
    Backoff::doubling(Duration::from_secs(60), Duration::from_secs(6 * 3600));

/// Proof of an LLM lease on a row: only [`claim`] makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct LlmLease {
    id: i64,
    llm_lease: i64,
}

impl LlmLease {
    /// The row id.
    #[must_use]
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The claim token the row must still carry for an exit to apply.
    #[must_use]
    pub fn token(&self) -> i64 {
        self.llm_lease
    }
}

/// A claimed row with what the prompt needs.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct LlmClaimed {
    /// Row id.
    pub id: i64,
    /// Band.
    pub ma_id: i64,
    /// Band name.
    pub band_name: String,
    /// The band's full location text.
    pub location_text: Option<String>,
    /// Place text of this step.
    pub location_raw: String,
    /// Country name.
    pub country: Option<String>,
    /// ISO alpha-2 code.
    pub country_code: Option<String>,
    /// The geocoder's last query when it handed the row over (`geocode_query`).
    pub geocode_query: Option<String>,
    /// The geocoder's error when it handed the row over (`geocode_error`). Not `error`:
    /// the LLM worker writes its own failures there, and quoting them back to the model
    /// would change the request (and its cache key) on every retry.
    pub geocode_error: Option<String>,
    /// Attempts so far.
    pub attempts: i32,
    /// The lease, for the exits.
    #[sqlx(flatten)]
    lease: LlmLease,
}

impl LlmClaimed {
    /// The lease the exits take.
    #[must_use]
    pub fn lease(&self) -> LlmLease {
        self.lease
    }
}

/// Claims the next due `llm_needed` row, if any.
pub async fn claim(conn: impl sqlx::PgExecutor<'_>) -> Result<Option<LlmClaimed>> {
    Ok(sqlx::query_as(
        "WITH due AS (
             SELECT id FROM band_locations
             WHERE geocode_status = 'llm_needed' AND next_attempt_at <= now()
             ORDER BY next_attempt_at, id
             LIMIT 1
             FOR UPDATE SKIP LOCKED
         )
         UPDATE band_locations bl
         SET next_attempt_at = now() + make_interval(secs => $1),
             llm_lease = nextval('band_locations_llm_lease_seq')
         FROM due, bands b
         WHERE bl.id = due.id AND b.ma_id = bl.ma_id
         RETURNING bl.id, bl.llm_lease, bl.ma_id, b.name AS band_name, b.location_text, bl.location_raw,
                   bl.country, bl.country_code, bl.geocode_query, bl.geocode_error,
                   bl.attempts",
    )
    .bind(LEASE.as_secs_f64())
    .fetch_optional(conn)
    .await?)
}

/// `manual` (waits for an admin) with the reason in `error` and the last query tried.
pub async fn mark_manual(
    conn: impl sqlx::PgExecutor<'_>,
    lease: &LlmLease,
    reason: &str,
    query: Option<&str>,
) -> Result<bool> {
    leave(conn, lease, GeocodeStatus::Manual, reason, query).await
}

/// `error`: the geocoder refused the city in a way retrying will not fix.
pub async fn mark_error(
    conn: impl sqlx::PgExecutor<'_>,
    lease: &LlmLease,
    error: &str,
) -> Result<bool> {
    leave(conn, lease, GeocodeStatus::Error, error, None).await
}

async fn leave(
    conn: impl sqlx::PgExecutor<'_>,
    lease: &LlmLease,
    to: GeocodeStatus,
    error: &str,
    query: Option<&str>,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE band_locations SET geocode_status = $2, error = $3,
             query = COALESCE($4, query), claimed_at = NULL, llm_lease = NULL
         WHERE id = $1 AND geocode_status = 'llm_needed' AND llm_lease = $5",
    )
    .bind(lease.id())
    .bind(to)
    .bind(error)
    .bind(query)
    .bind(lease.token())
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Stays `llm_needed`: `error` set, `attempts` + 1, and not retried before
/// [`RETRY_BACKOFF`] of the new attempt count from now.
pub async fn mark_retry(
    conn: impl sqlx::PgExecutor<'_>,
    lease: &LlmLease,
    error: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE band_locations SET error = $2, attempts = attempts + 1, llm_lease = NULL,
             next_attempt_at = now() + LEAST(
                 make_interval(secs => $3) * power(2, LEAST(GREATEST(attempts, 0), 20)),
                 make_interval(secs => $4))
         WHERE id = $1 AND geocode_status = 'llm_needed' AND llm_lease = $5",
    )
    .bind(lease.id())
    .bind(error)
    .bind(RETRY_BACKOFF.first.as_secs_f64())
    .bind(RETRY_BACKOFF.max.as_secs_f64())
    .bind(lease.token())
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The provider keeps both models off for a long time (a daily quota): the row stays
/// `llm_needed`, not retried before `wait` from now, `attempts` unchanged (no call was
/// made), `error` saying why.
pub async fn postpone(
    conn: impl sqlx::PgExecutor<'_>,
    lease: &LlmLease,
    wait: Duration,
    error: &str,
) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE band_locations SET error = $2, llm_lease = NULL,
             next_attempt_at = now() + make_interval(secs => $3)
         WHERE id = $1 AND geocode_status = 'llm_needed' AND llm_lease = $4",
    )
    .bind(lease.id())
    .bind(error)
    .bind(wait.as_secs_f64())
    .bind(lease.token())
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Rows waiting for the LLM worker now (`llm_needed`, due), for its heartbeat.
pub async fn due_count(conn: impl sqlx::PgExecutor<'_>) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT count(*) FROM band_locations
         WHERE geocode_status = 'llm_needed' AND next_attempt_at <= now()",
    )
    .fetch_one(conn)
    .await?)
}
