//! Errors of the database layer.

/// A database operation failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The database could not be reached after every attempt.
    #[error("database unreachable after {attempts} attempts: {source}")]
    Unreachable {
        /// How many connections were tried.
        attempts: u32,
        /// The last connection error.
        #[source]
        source: sqlx::Error,
    },
    /// A migration file failed; start-up must stop.
    #[error("migration {file} failed: {source}")]
    Migration {
        /// File name of the migration.
        file: String,
        /// The database error.
        #[source]
        source: sqlx::Error,
    },
    /// An applied migration was changed afterwards.
    #[error("migration {file} was modified after it was applied (checksum differs)")]
    MigrationChanged {
        /// File name of the migration.
        file: String,
    },
    /// Any other query failure.
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
    /// Work beside the queries failed (a panicked blocking task): a bug, not the database.
    #[error("{0}")]
    Internal(String),
}

impl DbError {
    /// Whether the failure is a deadlock or a serialization failure: the database rolled
    /// the transaction back and the same transaction may simply be run again.
    pub fn is_retryable(&self) -> bool {
        match self {
            DbError::Sqlx(sqlx::Error::Database(e)) => {
                matches!(e.code().as_deref(), Some("40P01" | "40001"))
            }
            _ => false,
        }
    }
}
