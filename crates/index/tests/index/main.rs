//! The integration tests of `bandmap-index`, one test binary: each former
//! `tests/*.rs` file is a module, the shared helpers are `common`.

mod band_search;
mod common;
mod countries;
mod flows_reference;
mod name_search;
mod reference;
mod refresh;
mod refresh_task;
