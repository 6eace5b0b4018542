//! Our own extractors: a malformed query or body answers with our JSON 400 (CONTRACT §4),
//! never axum's plain-text rejection; and text inputs are cleaned of control characters.

use crate::error::ApiError;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, Uri};
use serde::de::DeserializeOwned;

/// Query string deserialised into `T`; failure → 400 naming the problem: a typed
/// parameter's own message ([`crate::param`]), else `invalid query: …` (e.g. a parameter
/// given twice).
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Query(q.0))
            .map_err(|e| query_rejection(&e.body_text()))
    }
}

/// The query string of `uri` deserialised into `T`, refused as [`Query`] refuses it: for a
/// handler that looks at the query string as sent before it parses it.
pub fn parse_query<T: DeserializeOwned>(uri: &Uri) -> Result<T, ApiError> {
    axum::extract::Query::<T>::try_from_uri(uri)
        .map(|q| q.0)
        .map_err(|e| query_rejection(&e.body_text()))
}

/// The 400 of a query string that did not deserialise (axum's text of it).
fn query_rejection(text: &str) -> ApiError {
    match crate::param::refusal(text) {
        Some(message) => ApiError::bad_request(message),
        None => ApiError::bad_request(format!("invalid query: {text}")),
    }
}

/// JSON body deserialised into `T`; a malformed body → 400, while a wrong content type
/// (415) or an oversized body (413) keep their own status.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        axum::Json::<T>::from_request(req, state)
            .await
            .map(|j| Json(j.0))
            .map_err(|e| {
                let message = format!("invalid JSON body: {}", e.body_text());
                match e.status() {
                    StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::PAYLOAD_TOO_LARGE => {
                        ApiError::refused(e.status(), message)
                    }
                    _ => ApiError::bad_request(message),
                }
            })
    }
}

/// Path parameters; failure (e.g. a non-numeric id) → 400.
#[derive(Debug, Clone, Copy, Default)]
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Path(p.0))
            .map_err(|e| ApiError::bad_request(format!("invalid path: {}", e.body_text())))
    }
}

pub use bandmap_db::like::escape as like_escape;
pub use bandmap_import::clean_text;

/// A case-insensitive substring pattern for `ILIKE … ESCAPE '\'`, from cleaned text
/// truncated to `max_chars` characters.
pub fn contains_pattern(input: &str, max_chars: usize) -> String {
    let cleaned: String = clean_text(input, false).chars().take(max_chars).collect();
    format!("%{}%", like_escape(cleaned.trim()))
}

/// Parses a boolean query value: `true`, `false`, `1`, `0` (CONTRACT §4).
pub fn parse_bool(name: &str, value: &str) -> Result<bool, ApiError> {
    match value {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(ApiError::bad_request(format!(
            "{name} must be true, false, 1 or 0"
        ))),
    }
}

/// The paging parameters of a list (CONTRACT §4), typed; a query struct flattens them
/// (`#[serde(flatten)] #[param(ignore)]`) and its path lists them (`params(…, PageParams)`).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Page size (default 50, max 500).
    #[serde(default, deserialize_with = "crate::param::limit")]
    #[param(inline)]
    pub limit: Option<crate::param::NonNegative>,
    /// Rows to skip.
    #[serde(default, deserialize_with = "crate::param::offset")]
    #[param(inline)]
    pub offset: Option<crate::param::NonNegative>,
}

impl PageParams {
    /// The page asked for.
    pub fn page(&self) -> Page {
        Page::of(self.limit, self.offset)
    }
}

/// Paging of lists: default limit 50, maximum 500 (clamped), offset ≥ 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Rows to return.
    pub limit: i64,
    /// Rows to skip.
    pub offset: i64,
}

impl Page {
    /// Default page size.
    pub const DEFAULT_LIMIT: i64 = 50;
    /// Largest page size; larger values are clamped.
    pub const MAX_LIMIT: i64 = 500;

    /// The page of typed `limit` / `offset` parameters: absent → the defaults, a larger
    /// limit clamped.
    pub fn of(
        limit: Option<crate::param::NonNegative>,
        offset: Option<crate::param::NonNegative>,
    ) -> Page {
        Page {
            limit: limit
                .map_or(Self::DEFAULT_LIMIT, |l| l.0)
                .min(Self::MAX_LIMIT),
            offset: offset.map_or(0, |o| o.0),
        }
    }

    /// Parses raw `limit` / `offset` strings; a non-integer or negative value → 400.
    pub fn parse(limit: Option<&str>, offset: Option<&str>) -> Result<Page, ApiError> {
        let num = |name: &str, v: Option<&str>, default: i64| -> Result<i64, ApiError> {
            match v.map(str::trim) {
                None | Some("") => Ok(default),
                Some(s) => match s.parse::<i64>() {
                    Ok(n) if n >= 0 => Ok(n),
                    _ => Err(ApiError::bad_request(format!(
                        "{name} must be a non-negative integer"
                    ))),
                },
            }
        };
        Ok(Page {
            limit: num("limit", limit, Self::DEFAULT_LIMIT)?.min(Self::MAX_LIMIT),
            offset: num("offset", offset, 0)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_rules() {
        assert_eq!(
            Page::parse(None, None).unwrap(),
            Page {
                limit: 50,
                offset: 0
            }
        );
        assert_eq!(
            Page::parse(Some("9999"), Some("3")).unwrap(),
            Page {
                limit: 500,
                offset: 3
            }
        );
        assert!(Page::parse(Some("abc"), None).is_err());
        assert!(Page::parse(None, Some("-1")).is_err());
        assert!(Page::parse(Some("1.5"), None).is_err());
    }

    #[test]
    fn text_cleaning() {
        assert_eq!(clean_text("a\u{0}b\u{7f}c\nd", false), "abcd");
        assert_eq!(clean_text("a\tb\nc\u{1}", true), "a\tb\nc");
        assert_eq!(contains_pattern("50%_off\\", 100), "%50\\%\\_off\\\\%");
        assert_eq!(contains_pattern(&"é".repeat(300), 100).chars().count(), 102);
    }

    #[test]
    fn booleans() {
        assert!(parse_bool("x", "1").unwrap());
        assert!(!parse_bool("x", "false").unwrap());
        assert!(parse_bool("x", "yes").is_err());
    }
}
