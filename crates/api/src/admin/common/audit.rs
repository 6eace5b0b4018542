//! The audit row of an admin action (`admin_audit_log`, CONTRACT §6), written on the
//! action's own transaction by every admin module.

use crate::auth::AdminSession;
use crate::error::ApiError;
use bandmap_db::audit::{self, Entry};
use serde_json::Value;

/// Records `action` on `target` by the session's admin, with the values before and after.
pub async fn record(
    conn: &mut sqlx::PgConnection,
    session: &AdminSession,
    action: &str,
    target: &str,
    before: Option<Value>,
    after: Option<Value>,
) -> Result<(), ApiError> {
    let entry = Entry {
        username: &session.username,
        action,
        target,
        before,
        after,
        ip: session.ip.clone(),
    };
    audit::record(conn, &entry).await?;
    Ok(())
}
