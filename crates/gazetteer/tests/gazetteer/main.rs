//! The integration tests of `bandmap-gazetteer`, one test binary: each former `tests/*.rs`
//! file is a module; their data stays in `tests/data/`.

mod europe_eval;
mod lookup_props;
mod precision;
mod real_forms;
