//! The integration tests of `bandmap-location`, one test binary: each former `tests/*.rs`
//! file is a module.

mod place_names;
mod props;
mod real_world;
