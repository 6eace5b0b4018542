//! Creates or updates the admin account from `ADMIN_SEED_*` at `serve` start. A plaintext
//! password is hashed here and never stored; only the bcrypt hash reaches the database.

use bandmap_config::AdminConfig;
use secrecy::ExposeSecret;
use sqlx::PgPool;

/// What seeding did.
#[derive(Debug, PartialEq, Eq)]
pub enum SeedOutcome {
    /// Account created or its hash updated.
    Seeded(String),
    /// No seed variables: admin login stays impossible.
    NotConfigured,
}

/// Why seeding failed.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// Hashing the plaintext password failed.
    #[error("cannot hash ADMIN_SEED_PASSWORD: {0}")]
    Hash(#[from] bcrypt::BcryptError),
    /// The database refused the write.
    #[error("cannot write the admin account: {0}")]
    Db(#[from] sqlx::Error),
}

/// Cost of hashes made here.
pub const BCRYPT_COST: u32 = 12;

/// Upserts the seeded account.
pub async fn seed_admin(pool: &PgPool, admin: &AdminConfig) -> Result<SeedOutcome, SeedError> {
    let Some(username) = admin.seed_username.as_deref() else {
        return Ok(SeedOutcome::NotConfigured);
    };
    let hash = match (&admin.seed_password_hash, &admin.seed_password) {
        (Some(h), _) => h.expose_secret().to_string(),
        (None, Some(p)) => {
            let plain = p.expose_secret().to_string();
            tokio::task::spawn_blocking(move || bcrypt::hash(plain, BCRYPT_COST))
                .await
                .map_err(|e| {
                    SeedError::Db(sqlx::Error::Protocol(format!("hashing task failed: {e}")))
                })??
        }
        (None, None) => return Ok(SeedOutcome::NotConfigured),
    };
    // Keep an existing hash when the same plaintext is seeded again, so restarts don't
    // invalidate nothing and don't churn the row.
    let existing: Option<String> =
        sqlx::query_scalar("SELECT password_hash FROM admin_users WHERE username = $1")
            .bind(username)
            .fetch_optional(pool)
            .await?;
    if let (Some(old), Some(p)) = (&existing, &admin.seed_password)
        && admin.seed_password_hash.is_none()
        && bcrypt::verify(p.expose_secret(), old).unwrap_or(false)
    {
        return Ok(SeedOutcome::Seeded(username.to_string()));
    }
    sqlx::query(
        "INSERT INTO admin_users (username, password_hash) VALUES ($1, $2)
         ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = now()",
    )
    .bind(username)
    .bind(&hash)
    .execute(pool)
    .await?;
    Ok(SeedOutcome::Seeded(username.to_string()))
}
