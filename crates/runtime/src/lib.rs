//! The one service runtime of the background services (crawler, enqueue daemon, geocoder,
//! LLM worker). A service is a [`Service`] name, a heartbeat and one or more loops, each
//! driving a [`Unit`] of work:
//!
//! - [`drive`] runs one unit after another until shutdown: a unit that panics is caught
//!   and logged, one that fails is logged, and the next unit runs; after an idle, failed
//!   or panicked unit the loop sleeps (shutdown ends the sleep at once). [`Pace`] says how
//!   long it sleeps and whether shutdown waits for the unit in flight.
//! - [`Runtime`] starts a service: its heartbeat task (`service_health`, rule 22) and its
//!   loops, and returns once all have stopped on the shared `CancellationToken`.
//! - [`triggered`] runs the job of a claimed trigger and, when the job fails or panics
//!   before its run closed the trigger, closes the trigger `error`: the one place a failed
//!   trigger is closed.
//! - [`supervise`] restarts a whole service that returned, failed or panicked, with
//!   backoff (`bandmap all`).
//!
//! A new service implements [`Unit`] for its unit of work and builds a [`Runtime`] in its
//! `run(pool, config, shutdown)`; see docs/architecture.md.

mod drive;
mod panic;
mod runtime;
mod supervisor;
mod trigger;
mod unit;

#[cfg(feature = "testing")]
pub mod testing;

pub use bandmap_db::Service;
pub use bandmap_health::Heartbeat;
pub use drive::drive;
pub use panic::panic_message;
pub use runtime::Runtime;
pub use supervisor::{ServiceFactory, supervise};
pub use trigger::triggered;
pub use unit::{OnShutdown, Pace, Pass, Unit};
