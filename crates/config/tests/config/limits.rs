//! Issue 18's limits: documented defaults, and a bad value names its variable.

use bandmap_config::{Config, ConfigError};
use std::collections::HashMap;
use std::time::Duration;

fn with(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_map(&map)
}

const DAY: Duration = Duration::from_secs(24 * 3600);

#[test]
fn defaults_are_the_documented_ones() {
    let l = with(&[]).unwrap().limits;
    assert_eq!(l.pools.public.max_connections, 4);
    assert_eq!(
        l.pools.public.statement_timeout,
        Some(Duration::from_secs(2))
    );
    assert_eq!(l.pools.admin.max_connections, 8);
    assert_eq!(
        l.pools.admin.statement_timeout,
        Some(Duration::from_secs(25))
    );
    assert_eq!(l.pools.worker.max_connections, 10);
    assert_eq!(l.pools.worker.statement_timeout, None);
    assert_eq!((l.public_rate.per_second, l.public_rate.burst), (10, 40));
    assert_eq!(l.http.max_connections, 512);
    assert_eq!(l.http.header_read_timeout, Duration::from_secs(10));
    assert_eq!(l.http.refusal_delay, Duration::from_secs(1));
    assert_eq!(l.http.refusal_holds(), 256);
    assert_eq!(l.retention.login_attempts, 30 * DAY);
    assert_eq!(l.retention.crawl_log, 90 * DAY);
    assert_eq!(l.retention.audit_log, 365 * DAY);
}

#[test]
fn values_are_read_and_zero_timeouts_mean_none() {
    let l = with(&[
        ("DB_POOL_PUBLIC_MAX", "2"),
        ("DB_PUBLIC_STATEMENT_TIMEOUT_MS", "0"),
        ("PUBLIC_RATE_PER_SEC", "3"),
        ("HTTP_HEADER_TIMEOUT_SECS", "5"),
        ("RETENTION_CRAWL_LOG_DAYS", "7"),
        ("HTTP_REFUSAL_DELAY_MS", "0"),
        ("HTTP_MAX_CONNECTIONS", "1"),
    ])
    .unwrap()
    .limits;
    assert_eq!(l.pools.public.max_connections, 2);
    assert_eq!(l.pools.public.statement_timeout, None);
    assert_eq!(l.public_rate.per_second, 3);
    assert_eq!(l.http.header_read_timeout, Duration::from_secs(5));
    assert_eq!(l.retention.crawl_log, 7 * DAY);
    assert_eq!(l.http.refusal_delay, Duration::ZERO);
    assert_eq!(l.http.refusal_holds(), 1, "never zero holds");
}

#[test]
fn bad_values_name_their_variable() {
    for (var, bad) in [
        ("DB_POOL_PUBLIC_MAX", "0"),
        ("DB_POOL_ADMIN_MAX", "many"),
        ("DB_POOL_WORKER_MAX", "-1"),
        ("DB_ADMIN_STATEMENT_TIMEOUT_MS", "1.5"),
        ("PUBLIC_RATE_PER_SEC", "0"),
        ("PUBLIC_RATE_BURST", "x"),
        ("HTTP_MAX_CONNECTIONS", "0"),
        ("HTTP_HEADER_TIMEOUT_SECS", "0"),
        ("HTTP_REFUSAL_DELAY_MS", "10001"),
        ("HTTP_REFUSAL_DELAY_MS", "-5"),
        ("RETENTION_LOGIN_ATTEMPTS_DAYS", "0"),
        ("RETENTION_AUDIT_LOG_DAYS", "forever"),
    ] {
        match with(&[(var, bad)]) {
            Err(ConfigError::Invalid { var: named, .. }) => assert_eq!(named, var, "{bad}"),
            other => panic!("{var}={bad}: expected an invalid-value error, got {other:?}"),
        }
    }
}
