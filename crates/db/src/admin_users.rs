//! `admin_users`: the admin accounts (CONTRACT §5).

use crate::Result;
use sqlx::PgExecutor;

/// The stored bcrypt hash of `username`, if the account exists.
pub async fn password_hash(db: impl PgExecutor<'_>, username: &str) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT password_hash FROM admin_users WHERE username = $1")
            .bind(username)
            .fetch_optional(db)
            .await?,
    )
}

/// Creates the account or replaces its hash.
pub async fn upsert_password_hash(
    db: impl PgExecutor<'_>,
    username: &str,
    hash: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO admin_users (username, password_hash) VALUES ($1, $2)
         ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = now()",
    )
    .bind(username)
    .bind(hash)
    .execute(db)
    .await?;
    Ok(())
}
