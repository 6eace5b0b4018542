//! Errors of the crawler: what ends a job (`JobError`) and what fails one item only
//! (`ItemError`, counted as `failed=` while the run goes on, CONTRACT §11).

use bandmap_db::DbError;
use bandmap_upstream::{FetchError, ParseError};

/// Why a job stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The database failed: the job cannot continue.
    #[error("database: {0}")]
    Db(#[from] DbError),
    /// A listing could not be read after the client's retries.
    #[error("listing unreadable: {0}")]
    Listing(String),
    /// The crawler is shutting down: the current item is abandoned.
    #[error("stopped: crawler shutting down")]
    Shutdown,
    /// The job panicked (caught; the scheduler goes on).
    #[error("{0}")]
    Panicked(String),
}

/// Why one item (a band, a page) failed.
#[derive(Debug, thiserror::Error)]
pub enum ItemError {
    /// The page could not be fetched (after retries).
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The page did not parse (the message names its URL).
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The page is not the one asked for.
    #[error("{url}: page is of band {found}, not {wanted}")]
    WrongBand {
        /// Requested page.
        url: String,
        /// Band id asked for.
        wanted: i64,
        /// Band id the page shows.
        found: i64,
    },
    /// The database failed (ends the job).
    #[error("database: {0}")]
    Db(#[from] DbError),
    /// Shutdown while fetching (ends the job).
    #[error("stopped: crawler shutting down")]
    Stopped,
}

impl ItemError {
    /// The job-level error behind this item error, when the job cannot go on.
    pub fn fatal(self) -> Result<ItemError, JobError> {
        match self {
            ItemError::Db(e) => Err(JobError::Db(e)),
            ItemError::Stopped => Err(JobError::Shutdown),
            other => Ok(other),
        }
    }
}
