//! Fetching upstream pages. [`UpstreamClient`] is chosen by `UPSTREAM_MODE`:
//! `solver` goes through a FlareSolverr-compatible challenge solver ([`SolverClient`]),
//! `recorded:DIR` reads recorded pages from a directory ([`RecordedClient`]). Both return
//! page text; JSON goes through [`crate::parse::unwrap_json`] in both.

mod recorded;
mod solver;

use std::path::PathBuf;
use std::str::FromStr;

pub use recorded::{RecordedClient, recorded_path};
pub use solver::{SolverClient, SolverConfig};

use crate::parse::{BlockKind, ParseError};

/// Where pages come from (`UPSTREAM_MODE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamMode {
    /// Through the challenge solver (`solver`).
    Solver,
    /// From a directory of recorded pages (`recorded:DIR`).
    Recorded(PathBuf),
}

impl FromStr for UpstreamMode {
    type Err = FetchError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "solver" {
            return Ok(Self::Solver);
        }
        match s.strip_prefix("recorded:") {
            Some(dir) if !dir.is_empty() => Ok(Self::Recorded(PathBuf::from(dir))),
            _ => Err(FetchError::InvalidMode(s.to_owned())),
        }
    }
}

/// A condition that means the solver session is spent (CONTRACT §8): the session is
/// destroyed and recreated, and the request retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// The solver answered with HTTP 403 or 429.
    SolverHttp(u16),
    /// `solution.status` was 403 or 429.
    UpstreamStatus(u16),
    /// The solver reported that upstream blocked the request.
    SolverBlocked(String),
    /// The page is a challenge or block page.
    BlockPage(BlockKind),
    /// The body was empty.
    EmptyBody,
    /// JSON was expected and the body is not JSON (`0`, `Forbidden.`, HTML…).
    NotJson,
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SolverHttp(s) => write!(f, "solver HTTP {s}"),
            Self::UpstreamStatus(s) => write!(f, "upstream status {s}"),
            Self::SolverBlocked(m) => write!(f, "solver says blocked: {m}"),
            Self::BlockPage(k) => write!(f, "{k} page"),
            Self::EmptyBody => f.write_str("empty body"),
            Self::NotJson => f.write_str("non-JSON body"),
        }
    }
}

/// Why a page could not be fetched. Every variant concerns one item: the client stays usable.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// `UPSTREAM_MODE` is neither `solver` nor `recorded:DIR`.
    #[error("invalid UPSTREAM_MODE {0:?} (expected `solver` or `recorded:DIR`)")]
    InvalidMode(String),
    /// The solver URL could not be used to build an HTTP client.
    #[error("cannot build the solver client: {0}")]
    Setup(String),
    /// One attempt hit a session fault (see [`FaultKind`]).
    #[error("{url}: {kind}")]
    Fault {
        /// Requested page.
        url: String,
        /// What went wrong.
        kind: FaultKind,
    },
    /// The solver answered `status: error` (timeout, browser failure…).
    #[error("{url}: solver error: {message}")]
    Solver {
        /// Requested page.
        url: String,
        /// The solver's message.
        message: String,
    },
    /// The solver could not be reached or the connection failed.
    #[error("{url}: solver unreachable: {source}")]
    Transport {
        /// Requested page.
        url: String,
        /// The HTTP client's error.
        #[source]
        source: reqwest::Error,
    },
    /// The solver's answer is not the FlareSolverr protocol.
    #[error("{url}: unexpected solver answer: {detail}")]
    Protocol {
        /// Requested page.
        url: String,
        /// What was wrong with it.
        detail: String,
    },
    /// Every attempt failed: the first plus the allowed retries.
    #[error("{url}: gave up after {attempts} attempts; last: {last}")]
    Exhausted {
        /// Requested page.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's error.
        last: Box<FetchError>,
    },
    /// Recorded mode: no file for this URL.
    #[error("{url}: not recorded (expected {path})")]
    NotRecorded {
        /// Requested page.
        url: String,
        /// File that was looked for.
        path: PathBuf,
    },
    /// Recorded mode: the file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// File that was read.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Recorded mode: the page is not what was expected (e.g. not JSON).
    #[error(transparent)]
    Parse(#[from] ParseError),
}

impl FetchError {
    /// The session fault behind this error, if it is one (looking through `Exhausted`).
    #[must_use]
    pub fn fault(&self) -> Option<&FaultKind> {
        match self {
            Self::Fault { kind, .. } => Some(kind),
            Self::Exhausted { last, .. } => last.fault(),
            _ => None,
        }
    }
}

/// Counters of a client's activity, for benches, tests and heartbeats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// Page requests sent (`request.get` commands, or recorded files read).
    pub requests: u64,
    /// Sessions created (`sessions.create`).
    pub sessions_created: u64,
    /// Sessions destroyed and recreated because of a fault.
    pub session_recreations: u64,
    /// Faults seen (every attempt that hit a [`FaultKind`]).
    pub faults: u64,
    /// Retries made (attempts after the first).
    pub retries: u64,
}

/// The upstream client of the service: one of the two modes.
#[derive(Debug)]
pub enum UpstreamClient {
    /// Through the challenge solver.
    Solver(SolverClient),
    /// From recorded pages.
    Recorded(RecordedClient),
}

impl UpstreamClient {
    /// Build the client for `mode`; `solver` is used only in solver mode.
    pub fn new(mode: &UpstreamMode, solver: SolverConfig) -> Result<Self, FetchError> {
        Ok(match mode {
            UpstreamMode::Solver => Self::Solver(SolverClient::new(solver)?),
            UpstreamMode::Recorded(dir) => Self::Recorded(RecordedClient::new(dir.clone())),
        })
    }

    /// Build from the raw `UPSTREAM_MODE` and `CHALLENGE_SOLVER_URL` values.
    pub fn from_env_values(mode: &str, solver_url: &str) -> Result<Self, FetchError> {
        Self::new(&mode.parse()?, SolverConfig::new(solver_url))
    }

    /// Fetch an HTML page.
    pub async fn get_html(&self, url: &str) -> Result<String, FetchError> {
        match self {
            Self::Solver(c) => c.get_html(url).await,
            Self::Recorded(c) => c.get_html(url).await,
        }
    }

    /// Fetch a JSON endpoint and decode it.
    pub async fn get_json(&self, url: &str) -> Result<serde_json::Value, FetchError> {
        match self {
            Self::Solver(c) => c.get_json(url).await,
            Self::Recorded(c) => c.get_json(url).await,
        }
    }

    /// Is the page source reachable (heartbeat check)?
    pub async fn ping(&self) -> Result<(), FetchError> {
        match self {
            Self::Solver(c) => c.ping().await,
            Self::Recorded(c) => c.ping().await,
        }
    }

    /// Release resources (destroys the solver session).
    pub async fn shutdown(&self) {
        match self {
            Self::Solver(c) => c.shutdown().await,
            Self::Recorded(_) => {}
        }
    }

    /// Activity counters.
    #[must_use]
    pub fn stats(&self) -> ClientStats {
        match self {
            Self::Solver(c) => c.stats(),
            Self::Recorded(c) => c.stats(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes() {
        assert_eq!(
            "solver".parse::<UpstreamMode>().unwrap(),
            UpstreamMode::Solver
        );
        assert_eq!(
            "recorded:demo/upstream".parse::<UpstreamMode>().unwrap(),
            UpstreamMode::Recorded("demo/upstream".into())
        );
        assert!("recorded:".parse::<UpstreamMode>().is_err());
        assert!("http".parse::<UpstreamMode>().is_err());
    }
}
