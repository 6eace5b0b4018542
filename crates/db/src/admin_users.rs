//! `admin_users`: the admin accounts (CONTRACT §5) and their session generation (a token
//! is valid only while the generation it was issued under is the account's current one).

use crate::Result;
use sqlx::{Acquire, PgExecutor, Postgres};

/// The stored bcrypt hash of `username`, if the account exists.
pub async fn password_hash(db: impl PgExecutor<'_>, username: &str) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT password_hash FROM admin_users WHERE username = $1")
            .bind(username)
            .fetch_optional(db)
            .await?,
    )
}

/// The stored hash and the current session generation of `username`.
pub async fn login_record(
    db: impl PgExecutor<'_>,
    username: &str,
) -> Result<Option<(String, i64)>> {
    Ok(sqlx::query_as(
        "SELECT password_hash, session_generation FROM admin_users WHERE username = $1",
    )
    .bind(username)
    .fetch_optional(db)
    .await?)
}

/// The current session generation of `username`; None when the account does not exist.
pub async fn session_generation(db: impl PgExecutor<'_>, username: &str) -> Result<Option<i64>> {
    Ok(
        sqlx::query_scalar("SELECT session_generation FROM admin_users WHERE username = $1")
            .bind(username)
            .fetch_optional(db)
            .await?,
    )
}

/// Ends every session of `username` issued so far (logout). True when the account exists.
pub async fn end_sessions(db: impl PgExecutor<'_>, username: &str) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE admin_users SET session_generation = session_generation + 1 WHERE username = $1",
    )
    .bind(username)
    .execute(db)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// Makes `username` the one admin account with `hash`: creates it or replaces its hash
/// (a replaced hash ends its sessions), and removes every other account (a renamed seed
/// must not leave the old name able to log in; their sessions end with them). One
/// transaction.
pub async fn upsert_password_hash(
    db: impl Acquire<'_, Database = Postgres>,
    username: &str,
    hash: &str,
) -> Result<()> {
    let mut tx = db.begin().await?;
    sqlx::query(
        "INSERT INTO admin_users (username, password_hash) VALUES ($1, $2)
         ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash,
             session_generation = admin_users.session_generation
                 + (admin_users.password_hash IS DISTINCT FROM EXCLUDED.password_hash)::int,
             updated_at = now()",
    )
    .bind(username)
    .bind(hash)
    .execute(&mut *tx)
    .await?;
    remove_others(&mut *tx, username).await?;
    tx.commit().await?;
    Ok(())
}

/// Removes every account but `username` (the seed, when its hash did not change).
pub async fn remove_others(db: impl PgExecutor<'_>, username: &str) -> Result<u64> {
    Ok(sqlx::query("DELETE FROM admin_users WHERE username <> $1")
        .bind(username)
        .execute(db)
        .await?
        .rows_affected())
}
