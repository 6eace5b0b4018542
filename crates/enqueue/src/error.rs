//! Errors that end a scan (`crawl_run` status `error`). Per-row failures are not errors:
//! they are counted in `failed` and logged.

/// The scan itself could not continue.
#[derive(Debug, thiserror::Error)]
pub enum EnqueueError {
    /// A database operation the scan depends on failed (reading bands, opening or closing
    /// the run, a transaction).
    #[error("database: {0}")]
    Db(#[from] bandmap_db::DbError),
    /// The planning task of a batch died.
    #[error("planning a batch failed: {0}")]
    Planner(#[from] tokio::task::JoinError),
}
