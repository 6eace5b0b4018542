//! Local per-model rate limiter: sliding one-minute windows of requests and tokens (the
//! configured RPM/TPM), plus a "blocked until" instant set from `retry-after` or an
//! exhausted `x-ratelimit-*` window. A request reserves its estimated tokens before it is
//! sent; the real usage is added when the answer arrives.

use crate::settings::RateLimits;
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

const WINDOW: Duration = Duration::from_secs(60);

#[derive(Debug)]
struct Window {
    limits: RateLimits,
    /// (when, requests, tokens) of the last minute.
    events: VecDeque<(Instant, u32, u64)>,
    blocked_until: Option<Instant>,
}

impl Window {
    fn prune(&mut self, now: Instant) {
        while let Some(&(at, _, _)) = self.events.front() {
            if now.saturating_duration_since(at) >= WINDOW {
                self.events.pop_front();
            } else {
                break;
            }
        }
    }

    /// Zero when a request of `tokens` may go now, else how long until it may.
    fn wait(&mut self, tokens: u64, now: Instant) -> Duration {
        self.prune(now);
        let blocked = self
            .blocked_until
            .map_or(Duration::ZERO, |u| u.saturating_duration_since(now));
        let requests: u32 = self.events.iter().map(|e| e.1).sum();
        let used: u64 = self.events.iter().map(|e| e.2).sum();
        let request_wait = if requests >= self.limits.rpm {
            self.until_freed(
                now,
                |e| u64::from(e.1),
                u64::from(requests) + 1 - u64::from(self.limits.rpm),
            )
        } else {
            Duration::ZERO
        };
        // A request larger than the whole budget may go once the window is empty.
        let budget = u64::from(self.limits.tpm);
        let token_wait = if used > 0 && used + tokens > budget {
            self.until_freed(now, |e| e.2, (used + tokens).saturating_sub(budget))
        } else {
            Duration::ZERO
        };
        blocked.max(request_wait).max(token_wait)
    }

    /// Time until the oldest events holding at least `need` units leave the window.
    fn until_freed(
        &self,
        now: Instant,
        units: impl Fn(&(Instant, u32, u64)) -> u64,
        need: u64,
    ) -> Duration {
        let mut freed = 0;
        for e in &self.events {
            freed += units(e);
            if freed >= need {
                return (e.0 + WINDOW).saturating_duration_since(now);
            }
        }
        self.events.back().map_or(Duration::ZERO, |e| {
            (e.0 + WINDOW).saturating_duration_since(now)
        })
    }
}

/// Windows of every model.
#[derive(Debug, Default)]
pub struct Limiter {
    models: Mutex<HashMap<String, Window>>,
}

impl Limiter {
    /// A limiter knowing `models` and their limits.
    #[must_use]
    pub fn new<'a>(models: impl IntoIterator<Item = (&'a str, RateLimits)>) -> Self {
        let map = models
            .into_iter()
            .map(|(id, limits)| {
                (
                    id.to_string(),
                    Window {
                        limits,
                        events: VecDeque::new(),
                        blocked_until: None,
                    },
                )
            })
            .collect();
        Self {
            models: Mutex::new(map),
        }
    }

    fn with<T>(&self, model: &str, f: impl FnOnce(&mut Window) -> T) -> Option<T> {
        let mut map = self.models.lock().unwrap_or_else(PoisonError::into_inner);
        map.get_mut(model).map(f)
    }

    /// How long a request of `tokens` to `model` must wait (zero: it may go now).
    #[must_use]
    pub fn wait(&self, model: &str, tokens: u64, now: Instant) -> Duration {
        self.with(model, |w| w.wait(tokens, now))
            .unwrap_or(Duration::ZERO)
    }

    /// Counts one request of `tokens` (an estimate) now.
    pub fn reserve(&self, model: &str, tokens: u64, now: Instant) {
        self.with(model, |w| w.events.push_back((now, 1, tokens)));
    }

    /// Adds tokens used beyond the reservation.
    pub fn add_tokens(&self, model: &str, tokens: u64, now: Instant) {
        if tokens > 0 {
            self.with(model, |w| w.events.push_back((now, 0, tokens)));
        }
    }

    /// Keeps `model` off until `now + pause` (never shortens an existing block).
    pub fn block(&self, model: &str, pause: Duration, now: Instant) {
        self.with(model, |w| {
            let until = now + pause;
            w.blocked_until = Some(w.blocked_until.map_or(until, |u| u.max(until)));
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(rpm: u32, tpm: u32) -> Limiter {
        Limiter::new([("m", RateLimits { rpm, tpm })])
    }

    #[test]
    fn requests_per_minute_are_enforced() {
        let l = limiter(2, 1_000_000);
        let t0 = Instant::now();
        l.reserve("m", 10, t0);
        l.reserve("m", 10, t0 + Duration::from_secs(10));
        assert_eq!(
            l.wait("m", 10, t0 + Duration::from_secs(20)),
            Duration::from_secs(40)
        );
        assert_eq!(
            l.wait("m", 10, t0 + Duration::from_secs(60)),
            Duration::ZERO
        );
    }

    #[test]
    fn tokens_per_minute_are_enforced() {
        let l = limiter(100, 1000);
        let t0 = Instant::now();
        l.reserve("m", 600, t0);
        assert_eq!(l.wait("m", 300, t0), Duration::ZERO);
        l.reserve("m", 300, t0 + Duration::from_secs(5));
        assert_eq!(
            l.wait("m", 300, t0 + Duration::from_secs(30)),
            Duration::from_secs(30)
        );
    }

    #[test]
    fn blocks_hold_until_their_instant() {
        let l = limiter(100, 1000);
        let t0 = Instant::now();
        l.block("m", Duration::from_secs(7), t0);
        assert_eq!(
            l.wait("m", 1, t0 + Duration::from_secs(2)),
            Duration::from_secs(5)
        );
        assert_eq!(l.wait("m", 1, t0 + Duration::from_secs(7)), Duration::ZERO);
    }
}
