//! Retention (issue 18): rows of the log-like tables older than their age are deleted —
//! `admin_login_attempts`, `crawl_log`, `admin_audit_log` — in batches, each its own short
//! statement, so a first prune of a large backlog never holds locks or a connection for
//! long (nor runs into the pool's statement timeout).

use crate::Result;
use std::time::Duration;

/// Rows deleted per statement.
pub const BATCH: i64 = 5_000;

/// How old a row may get in each table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ages {
    /// `admin_login_attempts`.
    pub login_attempts: Duration,
    /// The `locked_out` rows of `admin_login_attempts` (refused attempts, counted), when
    /// shorter than `login_attempts`.
    pub refused_logins: Duration,
    /// `crawl_log`.
    pub crawl_log: Duration,
    /// `admin_audit_log`.
    pub audit_log: Duration,
}

/// Rows deleted by one prune, per table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// `admin_login_attempts` (refused attempts' rows included).
    pub login_attempts: u64,
    /// `crawl_log`.
    pub crawl_log: u64,
    /// `admin_audit_log`.
    pub audit_log: u64,
}

impl Pruned {
    /// Rows deleted in all.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.login_attempts + self.crawl_log + self.audit_log
    }
}

// One statement per table (names cannot be bound); each deletes one batch of the oldest
// rows past the age, found through the table's index on `at`.
const LOGIN_ATTEMPTS: &str = "DELETE FROM admin_login_attempts WHERE id IN (
    SELECT id FROM admin_login_attempts WHERE at < now() - make_interval(secs => $1) LIMIT $2)";
const REFUSED_LOGINS: &str = "DELETE FROM admin_login_attempts WHERE id IN (
    SELECT id FROM admin_login_attempts
    WHERE locked_out AND at < now() - make_interval(secs => $1) LIMIT $2)";
const CRAWL_LOG: &str = "DELETE FROM crawl_log WHERE id IN (
    SELECT id FROM crawl_log WHERE at < now() - make_interval(secs => $1) LIMIT $2)";
const AUDIT_LOG: &str = "DELETE FROM admin_audit_log WHERE id IN (
    SELECT id FROM admin_audit_log WHERE at < now() - make_interval(secs => $1) LIMIT $2)";

async fn prune_table(pool: &sqlx::PgPool, sql: &'static str, age: Duration) -> Result<u64> {
    let mut deleted = 0;
    loop {
        let n = sqlx::query(sql)
            .bind(age.as_secs_f64())
            .bind(BATCH)
            .execute(pool)
            .await?
            .rows_affected();
        deleted += n;
        if n < BATCH as u64 {
            return Ok(deleted);
        }
    }
}

/// Deletes every row older than its table's age.
pub async fn prune(pool: &sqlx::PgPool, ages: &Ages) -> Result<Pruned> {
    Ok(Pruned {
        login_attempts: prune_table(pool, REFUSED_LOGINS, ages.refused_logins).await?
            + prune_table(pool, LOGIN_ATTEMPTS, ages.login_attempts).await?,
        crawl_log: prune_table(pool, CRAWL_LOG, ages.crawl_log).await?,
        audit_log: prune_table(pool, AUDIT_LOG, ages.audit_log).await?,
    })
}
