//! Bulk import of bands: `bandmap import FILE` and `POST /api/import/bands` (bearer
//! `BANDMAP_IMPORT_TOKEN`, in `bandmap-api`) share this parser and the crawler's upsert path
//! (`bandmap_db::bands::upsert::upsert_bands`), so locked fields and conflicts are
//! respected. The whole input is validated before anything is written, and written in one
//! transaction.

mod parse;
mod text;

pub use parse::{InvalidInput, ReadError, YEAR_MIN, parse_bands, parse_reader};
pub use text::clean_text;

use bandmap_db::PgPool;
use bandmap_db::bands::upsert::{UpsertReport, upsert_bands};
use chrono::{Datelike, Utc};
use std::path::{Path, PathBuf};

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// The input is invalid; nothing was written.
    #[error("invalid input, nothing imported: {0}")]
    Invalid(#[from] InvalidInput),
    /// The database refused the upsert; nothing was written.
    #[error("database: {0}")]
    Db(#[from] bandmap_db::DbError),
}

/// Latest accepted `formed_year`: next year.
pub fn max_year() -> i32 {
    Utc::now().year() + 1
}

/// Imports an NDJSON (or JSON array) file: the `bandmap import FILE` command. The file is
/// read as it is parsed (on a blocking thread), never whole into memory.
pub async fn import_file(pool: &PgPool, path: &Path) -> Result<UpsertReport, ImportError> {
    let owned = path.to_path_buf();
    let year = max_year();
    let parsed = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(&owned)?;
        parse_reader(std::io::BufReader::new(file), year)
    })
    .await
    .map_err(|e| ReadError::Io(std::io::Error::other(e)));
    let bands = match parsed.and_then(|r| r) {
        Ok(bands) => bands,
        Err(ReadError::Invalid(e)) => return Err(e.into()),
        Err(ReadError::Io(source)) => {
            return Err(ImportError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    Ok(upsert_bands(pool, &bands).await?)
}

/// Imports a whole NDJSON (or JSON array) body: validated first, then upserted in one
/// transaction.
pub async fn import_body(pool: &PgPool, body: &[u8]) -> Result<UpsertReport, ImportError> {
    let bands = parse_bands(body, max_year())?;
    Ok(upsert_bands(pool, &bands).await?)
}
