//! The provider's rate limit across processes (rule 14, issue 19 point 2). The in-process
//! [`crate::limiter::Limiter`] spaces the calls of one process; this adds the spacing
//! between processes that use the same key (several `bandmap geocoder` replicas, separate
//! `geocoder` and `llm` processes), coordinated through PostgreSQL: each call takes its
//! turn on the key's `provider_pacing` row ([`bandmap_db::provider_pacing::begin_turn`]),
//! waits until `spacing` after the previous call's end, and records its own end. The key is identified by a SHA-256 hash; it never reaches the database.

use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use std::future::Future;
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

    /// Runs `call` in its turn: after the previous call on the key, in any process, ended
    /// `spacing` ago. A database failure is logged and the call goes on under the
    /// in-process limiter alone (the database being down stops the worker anyway).
    pub(crate) async fn paced<T>(&self, call: impl Future<Output = T>) -> T {
        let turn =
            match bandmap_db::provider_pacing::begin_turn(&self.pool, &self.key_hash, self.spacing)
                .await
            {
                Ok(t) => t,
                Err(e) => {
                    tracing::warn!(error = %e, "shared provider pacing unavailable");
                    return call.await;
                }
            };
        tokio::time::sleep(turn.wait()).await;
        let out = call.await;
        if let Err(e) = turn.end().await {
            tracing::warn!(error = %e, "shared provider pacing not recorded");
        }
        out
    }
}
