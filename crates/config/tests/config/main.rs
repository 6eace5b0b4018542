//! The integration tests of `bandmap-config`, one test binary: each former
//! `tests/*.rs` file is a module.

mod docs_table;
mod limits;
mod validation;
