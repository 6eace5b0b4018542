//! Login lockout (CONTRACT §5): once 5 failures fall within 15 minutes for one username
//! (any case) or one client address, further attempts answer 429 until enough of them
//! leave the window, even with the right password.
//!
//! Every attempt is written to `admin_login_attempts` *before* the password is checked,
//! as a failure, and flipped to success afterwards. Check and insert happen under one
//! transaction-scoped advisory lock, so parallel guesses cannot slip past the limit.
//! Locked-out attempts are recorded too, flagged `locked_out`: they are not failures (no
//! password was checked), so retrying during a lockout does not extend it and a client
//! that waits `Retry-After` seconds is let in. Successes do not reset the count.

use chrono::{DateTime, Duration, Utc};
use sqlx::{PgConnection, PgPool};

/// Failures tolerated inside the window.
pub const MAX_FAILURES: i64 = 5;
/// Length of the window.
pub const WINDOW_MINUTES: i64 = 15;
/// Advisory-lock key serialising the check-and-record step of every login.
const LOCK_KEY: i64 = 0x6261_6e64_6c6f_6769; // "bandlogi"

/// What the gate decided for one attempt (already recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// The attempt may check the password; `attempt_id` is its row.
    Open {
        /// Row of the attempt in `admin_login_attempts`.
        attempt_id: i64,
    },
    /// Locked out: retry after this many seconds.
    Locked {
        /// Seconds until the count drops below the limit.
        retry_after_secs: u64,
    },
}

fn window() -> Duration {
    Duration::minutes(WINDOW_MINUTES)
}

/// The instant at which the failures of one key stop locking: the `MAX_FAILURES`-th most
/// recent failure in the window leaves it then. None when not locked.
async fn unlock_at(
    conn: &mut PgConnection,
    by_ip: bool,
    key: &str,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, sqlx::Error> {
    let sql = if by_ip {
        "SELECT at FROM admin_login_attempts
         WHERE ip = $1 AND NOT success AND NOT locked_out AND at > $2
         ORDER BY at DESC OFFSET $3 LIMIT 1"
    } else {
        "SELECT at FROM admin_login_attempts
         WHERE lower(username) = lower($1) AND NOT success AND NOT locked_out AND at > $2
         ORDER BY at DESC OFFSET $3 LIMIT 1"
    };
    let at: Option<DateTime<Utc>> = sqlx::query_scalar(sql)
        .bind(key)
        .bind(now - window())
        .bind(MAX_FAILURES - 1)
        .fetch_optional(conn)
        .await?;
    Ok(at.map(|at| at + window()))
}

/// Checks the lockout for `username` and `ip`, then records the attempt (as a failure until
/// [`mark_success`] says otherwise).
pub async fn begin_attempt(
    pool: &PgPool,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Gate, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LOCK_KEY)
        .execute(&mut *tx)
        .await?;
    let mut until = unlock_at(&mut tx, false, username, now).await?;
    if let Some(ip) = ip {
        until = until.max(unlock_at(&mut tx, true, ip, now).await?);
    }
    let attempt_id: i64 = sqlx::query_scalar(
        "INSERT INTO admin_login_attempts (username, ip, at, success, locked_out)
         VALUES ($1, $2, $3, FALSE, $4) RETURNING id",
    )
    .bind(username)
    .bind(ip)
    .bind(now)
    .bind(until.is_some())
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(match until {
        Some(t) => {
            let ms = u64::try_from((t - now).num_milliseconds()).unwrap_or(0);
            Gate::Locked {
                retry_after_secs: ms.div_ceil(1000).max(1),
            }
        }
        None => Gate::Open { attempt_id },
    })
}

/// Records an attempt that is refused before the gate (authentication not configured).
pub async fn record_failure(
    pool: &PgPool,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO admin_login_attempts (username, ip, at, success) VALUES ($1, $2, $3, FALSE)",
    )
    .bind(username)
    .bind(ip)
    .bind(now)
    .execute(pool)
    .await?;
    Ok(())
}

/// Marks an attempt as successful (it then no longer counts towards a lockout).
pub async fn mark_success(pool: &PgPool, attempt_id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE admin_login_attempts SET success = TRUE WHERE id = $1")
        .bind(attempt_id)
        .execute(pool)
        .await?;
    Ok(())
}
