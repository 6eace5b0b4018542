//! Limits that keep the service up under abuse (issue 18): connection budgets and statement
//! timeouts of the database pools, the public endpoints' rate limit, the HTTP server's
//! limits, and how long log-like tables keep their rows. Every value has a documented
//! default (docs/configuration.md) and a bad value names its variable.

use crate::ConfigError;
use crate::parse::Reader;
use crate::vars::{self as v, Variable};
use std::time::Duration;

/// All of them.
#[derive(Debug, Clone)]
pub struct LimitsConfig {
    /// Database pools of `serve` and of the workers.
    pub pools: PoolsConfig,
    /// Rate limit of the public endpoints that touch the database.
    pub public_rate: RateConfig,
    /// HTTP server limits.
    pub http: HttpLimits,
    /// Retention of log-like tables.
    pub retention: RetentionConfig,
}

/// One pool's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolBudget {
    /// Most open connections.
    pub max_connections: u32,
    /// `statement_timeout` of its sessions (`None`: the server's default, no limit).
    pub statement_timeout: Option<Duration>,
}

/// The pools: `serve` has a public one (map card, search) and an admin one (admin API,
/// login, probes, the map index refresh, retention); the workers have their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolsConfig {
    /// Public endpoints.
    pub public: PoolBudget,
    /// Admin API, authentication, probes and `serve`'s background tasks.
    pub admin: PoolBudget,
    /// Background workers (crawler, geocoder, enqueue, LLM): no statement timeout.
    pub worker: PoolBudget,
}

/// A token bucket per client address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateConfig {
    /// Sustained requests per second per client address.
    pub per_second: u32,
    /// Requests a client may make at once before the sustained rate applies.
    pub burst: u32,
}

/// HTTP server limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Most simultaneous client connections; more wait in the listen backlog.
    pub max_connections: usize,
    /// Most simultaneous connections of one client address (an IPv6 one counted per /64);
    /// past it a new connection is closed at once. Peers in `TRUSTED_PROXIES` carry many
    /// clients and are not capped (the proxy caps them).
    pub max_connections_per_address: usize,
    /// Longest time a response write may make no progress (a client that stopped reading)
    /// before the connection is closed.
    pub write_timeout: Duration,
    /// Longest time a request body may take to arrive whole (the bulk import excepted,
    /// which has its own limit); past it the answer is a 408 and the connection closes.
    pub body_timeout: Duration,
    /// Longest time a client may take to send a request's headers (also how long an idle
    /// keep-alive connection stays open).
    pub header_read_timeout: Duration,
    /// How long a refusal (429) is held before it is sent, so that a client past its limit
    /// gets one answer per delay instead of one per round trip (zero: sent at once).
    pub refusal_delay: Duration,
}

impl HttpLimits {
    /// Most refusals held at once: half the connection cap, so held clients can never
    /// take every connection (past it a refusal is sent at once).
    pub fn refusal_holds(&self) -> usize {
        (self.max_connections / 2).max(1)
    }
}

/// How long rows are kept before the daily prune deletes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionConfig {
    /// `admin_login_attempts`.
    pub login_attempts: Duration,
    /// The refused attempts (`locked_out` rows) of `admin_login_attempts`: counts of
    /// attempts refused during a lockout, kept shorter than the real attempts.
    pub refused_logins: Duration,
    /// `crawl_log`.
    pub crawl_log: Duration,
    /// `admin_audit_log`.
    pub audit_log: Duration,
}

const DAY: u64 = 24 * 3600;

fn at_least_one<T: std::str::FromStr + PartialOrd + From<u8> + ToString>(
    r: &Reader<'_>,
    var: Variable,
    what: &str,
) -> Result<T, ConfigError> {
    let v: T = r.number(var, what)?;
    if v < T::from(1) {
        return Err(r.fail(var, &v.to_string(), what));
    }
    Ok(v)
}

fn timeout_ms(r: &Reader<'_>, var: Variable) -> Result<Option<Duration>, ConfigError> {
    let ms: u64 = r.number(var, "a whole number of milliseconds (0: no limit)")?;
    Ok((ms > 0).then(|| Duration::from_millis(ms)))
}

fn seconds(r: &Reader<'_>, var: Variable) -> Result<Duration, ConfigError> {
    let s: u64 = at_least_one(r, var, "a whole number of seconds (at least 1)")?;
    Ok(Duration::from_secs(s))
}

fn days(r: &Reader<'_>, var: Variable) -> Result<Duration, ConfigError> {
    let d: u64 = at_least_one(r, var, "a whole number of days (at least 1)")?;
    Ok(Duration::from_secs(d.saturating_mul(DAY)))
}

/// Longest refusal delay accepted: a held refusal keeps its connection.
const MAX_REFUSAL_DELAY_MS: u64 = 10_000;

fn refusal_delay(r: &Reader<'_>) -> Result<Duration, ConfigError> {
    let var = v::HTTP_REFUSAL_DELAY_MS;
    let what = "a whole number of milliseconds from 0 (no delay) to 10000";
    let ms: u64 = r.number(var, what)?;
    if ms > MAX_REFUSAL_DELAY_MS {
        return Err(r.fail(var, &ms.to_string(), what));
    }
    Ok(Duration::from_millis(ms))
}

/// Reads the limits.
pub(crate) fn limits(r: &Reader<'_>) -> Result<LimitsConfig, ConfigError> {
    let count = "a whole number (at least 1)";
    Ok(LimitsConfig {
        pools: PoolsConfig {
            public: PoolBudget {
                max_connections: at_least_one(r, v::DB_POOL_PUBLIC_MAX, count)?,
                statement_timeout: timeout_ms(r, v::DB_PUBLIC_STATEMENT_TIMEOUT_MS)?,
            },
            admin: PoolBudget {
                max_connections: at_least_one(r, v::DB_POOL_ADMIN_MAX, count)?,
                statement_timeout: timeout_ms(r, v::DB_ADMIN_STATEMENT_TIMEOUT_MS)?,
            },
            worker: PoolBudget {
                max_connections: at_least_one(r, v::DB_POOL_WORKER_MAX, count)?,
                statement_timeout: None,
            },
        },
        public_rate: RateConfig {
            per_second: at_least_one(r, v::PUBLIC_RATE_PER_SEC, count)?,
            burst: at_least_one(r, v::PUBLIC_RATE_BURST, count)?,
        },
        http: HttpLimits {
            max_connections: at_least_one(r, v::HTTP_MAX_CONNECTIONS, count)?,
            header_read_timeout: seconds(r, v::HTTP_HEADER_TIMEOUT_SECS)?,
            max_connections_per_address: at_least_one(
                r,
                v::HTTP_MAX_CONNECTIONS_PER_ADDRESS,
                count,
            )?,
            write_timeout: seconds(r, v::HTTP_WRITE_TIMEOUT_SECS)?,
            body_timeout: seconds(r, v::HTTP_BODY_TIMEOUT_SECS)?,
            refusal_delay: refusal_delay(r)?,
        },
        retention: RetentionConfig {
            login_attempts: days(r, v::RETENTION_LOGIN_ATTEMPTS_DAYS)?,
            refused_logins: days(r, v::RETENTION_REFUSED_LOGINS_DAYS)?,
            crawl_log: days(r, v::RETENTION_CRAWL_LOG_DAYS)?,
            audit_log: days(r, v::RETENTION_AUDIT_LOG_DAYS)?,
        },
    })
}
