//! The integration tests of `bandmap-enqueue`, one test binary: each former
//! `tests/*.rs` file is a module, the shared helpers are `common`.

mod common;
mod daemon;
mod place_names;
mod runtime;
mod scan;
