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

/// Whether `e` says the database could not be used at all — the connection broke or was
/// refused, the pool had none to give, the server is shutting down or starting — rather
/// than that the statement itself failed. Work that met it may simply be tried again once
/// the database is back; it says nothing about the row or the data.
pub fn is_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // SQLSTATE class 08 (connection exception); 57P01–57P03 (admin or crash shutdown,
        // cannot connect now); 53300 (too many connections).
        sqlx::Error::Database(d) => d.code().is_some_and(|c| {
            c.starts_with("08") || matches!(c.as_ref(), "57P01" | "57P02" | "57P03" | "53300")
        }),
        _ => false,
    }
}

impl DbError {
    /// Whether the database could not be used at all ([`is_unavailable`]).
    pub fn is_unavailable(&self) -> bool {
        match self {
            DbError::Unreachable { .. } => true,
            DbError::Sqlx(e) => is_unavailable(e),
            _ => false,
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_connection_or_an_empty_pool_is_unavailability() {
        let io = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(is_unavailable(&io));
        assert!(is_unavailable(&sqlx::Error::PoolTimedOut));
        assert!(is_unavailable(&sqlx::Error::PoolClosed));
        assert!(DbError::Sqlx(sqlx::Error::PoolTimedOut).is_unavailable());
        assert!(!is_unavailable(&sqlx::Error::RowNotFound));
        assert!(!DbError::Internal("bug".into()).is_unavailable());
    }
}
