//! Time as the worker sees it: `now` for the rate limiter and `sleep` for backoff. The real
//! pacer uses the monotonic clock and tokio; the virtual one (tests, benchmarks) records each
//! requested sleep and advances its own clock instead of waiting, so tests observe the
//! backoff schedule without depending on wall time.

use futures::future::BoxFuture;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Clock and sleeper.
pub trait Pacer: Send + Sync + std::fmt::Debug {
    /// The current instant.
    fn now(&self) -> Instant;
    /// Waits `d`.
    fn sleep(&self, d: Duration) -> BoxFuture<'_, ()>;
}

/// Monotonic clock, real sleeps.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealPacer;

impl Pacer for RealPacer {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn sleep(&self, d: Duration) -> BoxFuture<'_, ()> {
        Box::pin(tokio::time::sleep(d))
    }
}

/// A clock that only moves when someone sleeps; every sleep is recorded.
#[derive(Debug, Clone)]
pub struct VirtualPacer {
    start: Instant,
    state: Arc<Mutex<(Duration, Vec<Duration>)>>,
}

impl Default for VirtualPacer {
    fn default() -> Self {
        Self {
            start: Instant::now(),
            state: Arc::default(),
        }
    }
}

impl VirtualPacer {
    /// The sleeps requested so far, in order.
    #[must_use]
    pub fn sleeps(&self) -> Vec<Duration> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .clone()
    }

    /// Moves the clock forward without recording a sleep.
    pub fn advance(&self, d: Duration) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).0 += d;
    }
}

impl Pacer for VirtualPacer {
    fn now(&self) -> Instant {
        self.start + self.state.lock().unwrap_or_else(PoisonError::into_inner).0
    }
    fn sleep(&self, d: Duration) -> BoxFuture<'_, ()> {
        {
            let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            s.0 += d;
            s.1.push(d);
        }
        Box::pin(std::future::ready(()))
    }
}
