//! The one provider rate limiter of the process (rule 14). Every provider call of every
//! row and task (including retries and the heartbeat probe) runs inside [`Limiter::run`],
//! which holds the limiter for the duration of the call and starts the next call no
//! earlier than `min_delay` + a random jitter in `[0, jitter]` after the previous call
//! ENDED. Measuring from the end (not the start) makes the spacing hold at the provider's
//! side whatever the network latency does.

use std::future::Future;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Shared spacing of provider calls.
#[derive(Debug)]
pub struct Limiter {
    min_delay: Duration,
    jitter: Duration,
    last_end: tokio::sync::Mutex<Option<Instant>>,
    rng: Mutex<u64>,
}

impl Limiter {
    /// A limiter with the given minimum spacing and jitter bound.
    pub fn new(min_delay: Duration, jitter: Duration) -> Limiter {
        // Seed from the std random hasher: no extra dependency for a jitter.
        let seed = RandomState::new().hash_one(Instant::now()) | 1;
        Limiter {
            min_delay,
            jitter,
            last_end: tokio::sync::Mutex::new(None),
            rng: Mutex::new(seed),
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
        let mut s = match self.rng.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        // xorshift64*: plenty for spreading request times.
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        let r = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
        let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
        self.jitter.mul_f64(unit)
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
