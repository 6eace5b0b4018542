//! The integration tests of `bandmap-llm`, one test binary: each former
//! `tests/*.rs` file is a module, the shared helpers are `common`. `tests/metrics.rs` stays a
//! binary of its own: it installs the process-wide metrics recorder and counts exactly.

mod cache_reads;
mod common;
mod heartbeat;
mod runtime;
mod service;
mod stable_prompt;
mod worker;
