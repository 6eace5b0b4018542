//! Time as the services see it: the one injectable [`Clock`] (the crawler's scheduler, the
//! API's lockout windows) and the one retry [`Backoff`] policy.

pub mod backoff;
pub mod clock;

pub use backoff::Backoff;
pub use clock::{Clock, ManualClock, SystemClock};
