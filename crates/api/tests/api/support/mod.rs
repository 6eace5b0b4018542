//! Helpers shared by the modules of the test binary.

pub mod admin;
pub mod db_proxy;
