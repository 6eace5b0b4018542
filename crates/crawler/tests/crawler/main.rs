//! The integration tests of `bandmap-crawler`, one test binary: each former
//! `tests/*.rs` file is a module, the shared helpers are `common`.

mod common;
mod demo;
mod run_requests;
mod runtime;
mod scheduler;
mod solver;
