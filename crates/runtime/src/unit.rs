//! [`Unit`]: one unit of work of a service (a scheduler step, a trigger poll, a batch of
//! rows, one row), and what the loop does after it.

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;

/// What a unit of work did, as far as its loop is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// It did some work: the next unit runs at once.
    Worked,
    /// Nothing was due: the loop sleeps its [`Pace::idle_poll`].
    Idle,
    /// The loop sleeps this long (a limiter's pause, the next scheduled scan).
    Pause(Duration),
}

/// One unit of work of a service. The loop ([`crate::drive`]) catches its panics and
/// logs its errors, so a unit only says what it did.
pub trait Unit: Send {
    /// What a failed unit reports (logged by the loop, which then sleeps).
    type Error: Display + Send;

    /// Does one unit of work.
    fn run(&mut self) -> impl Future<Output = Result<Pass, Self::Error>> + Send;
}

/// What shutdown does to a unit in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnShutdown {
    /// The unit finishes (it watches the token itself and stops at its next boundary).
    Finish,
    /// The unit is dropped where it stands (its claim or lease expires and the work is
    /// taken again).
    Abandon,
}

/// How a loop sleeps and stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// Sleep after an idle, failed or panicked unit.
    pub idle_poll: Duration,
    /// What shutdown does to the unit in flight.
    pub on_shutdown: OnShutdown,
}

impl Pace {
    /// Sleeps `idle_poll` when idle; shutdown waits for the unit in flight.
    pub const fn finishing(idle_poll: Duration) -> Pace {
        Pace {
            idle_poll,
            on_shutdown: OnShutdown::Finish,
        }
    }

    /// Sleeps `idle_poll` when idle; shutdown abandons the unit in flight.
    pub const fn abandoning(idle_poll: Duration) -> Pace {
        Pace {
            idle_poll,
            on_shutdown: OnShutdown::Abandon,
        }
    }
}
