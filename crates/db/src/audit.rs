//! `admin_audit_log`: every admin action with its before/after diff, also mirrored as a
//! `crawl_log` line (SPEC "Every admin action is also written to crawl_log").

use crate::Result;
use serde_json::Value;
use sqlx::{Acquire, Postgres};

/// One admin action to record.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// Who.
    pub username: &'a str,
    /// What, e.g. `band.patch`, `location.requeue`.
    pub action: &'a str,
    /// On what, e.g. `band:123`, `location:45`, `locations:bulk`.
    pub target: &'a str,
    /// State before (None for creations and bulk actions).
    pub before: Option<Value>,
    /// State after.
    pub after: Option<Value>,
    /// Client address.
    pub ip: Option<String>,
}

/// Writes the audit row and its log line together: inside the caller's transaction (as a
/// savepoint) when given one, so the audited change and its row commit as one.
pub async fn record(db: impl Acquire<'_, Database = Postgres>, e: &Entry<'_>) -> Result<i64> {
    let mut tx = db.begin().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO admin_audit_log (username, action, target, before, after, ip)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(e.username)
    .bind(e.action)
    .bind(e.target)
    .bind(&e.before)
    .bind(&e.after)
    .bind(&e.ip)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO crawl_log (run_id, level, message) VALUES (NULL, 'info', $1)")
        .bind(format!(
            "admin {} did {} on {}",
            e.username, e.action, e.target
        ))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(id)
}
