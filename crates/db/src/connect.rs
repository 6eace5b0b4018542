//! Connecting to PostgreSQL with retries (rule 25): up to 12 attempts, linear backoff of
//! at most 30 s per attempt, and a fresh pool (fresh client) on each attempt.

use crate::{DbError, Result};
use bandmap_time::Backoff;
use secrecy::{ExposeSecret, SecretString};
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::str::FromStr;
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

/// Budget of one pool: its connections, how long a caller waits for one, and the
/// `statement_timeout` of its sessions (issue 18: pools that cannot starve each other; an
/// interactive query that runs past its limit is cancelled by the server, so a request that
/// gave up leaves no query running).
#[derive(Debug, Clone, Copy)]
pub struct PoolSize {
    /// Maximum open connections.
    pub max_connections: u32,
    /// `statement_timeout` set on every connection of the pool (`None`: no limit).
    pub statement_timeout: Option<Duration>,
    /// Longest wait for a free connection, also each attempt's wait for its first
    /// connection (`None`: the retry policy's attempt timeout).
    pub acquire_timeout: Option<Duration>,
}

impl Default for PoolSize {
    fn default() -> Self {
        Self {
            max_connections: 10,
            statement_timeout: None,
            acquire_timeout: None,
        }
    }
}

/// The connection options of `url` with the pool's session settings.
fn options(url: &SecretString, size: PoolSize) -> Result<PgConnectOptions> {
    let options = PgConnectOptions::from_str(url.expose_secret())?;
    Ok(match size.statement_timeout {
        // Sent in the startup packet: no extra round trip, and it holds for every statement
        // of the session, including those of a transaction.
        Some(t) => options.options([("statement_timeout", format!("{}ms", t.as_millis().max(1)))]),
        None => options,
    })
}

/// Opens a pool, retrying per `policy`; each attempt builds a new pool.
pub async fn connect(url: &SecretString, size: PoolSize, policy: RetryPolicy) -> Result<PgPool> {
    let options = options(url, size)?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let result = PgPoolOptions::new()
            .max_connections(size.max_connections)
            .acquire_timeout(size.acquire_timeout.unwrap_or(policy.attempt_timeout))
            .connect_with(options.clone())
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
