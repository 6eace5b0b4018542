//! Errors of loading a gazetteer file.

use thiserror::Error;

/// Why a gazetteer could not be loaded.
#[derive(Debug, Error)]
pub enum GazetteerError {
    /// The file could not be opened or read.
    #[error("cannot read gazetteer file: {0}")]
    Io(#[from] std::io::Error),
    /// A line does not follow the format documented in docs/gazetteer.md.
    #[error("gazetteer line {line}: {reason}")]
    Format {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
}
