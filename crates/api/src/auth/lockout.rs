//! Login lockout (CONTRACT §5): once 5 failures fall within 15 minutes for one username
//! (any case) or one client address, further attempts answer 429 until enough of them
//! leave the window, even with the right password.
//!
//! The decision is made first in memory ([`super::gate`]): a locked key is refused with
//! no database write and no bcrypt. An attempt the gate lets through asks the database
//! whether other replicas' failures lock it (one indexed read, no lock), then is written
//! to `admin_login_attempts` *before* the password is checked, as a failure, and flipped
//! to success afterwards — a crash mid-check still counts. Refused attempts are written
//! by [`flush_refused`], one row per (username, address) with the number of attempts it
//! stands for, flagged `locked_out`: they are not failures (no password was checked), so
//! retrying during a lockout does not extend it. Successes do not reset the count.
//!
//! Without a global lock, two replicas checking the same key at the same instant may each
//! let one more attempt through than the limit; within a process the gate counts attempts
//! in flight, so parallel guesses cannot pass it (docs/security.md).

use super::gate::LoginGate;
use chrono::{DateTime, Duration, Utc};
use sqlx::PgPool;
use std::time::Duration as StdDuration;
use tokio_util::sync::CancellationToken;

/// Failures tolerated inside the window.
pub const MAX_FAILURES: i64 = 5;
/// Length of the window.
pub const WINDOW_MINUTES: i64 = 15;
/// Period of [`flush_refused`] in the background.
pub const FLUSH_EVERY: StdDuration = StdDuration::from_secs(5);

/// The lockout window.
pub fn window() -> Duration {
    Duration::minutes(WINDOW_MINUTES)
}

/// The instant at which the recorded failures of `username` or `ip` stop locking (the
/// `MAX_FAILURES`-th most recent failure of a key leaves the window then); None when
/// neither is locked. Served by the partial indexes of migration 020.
pub async fn unlock_at(
    pool: &PgPool,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, sqlx::Error> {
    let at: Option<DateTime<Utc>> = sqlx::query_scalar(
        "SELECT GREATEST(
            (SELECT at FROM admin_login_attempts
             WHERE lower(username) = lower($1) AND NOT success AND NOT locked_out AND at > $3
             ORDER BY at DESC OFFSET $4 LIMIT 1),
            (SELECT at FROM admin_login_attempts
             WHERE ip = $2 AND NOT success AND NOT locked_out AND at > $3
             ORDER BY at DESC OFFSET $4 LIMIT 1))",
    )
    .bind(username)
    .bind(ip)
    .bind(now - window())
    .bind(MAX_FAILURES - 1)
    .fetch_one(pool)
    .await?;
    Ok(at.map(|at| at + window()))
}

/// Records an attempt as a failure (until [`mark_success`] says otherwise); its row id.
pub async fn record_attempt(
    pool: &PgPool,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "INSERT INTO admin_login_attempts (username, ip, at, success) VALUES ($1, $2, $3, FALSE)
         RETURNING id",
    )
    .bind(username)
    .bind(ip)
    .bind(now)
    .fetch_one(pool)
    .await
}

/// Marks an attempt as successful (it then no longer counts towards a lockout).
pub async fn mark_success(pool: &PgPool, attempt_id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE admin_login_attempts SET success = TRUE WHERE id = $1")
        .bind(attempt_id)
        .execute(pool)
        .await?;
    Ok(())
}

/// Writes the attempts the gate refused since the last flush — one `locked_out` row per
/// (username, address), `attempts` saying how many; pairs beyond the gate's bound share
/// one row with an empty username and no address — and logs one warning for them all
/// (the rate-limited form of "login refused: locked out"). Returns the attempts written.
pub async fn flush_refused(pool: &PgPool, gate: &LoginGate) -> Result<u64, sqlx::Error> {
    let (rows, overflow) = gate.take_refused();
    if rows.is_empty() && overflow == 0 {
        return Ok(0);
    }
    let mut usernames = Vec::with_capacity(rows.len() + 1);
    let mut ips = Vec::with_capacity(rows.len() + 1);
    let mut ats = Vec::with_capacity(rows.len() + 1);
    let mut counts = Vec::with_capacity(rows.len() + 1);
    let mut total: u64 = 0;
    for r in &rows {
        usernames.push(r.username.clone());
        ips.push(r.ip.clone());
        ats.push(r.last_at);
        counts.push(i32::try_from(r.attempts).unwrap_or(i32::MAX));
        total += u64::from(r.attempts);
    }
    if overflow > 0 {
        usernames.push(String::new());
        ips.push(None);
        ats.push(
            rows.iter()
                .map(|r| r.last_at)
                .max()
                .unwrap_or_else(Utc::now),
        );
        counts.push(i32::try_from(overflow).unwrap_or(i32::MAX));
        total += overflow;
    }
    sqlx::query(
        "INSERT INTO admin_login_attempts (username, ip, at, success, locked_out, attempts)
         SELECT u, i, a, FALSE, TRUE, n FROM UNNEST($1::text[], $2::text[], $3::timestamptz[], $4::int[])
             AS t(u, i, a, n)",
    )
    .bind(&usernames)
    .bind(&ips)
    .bind(&ats)
    .bind(&counts)
    .execute(pool)
    .await?;
    tracing::warn!(
        attempts = total,
        pairs = rows.len(),
        attempts_beyond_pair_bound = overflow,
        "login attempts refused while locked out since the last report"
    );
    Ok(total)
}

/// Flushes refused attempts every [`FLUSH_EVERY`] until `shutdown`, and once more then.
pub fn start_flusher(pool: PgPool, gate: std::sync::Arc<LoginGate>, shutdown: CancellationToken) {
    tokio::spawn(async move {
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
    });
}
