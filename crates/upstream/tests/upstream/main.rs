//! The integration tests of `bandmap-upstream`, one test binary: each former
//! `tests/*.rs` file is a module.

mod parse_fixtures;
mod parse_props;
mod recorded_mode;
mod solver_client;
