//! A provider's rate limit across processes (rule 14, issue 19 point 2): the table
//! `provider_pacing` (migration 019) holds, per provider key hash, the earliest instant the
//! next call may start. [`take_turn`] reserves the caller's slot atomically (the row lock of
//! the upsert serialises concurrent callers, whatever their process) and says how long to
//! wait for it. Slots are `spacing` apart, so call starts on one key are at least `spacing`
//! apart across every replica and service that uses it.

use crate::Result;
use sqlx::PgExecutor;
use std::time::Duration;

/// Reserves the next call slot of `key_hash` and returns how long the caller must wait
/// before starting its call (zero when the slot is now).
pub async fn take_turn(
    db: impl PgExecutor<'_>,
    key_hash: &str,
    spacing: Duration,
) -> Result<Duration> {
    let wait: f64 = sqlx::query_scalar(
        "WITH turn AS (
             INSERT INTO provider_pacing AS p (key_hash, next_at)
             VALUES ($1, clock_timestamp() + make_interval(secs => $2))
             ON CONFLICT (key_hash) DO UPDATE
                 SET next_at = GREATEST(p.next_at, clock_timestamp()) + make_interval(secs => $2)
             RETURNING p.next_at - make_interval(secs => $2) AS slot)
         SELECT GREATEST(EXTRACT(EPOCH FROM (slot - clock_timestamp())), 0)::float8 FROM turn",
    )
    .bind(key_hash)
    .bind(spacing.as_secs_f64())
    .fetch_one(db)
    .await?;
    Ok(Duration::try_from_secs_f64(wait).unwrap_or(Duration::ZERO))
}
