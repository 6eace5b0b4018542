//! Pure parsers of upstream pages. Every function here takes text (or already-decoded JSON)
//! and returns a typed value or a [`ParseError`]; none does I/O and none panics on any input.

mod band;
mod block;
mod discography;
mod json;
mod lists;
mod text;

pub use band::{BandPage, Member, parse_band_page};
pub use block::{BlockKind, block_page};
pub use discography::{Release, parse_discography};
pub use json::unwrap_json;
pub use lists::{
    ChangePage, ChangedBand, CountryPage, ListedBand, parse_change_page, parse_country_page,
};

/// Why a page could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// JSON was expected but the body is empty, `0`, `Forbidden.`, an HTML page or any other
    /// non-JSON text. The solver client treats this as a session fault (CONTRACT §8).
    #[error("body is not JSON: {snippet:?}")]
    NotJson {
        /// The first characters of the offending body, for logs.
        snippet: String,
    },
    /// The JSON parsed but does not have the DataTables envelope or row shape we read.
    #[error("unexpected JSON shape: {0}")]
    Shape(String),
    /// A required element of an HTML page is absent.
    #[error("missing {0}")]
    Missing(&'static str),
    /// The same error, located: the URL of the page that failed.
    #[error("{url}: {source}")]
    At {
        /// The page's URL as requested.
        url: String,
        /// What went wrong.
        source: Box<ParseError>,
    },
}

impl ParseError {
    /// Attach the URL of the page to this error (keeps the innermost cause).
    #[must_use]
    pub fn at(self, url: &str) -> Self {
        match self {
            Self::At { source, .. } => Self::At {
                url: url.to_owned(),
                source,
            },
            other => Self::At {
                url: url.to_owned(),
                source: Box::new(other),
            },
        }
    }

    /// The cause without its location.
    #[must_use]
    pub fn kind(&self) -> &ParseError {
        match self {
            Self::At { source, .. } => source.kind(),
            other => other,
        }
    }

    /// True when the body was not JSON (a session fault for the client).
    #[must_use]
    pub fn is_not_json(&self) -> bool {
        matches!(self.kind(), Self::NotJson { .. })
    }
}

/// A short, char-boundary-safe prefix of `s` for error messages.
pub(crate) fn snippet(s: &str) -> String {
    s.chars().take(80).collect()
}
