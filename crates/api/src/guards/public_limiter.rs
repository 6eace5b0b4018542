//! The buckets of the per-client rate limit of the public endpoints that query the database (`/api/bands/{id}`,
//! `/api/search`, issue 18; `/api/countries`, issue 31; the exports, the town and band pages and
//! the sitemap, issue 28). A token bucket per client address (governor's GCRA): a burst of
//! `PUBLIC_RATE_BURST` requests, then `PUBLIC_RATE_PER_SEC` a second; past it a 429
//! `rate_limited` with `Retry-After`, answered from memory before any database work. The
//! map itself (`/api/clusters`) answers from memory and is not limited.
//!
//! The middleware that applies it is `crate::public::rate_limit::limit`; the client address
//! is the one the login lockout sees (`crate::auth::client_addr::ClientAddr`). IPv6 clients are
//! counted per /64: one host usually holds a whole /64 and could otherwise rotate through
//! it. Idle buckets are forgotten every minute ([`PublicLimiter::forget_idle`]).

use bandmap_config::RateConfig;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::{IpAddr, Ipv4Addr};
use std::num::NonZeroU32;
use std::time::Duration;

/// The buckets of every client.
#[derive(Debug)]
pub struct PublicLimiter {
    buckets: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
}

fn non_zero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

/// The key of a client: its address, an IPv6 one cut to its /64; an unknown address is one
/// shared key.
pub fn client_key(addr: Option<&str>) -> IpAddr {
    addr.and_then(|a| a.parse::<IpAddr>().ok()).map_or(
        IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        crate::connections::address_key,
    )
}

impl PublicLimiter {
    /// Buckets of `rate`.
    pub fn new(rate: RateConfig) -> PublicLimiter {
        let quota = Quota::per_second(non_zero(rate.per_second)).allow_burst(non_zero(rate.burst));
        PublicLimiter {
            buckets: RateLimiter::keyed(quota),
            clock: DefaultClock::default(),
        }
    }

    /// Takes one request from `key`'s bucket, or says how long to wait.
    pub fn check(&self, key: &IpAddr) -> Result<(), Duration> {
        self.buckets
            .check_key(key)
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }

    /// Drops the buckets that are full again (their clients went quiet).
    pub fn forget_idle(&self) {
        self.buckets.retain_recent();
        self.buckets.shrink_to_fit();
    }

    /// Clients with a bucket.
    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }
}

/// Forgets idle buckets every minute until `shutdown`.
pub async fn forget_idle_loop(
    limiter: std::sync::Arc<PublicLimiter>,
    shutdown: tokio_util::sync::CancellationToken,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(60)) => limiter.forget_idle(),
            _ = shutdown.cancelled() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_client_past_its_burst_waits_and_others_do_not() {
        let limiter = PublicLimiter::new(RateConfig {
            per_second: 1,
            burst: 3,
        });
        let a = client_key(Some("203.0.113.7"));
        let b = client_key(Some("198.51.100.2"));
        for _ in 0..3 {
            assert!(limiter.check(&a).is_ok());
        }
        let wait = limiter.check(&a).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        assert!(
            limiter.check(&b).is_ok(),
            "another client has its own bucket"
        );
        assert_eq!(limiter.tracked(), 2);
    }

    #[test]
    fn ipv6_clients_share_their_64_and_mapped_v4_is_v4() {
        assert_eq!(
            client_key(Some("2001:db8:1:2:aaaa::1")),
            client_key(Some("2001:db8:1:2:ffff::9"))
        );
        assert_ne!(
            client_key(Some("2001:db8:1:2::1")),
            client_key(Some("2001:db8:1:3::1"))
        );
        assert_eq!(
            client_key(Some("::ffff:203.0.113.7")),
            client_key(Some("203.0.113.7"))
        );
        assert_eq!(client_key(None), client_key(Some("not an address")));
    }
}
