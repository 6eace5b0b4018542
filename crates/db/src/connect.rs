//! Connecting to PostgreSQL with retries (rule 25): up to 12 attempts, linear backoff of
//! at most 30 s per attempt, and a fresh pool (fresh client) on each attempt.

use crate::{DbError, Result};
use bandmap_time::Backoff;
use secrecy::{ExposeSecret, SecretString};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use std::time::Duration;

/// How connection attempts are spaced.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Number of attempts (12 in production).
    pub attempts: u32,
    /// Backoff step: attempt n waits n × step before the next try.
    pub step: Duration,
    /// Upper bound of one wait (30 s in production).
    pub max_wait: Duration,
    /// How long one attempt may take to open its first connection.
    pub attempt_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 12,
            step: Duration::from_secs(3),
            max_wait: Duration::from_secs(30),
            attempt_timeout: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// The wait after failed attempt `n` (1-based): linear, capped.
    pub fn wait_after(&self, n: u32) -> Duration {
        Backoff::linear(self.step, self.max_wait).delay(n)
    }
}

/// Pool size and connection timeout of a service.
#[derive(Debug, Clone, Copy)]
pub struct PoolSize {
    /// Maximum open connections.
    pub max_connections: u32,
}

impl Default for PoolSize {
    fn default() -> Self {
        Self {
            max_connections: 10,
        }
    }
}

/// Opens a pool, retrying per `policy`; each attempt builds a new pool.
pub async fn connect(url: &SecretString, size: PoolSize, policy: RetryPolicy) -> Result<PgPool> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let result = PgPoolOptions::new()
            .max_connections(size.max_connections)
            .acquire_timeout(policy.attempt_timeout)
            .connect(url.expose_secret())
            .await;
        match result {
            Ok(pool) => return Ok(pool),
            Err(source) if attempt >= policy.attempts => {
                return Err(DbError::Unreachable {
                    attempts: attempt,
                    source,
                });
            }
            Err(e) => {
                let wait = policy.wait_after(attempt);
                tracing::warn!(attempt, wait_s = wait.as_secs_f64(), error = %e, "database not reachable yet");
                tokio::time::sleep(wait).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_linear_and_capped() {
        let p = RetryPolicy::default();
        assert_eq!(p.wait_after(1), Duration::from_secs(3));
        assert_eq!(p.wait_after(4), Duration::from_secs(12));
        assert_eq!(p.wait_after(11), Duration::from_secs(30));
        assert_eq!(p.attempts, 12);
    }
}
