//! The one provider rate limiter of the process (rule 14). Every provider call of every
//! row and task (including retries and the heartbeat probe) runs inside [`Limiter::run`],
//! which holds the limiter for the duration of the call and starts the next call no
//! earlier than `min_delay` + a random jitter in `[0, jitter]` after the previous call
//! ENDED. Measuring from the end (not the start) makes the spacing hold at the provider's
//! side whatever the network latency does.

use rand::Rng;
use std::future::Future;
use std::time::{Duration, Instant};

/// Shared spacing of provider calls.
#[derive(Debug)]
pub struct Limiter {
    min_delay: Duration,
    jitter: Duration,
    last_end: tokio::sync::Mutex<Option<Instant>>,
}

impl Limiter {
    /// A limiter with the given minimum spacing and jitter bound.
    pub fn new(min_delay: Duration, jitter: Duration) -> Limiter {
        Limiter {
            min_delay,
            jitter,
            last_end: tokio::sync::Mutex::new(None),
        }
    }

    /// Runs one provider call when its turn has come.
    pub async fn run<T>(&self, call: impl Future<Output = T>) -> T {
        let mut last = self.last_end.lock().await;
        if let Some(end) = *last {
            let at = end + self.min_delay + self.next_jitter();
            tokio::time::sleep_until(at.into()).await;
        }
        let out = call.await;
        *last = Some(Instant::now());
        out
    }

    fn next_jitter(&self) -> Duration {
        if self.jitter.is_zero() {
            return Duration::ZERO;
        }
        self.jitter.mul_f64(rand::rng().random_range(0.0..=1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_its_bound_and_varies() {
        let l = Limiter::new(Duration::ZERO, Duration::from_millis(50));
        let draws: Vec<Duration> = (0..200).map(|_| l.next_jitter()).collect();
        assert!(draws.iter().all(|d| *d <= Duration::from_millis(50)));
        assert!(draws.iter().any(|d| *d != draws[0]));
    }
}
