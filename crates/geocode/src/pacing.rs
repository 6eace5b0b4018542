//! The provider's rate limit across processes (rule 14, issue 19 point 2). The in-process
//! [`crate::limiter::Limiter`] spaces the calls of one process; this adds the spacing
//! between processes that use the same key (several `bandmap geocoder` replicas, separate
//! `geocoder` and `llm` processes), coordinated through PostgreSQL: each call first
//! reserves its slot in `provider_pacing` ([`bandmap_db::provider_pacing::take_turn`]) and
//! waits for it. The key is identified by a SHA-256 hash; it never reaches the database.

use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use std::time::Duration;

/// Cross-process pacing of one provider key.
#[derive(Debug, Clone)]
pub(crate) struct SharedPacing {
    pool: PgPool,
    key_hash: String,
    spacing: Duration,
}

impl SharedPacing {
    /// Pacing of `provider`'s `key`: call starts at least `spacing` apart across processes.
    pub(crate) fn new(pool: PgPool, provider: &str, key: &SecretString, spacing: Duration) -> Self {
        let mut h = Sha256::new();
        h.update(provider.as_bytes());
        h.update([0u8]);
        h.update(key.expose_secret().as_bytes());
        SharedPacing {
            pool,
            key_hash: hex::encode(h.finalize()),
            spacing,
        }
    }

    /// Waits for this call's turn. A database failure is logged and the call goes on under
    /// the in-process limiter alone (the database being down stops the worker anyway).
    pub(crate) async fn wait_turn(&self) {
        match bandmap_db::provider_pacing::take_turn(&self.pool, &self.key_hash, self.spacing).await
        {
            Ok(wait) if !wait.is_zero() => tokio::time::sleep(wait).await,
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "shared provider pacing unavailable"),
        }
    }
}
