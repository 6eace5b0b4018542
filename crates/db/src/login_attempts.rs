//! `admin_login_attempts` (CONTRACT §5, every attempt recorded): the one writer of the
//! table besides the retention prune. The rules of the lockout itself (the window, the
//! limit, the in-memory gate) live in the API's `auth` module; this module only reads and
//! writes rows.
//!
//! Two kinds of rows: a *checked* attempt (one row, written as a failure before the
//! password is checked and flipped to success after, `lock_key` NULL) and *refused*
//! attempts (`locked_out`): the count of attempts a locked key refused, one row per key
//! that later counts are added to while its latest refusal is under an hour old
//! (migration 025, issue 31).

use crate::Result;
use chrono::{DateTime, Duration, Utc};
use sqlx::PgExecutor;

/// Until when the recorded failures lock a username and an address.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Locks {
    /// The username (any case) is locked until then.
    pub user: Option<DateTime<Utc>>,
    /// The address is locked until then.
    pub addr: Option<DateTime<Utc>>,
}

/// When the `limit`-th most recent failure inside `window` of `username` and of `ip` leaves
/// the window (that key is locked until then); served by the partial indexes of
/// migration 020.
pub async fn locks(
    db: impl PgExecutor<'_>,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
    window: Duration,
    limit: i64,
) -> Result<Locks> {
    let (user, addr): (Option<DateTime<Utc>>, Option<DateTime<Utc>>) = sqlx::query_as(
        "SELECT
            (SELECT at FROM admin_login_attempts
             WHERE lower(username) = lower($1) AND NOT success AND NOT locked_out AND at > $3
             ORDER BY at DESC OFFSET $4 LIMIT 1),
            (SELECT at FROM admin_login_attempts
             WHERE ip = $2 AND NOT success AND NOT locked_out AND at > $3
             ORDER BY at DESC OFFSET $4 LIMIT 1)",
    )
    .bind(username)
    .bind(ip)
    .bind(now - window)
    .bind(limit - 1)
    .fetch_one(db)
    .await?;
    Ok(Locks {
        user: user.map(|at| at + window),
        addr: addr.map(|at| at + window),
    })
}

/// Records a checked attempt as a failure (until [`mark_success`]); its row id.
pub async fn record_attempt(
    db: impl PgExecutor<'_>,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "INSERT INTO admin_login_attempts (username, ip, at, success) VALUES ($1, $2, $3, FALSE)
         RETURNING id",
    )
    .bind(username)
    .bind(ip)
    .bind(now)
    .fetch_one(db)
    .await?)
}

/// Marks a checked attempt as successful (it then no longer counts towards a lockout).
pub async fn mark_success(db: impl PgExecutor<'_>, attempt_id: i64) -> Result<()> {
    sqlx::query("UPDATE admin_login_attempts SET success = TRUE WHERE id = $1")
        .bind(attempt_id)
        .execute(db)
        .await?;
    Ok(())
}

/// Refused attempts of one locked key since the last write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedCount {
    /// The locked key (`addr:…`, `user:…`, or `overflow` for keys counted together).
    pub lock_key: String,
    /// Username of the latest attempt (already bounded).
    pub username: String,
    /// Client address of the latest attempt.
    pub ip: Option<String>,
    /// Attempts refused.
    pub attempts: i32,
    /// The latest of them.
    pub last_at: DateTime<Utc>,
}

/// Adds each key's count to that key's refused row whose latest refusal is under an hour
/// old, or starts one: at most one new row per key per hour. Returns the rows started.
pub async fn add_refused(db: impl PgExecutor<'_>, counts: &[RefusedCount]) -> Result<u64> {
    if counts.is_empty() {
        return Ok(0);
    }
    let keys: Vec<&str> = counts.iter().map(|c| c.lock_key.as_str()).collect();
    let users: Vec<&str> = counts.iter().map(|c| c.username.as_str()).collect();
    let ips: Vec<Option<&str>> = counts.iter().map(|c| c.ip.as_deref()).collect();
    let ats: Vec<DateTime<Utc>> = counts.iter().map(|c| c.last_at).collect();
    let ns: Vec<i32> = counts.iter().map(|c| c.attempts).collect();
    let started = sqlx::query(
        "WITH input AS (
             SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::int[])
                 AS t(k, u, i, a, n)),
         target AS (
             SELECT DISTINCT ON (input.k) input.k, l.id
             FROM input
             JOIN admin_login_attempts l
               ON l.locked_out AND l.lock_key = input.k AND l.at > input.a - interval '1 hour'
             ORDER BY input.k, l.at DESC),
         updated AS (
             UPDATE admin_login_attempts l
             SET attempts = l.attempts + input.n, at = GREATEST(l.at, input.a),
                 username = input.u, ip = input.i
             FROM target JOIN input ON input.k = target.k
             WHERE l.id = target.id
             RETURNING target.k)
         INSERT INTO admin_login_attempts (username, ip, at, success, locked_out, attempts, lock_key)
         SELECT u, i, a, FALSE, TRUE, n, k FROM input WHERE k NOT IN (SELECT k FROM updated)",
    )
    .bind(&keys)
    .bind(&users)
    .bind(&ips)
    .bind(&ats)
    .bind(&ns)
    .execute(db)
    .await?
    .rows_affected();
    Ok(started)
}
