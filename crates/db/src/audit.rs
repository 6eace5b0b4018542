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
    let (before, after) = (
        e.before.as_ref().map(storable),
        e.after.as_ref().map(storable),
    );
    let mut tx = db.begin().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO admin_audit_log (username, action, target, before, after, ip)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(e.username)
    .bind(e.action)
    .bind(e.target)
    .bind(&before)
    .bind(&after)
    .bind(&e.ip)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO crawl_log (run_id, level, message) VALUES (NULL, 'info', $1)")
        .bind(format!("admin {} did {} on {}", e.username, e.action, e.target).replace('\0', ""))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(id)
}

/// `value` as `jsonb` can hold it: PostgreSQL refuses the NUL character (`\u0000`) in
/// `jsonb` strings and keys, and an audited value may quote what a client sent (an import
/// refused for an unknown key names the key). NULs are dropped; nothing else changes.
fn storable(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace('\0', "")),
        Value::Array(items) => Value::Array(items.iter().map(storable).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.replace('\0', ""), storable(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::storable;
    use serde_json::json;

    #[test]
    fn nul_characters_are_dropped_from_strings_and_keys_only() {
        let v = json!({"a\0b": ["x\0y", 1, null, {"k": "\0"}], "n": 2.5});
        assert_eq!(
            storable(&v),
            json!({"ab": ["xy", 1, null, {"k": ""}], "n": 2.5})
        );
    }
}
