//! The integration tests of `bandmap-geocode`, one test binary: each former
//! `tests/*.rs` file is a module, the shared helpers are `common`. `tests/metrics.rs` stays a
//! binary of its own: it installs the process-wide metrics recorder and counts exactly.

mod batch;
mod common;
mod pipeline;
mod runtime;
mod shared_pacing;
mod worker;
