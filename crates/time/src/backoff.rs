//! The one retry backoff policy: how long to wait before retry `n` (1-based), growing
//! linearly or doubling from a first delay, never beyond a cap.

use std::time::Duration;

/// How the delay grows from one retry to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Growth {
    /// Retry `n` waits `n × first`.
    Linear,
    /// Retry `n` waits `first × 2^(n−1)`.
    Doubling,
}

/// A backoff policy: first delay, growth, cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// Delay before the first retry.
    pub first: Duration,
    /// Largest single delay.
    pub max: Duration,
    /// Growth per retry.
    pub growth: Growth,
}

impl Backoff {
    /// `first × 2^(n−1)`, capped at `max`.
    pub const fn doubling(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            growth: Growth::Doubling,
        }
    }

    /// `n × first`, capped at `max`.
    pub const fn linear(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            growth: Growth::Linear,
        }
    }

    /// The delay before retry `n` (1-based; doubling reads 0 as 1, linear as no wait).
    pub fn delay(&self, n: u32) -> Duration {
        let factor = match self.growth {
            Growth::Linear => n,
            Growth::Doubling => 2u32.saturating_pow(n.saturating_sub(1)),
        };
        self.first.saturating_mul(factor).min(self.max)
    }

    /// The delay after `previous` for loops that carry the last delay instead of a count
    /// (doubling: twice `previous`; linear: `previous + first`), capped at `max`.
    pub fn after(&self, previous: Duration) -> Duration {
        let next = match self.growth {
            Growth::Linear => previous.saturating_add(self.first),
            Growth::Doubling => previous.saturating_mul(2),
        };
        next.min(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn doubling_starts_at_first_doubles_and_caps() {
        let b = Backoff::doubling(S(1), S(60));
        let seen: Vec<_> = (1..=8).map(|n| b.delay(n)).collect();
        assert_eq!(seen, [1, 2, 4, 8, 16, 32, 60, 60].map(S));
        assert_eq!(b.delay(0), S(1));
        assert_eq!(b.delay(u32::MAX), S(60));
        assert_eq!(b.after(S(16)), S(32));
        assert_eq!(b.after(S(40)), S(60));
    }

    #[test]
    fn linear_grows_by_first_and_caps() {
        let b = Backoff::linear(S(3), S(30));
        assert_eq!(b.delay(1), S(3));
        assert_eq!(b.delay(4), S(12));
        assert_eq!(b.delay(11), S(30));
        assert_eq!(b.after(S(27)), S(30));
        assert_eq!(
            Backoff::linear(S(3), Duration::MAX).delay(u32::MAX),
            S(3) * u32::MAX
        );
    }
}
