//! Upstream (Encyclopaedia Metallum) access: pure page parsers, the challenge-solver client and
//! the recorded mode.
//!
//! - [`parse`]: pure functions from page text to typed values (no I/O, no async, never panic).
//! - [`url`]: builders for every upstream URL the crawler requests.
//! - [`client`]: [`UpstreamClient`], fetching through a FlareSolverr-compatible solver or
//!   reading recorded pages from a directory (`UPSTREAM_MODE`).

pub mod client;
pub mod parse;
pub mod url;

pub use client::{
    ClientStats, FaultKind, FetchError, SolverClient, SolverConfig, UpstreamClient, UpstreamMode,
};
pub use parse::{BlockKind, ParseError};
pub use url::{ChangeKind, UpstreamUrls};
