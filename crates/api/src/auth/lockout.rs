//! Login lockout (CONTRACT §5): once 5 failures fall within 15 minutes for one username
//! (any case) or one client address, further attempts answer 429 until enough of them
//! leave the window, even with the right password.
//!
//! The decision is made first in memory ([`crate::guards::login_gate`]): a locked key is refused with
//! no database write and no bcrypt. An attempt the gate lets through asks the database
//! whether other replicas' failures lock it (one indexed read, no lock), then is written
//! to `admin_login_attempts` *before* the password is checked, as a failure, and flipped
//! to success afterwards — a crash mid-check still counts. Refused attempts are written
//! by [`flush_refused`], counted per locked key (the address, else the username) into one
//! row per key and hour, flagged `locked_out`: they are not failures (no password was
//! checked), so retrying during a lockout does not extend it. Successes do not reset the
//! count. The SQL is `bandmap_db::login_attempts`.
//!
//! Without a global lock, two replicas checking the same key at the same instant may each
//! let one more attempt through than the limit; within a process the gate counts attempts
//! in flight, so parallel guesses cannot pass it (docs/security.md).

use crate::guards::login_gate::LoginGate;
pub use crate::guards::login_gate::{MAX_FAILURES, WINDOW_MINUTES, window};
use bandmap_db::DbError;
use bandmap_db::login_attempts::{self, Locks, RefusedCount};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use std::time::Duration as StdDuration;
use tokio_util::sync::CancellationToken;

/// The key of refused attempts counted without their own (past the gate's bound).
pub const OVERFLOW_KEY: &str = "overflow";
/// Period of [`flush_refused`] in the background.
pub const FLUSH_EVERY: StdDuration = StdDuration::from_secs(5);

/// Until when the recorded failures of `username` and of `ip` lock each (the
/// `MAX_FAILURES`-th most recent failure of a key leaves the window then).
pub async fn locks(
    pool: &PgPool,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Locks, DbError> {
    login_attempts::locks(pool, username, ip, now, window(), MAX_FAILURES).await
}

/// Records an attempt as a failure (until [`mark_success`] says otherwise); its row id.
pub async fn record_attempt(
    pool: &PgPool,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) -> Result<i64, DbError> {
    login_attempts::record_attempt(pool, username, ip, now).await
}

/// Marks an attempt as successful (it then no longer counts towards a lockout).
pub async fn mark_success(pool: &PgPool, attempt_id: i64) -> Result<(), DbError> {
    login_attempts::mark_success(pool, attempt_id).await
}

/// Writes the attempts the gate refused since the last flush — each locked key's count
/// added to its row of the last hour (one row per key and hour at most); keys beyond the
/// gate's bound share the `overflow` key — and logs one warning for them all (the
/// rate-limited form of "login refused: locked out"). Returns the attempts written.
pub async fn flush_refused(pool: &PgPool, gate: &LoginGate) -> Result<u64, DbError> {
    let (rows, overflow) = gate.take_refused();
    if rows.is_empty() && overflow == 0 {
        return Ok(0);
    }
    let mut counts: Vec<RefusedCount> = rows
        .iter()
        .map(|r| RefusedCount {
            lock_key: r.lock_key.clone(),
            username: r.username.clone(),
            ip: r.ip.clone(),
            attempts: i32::try_from(r.attempts).unwrap_or(i32::MAX),
            last_at: r.last_at,
        })
        .collect();
    if overflow > 0 {
        counts.push(RefusedCount {
            lock_key: OVERFLOW_KEY.to_string(),
            username: String::new(),
            ip: None,
            attempts: i32::try_from(overflow).unwrap_or(i32::MAX),
            last_at: rows
                .iter()
                .map(|r| r.last_at)
                .max()
                .unwrap_or_else(Utc::now),
        });
    }
    let total = rows.iter().map(|r| u64::from(r.attempts)).sum::<u64>() + overflow;
    let started = login_attempts::add_refused(pool, &counts).await?;
    tracing::warn!(
        attempts = total,
        locked_keys = rows.len(),
        rows_started = started,
        attempts_beyond_key_bound = overflow,
        "login attempts refused while locked out since the last report"
    );
    Ok(total)
}

/// Flushes refused attempts every [`FLUSH_EVERY`] until `shutdown`, and once more then
/// (started by [`crate::background::start`]).
pub async fn flusher(pool: PgPool, gate: std::sync::Arc<LoginGate>, shutdown: CancellationToken) {
    let mut tick = tokio::time::interval(FLUSH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let stop = tokio::select! {
            _ = tick.tick() => false,
            _ = shutdown.cancelled() => true,
        };
        if let Err(e) = flush_refused(&pool, &gate).await {
            tracing::error!(error = %e, "cannot record refused login attempts");
        }
        if stop {
            break;
        }
    }
}
