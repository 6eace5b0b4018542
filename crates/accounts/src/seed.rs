//! Creates or updates the admin account from `ADMIN_SEED_*` at `serve` start. A plaintext
//! password is hashed here and never stored; only the bcrypt hash reaches the database.
//! The seeded account is the only one: a changed password ends its sessions, and an
//! account left from an earlier `ADMIN_SEED_USERNAME` is removed (issue 18).

use crate::password;
use bandmap_config::AdminConfig;
use bandmap_db::{PgPool, admin_users};
use secrecy::ExposeSecret;

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
    /// Hashing or checking the plaintext password failed.
    #[error("cannot hash ADMIN_SEED_PASSWORD: {0}")]
    Hash(#[from] bcrypt::BcryptError),
    /// The blocking hashing task did not complete.
    #[error("password hashing task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// The database refused the write.
    #[error("cannot write the admin account: {0}")]
    Db(#[from] bandmap_db::DbError),
}

/// Upserts the seeded account. With `ADMIN_SEED_PASSWORD_HASH` the hash is stored as given;
/// with `ADMIN_SEED_PASSWORD` the plaintext is hashed here, unless the stored hash already
/// matches it (a restart then leaves the row alone). bcrypt runs on a blocking thread.
pub async fn seed_admin(pool: &PgPool, admin: &AdminConfig) -> Result<SeedOutcome, SeedError> {
    let Some(username) = admin.seed_username.as_deref() else {
        return Ok(SeedOutcome::NotConfigured);
    };
    let existing = admin_users::password_hash(pool, username).await?;
    let hash = match (&admin.seed_password_hash, &admin.seed_password) {
        (Some(h), _) => h.expose_secret().to_string(),
        (None, Some(p)) => {
            if let Some(old) = existing.clone()
                && verify(p.expose_secret().to_string(), old).await?
            {
                admin_users::remove_others(pool, username).await?;
                return Ok(SeedOutcome::Seeded(username.to_string()));
            }
            let plain = p.expose_secret().to_string();
            tokio::task::spawn_blocking(move || password::hash(plain)).await??
        }
        (None, None) => return Ok(SeedOutcome::NotConfigured),
    };
    if existing.as_deref() == Some(hash.as_str()) {
        admin_users::remove_others(pool, username).await?;
        return Ok(SeedOutcome::Seeded(username.to_string()));
    }
    admin_users::upsert_password_hash(pool, username, &hash).await?;
    Ok(SeedOutcome::Seeded(username.to_string()))
}

/// Whether `plain` matches `hash`; an unreadable stored hash counts as no match (it is
/// then replaced).
async fn verify(plain: String, hash: String) -> Result<bool, SeedError> {
    Ok(tokio::task::spawn_blocking(move || bcrypt::verify(plain, &hash).unwrap_or(false)).await?)
}
