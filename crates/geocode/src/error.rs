//! Errors of the geocoding crate (resolution itself never fails: it returns a
//! [`crate::Resolution`]; these are the database and set-up failures around it).

/// A geocoding operation could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum GeocodeError {
    /// A named query of the db crate failed.
    #[error(transparent)]
    Db(#[from] bandmap_db::DbError),
    /// A transaction statement failed.
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    /// The HTTP client of the provider could not be built.
    #[error("HTTP client: {0}")]
    Client(String),
}

impl GeocodeError {
    /// Whether the database could not be used at all (the connection broke, the pool had
    /// none, the server is restarting): the row met no failure of its own.
    pub fn is_database_unavailable(&self) -> bool {
        match self {
            GeocodeError::Db(e) => e.is_unavailable(),
            GeocodeError::Sqlx(e) => bandmap_db::is_unavailable(e),
            GeocodeError::Client(_) => false,
        }
    }
}
