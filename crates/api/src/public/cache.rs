//! HTTP caching of public answers: `Cache-Control`, ETags and `If-None-Match` → 304.

use crate::encoded::Coding;
use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::hash::Hasher;

/// Public answers may be cached for a short time by browsers and proxies.
pub const CACHE_CONTROL: &str = "public, max-age=30";

/// Whether `If-None-Match` names `etag` (weak comparison) or `*`.
pub fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    names(headers.get_all(header::IF_NONE_MATCH).iter(), etag)
}

/// Whether one of the `If-None-Match` values lists `etag` (weak comparison: `W/` set
/// aside) or `*`. Compares slices of the values: nothing is allocated.
fn names<'a>(values: impl Iterator<Item = &'a HeaderValue>, etag: &str) -> bool {
    let opaque = |t: &'a str| t.trim().trim_start_matches("W/");
    let want = etag.trim().trim_start_matches("W/");
    values
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || opaque(t) == want)
}

/// What a request asks of a kept answer: the validators it holds (`If-None-Match`) and the
/// coding it takes (`Accept-Encoding`). Read from the request's headers by reference: the
/// map endpoints once took the whole `HeaderMap`, which axum copies for the handler.
#[derive(Debug, Clone)]
pub struct Asked {
    /// The `If-None-Match` values (none on most requests: no allocation then).
    validators: Vec<HeaderValue>,
    /// The coding to answer in.
    pub coding: Coding,
}

impl Asked {
    /// What `headers` ask.
    pub fn of(headers: &HeaderMap) -> Asked {
        Asked {
            validators: headers
                .get_all(header::IF_NONE_MATCH)
                .iter()
                .cloned()
                .collect(),
            coding: Coding::preferred(headers),
        }
    }

    /// Whether the client holds the answer named `etag` (a 304 then).
    pub fn holds(&self, etag: &str) -> bool {
        names(self.validators.iter(), etag)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Asked {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Asked, Infallible> {
        Ok(Asked::of(&parts.headers))
    }
}

/// The 304 answer carrying the validators.
pub fn not_modified_response(etag: &str) -> Response {
    not_modified_response_with(CACHE_CONTROL, etag)
}

/// [`not_modified_response`] with another `Cache-Control`.
pub fn not_modified_response_with(cache_control: &'static str, etag: &str) -> Response {
    let mut res = StatusCode::NOT_MODIFIED.into_response();
    let h = res.headers_mut();
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control),
    );
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    res
}

/// A weak ETag naming `bytes`: `W/"<kind><64-bit hash>"`. The kind letter keeps the ETags
/// of different sorts of answers apart (`c` JSON answers, `s` files read from `WEB_DIR`,
/// `p` the map page and the embed, `h` the server-written pages).
pub fn content_etag(kind: char, bytes: &[u8]) -> String {
    let mut h = std::hash::DefaultHasher::new();
    h.write(bytes);
    format!("W/\"{kind}{:016x}\"", h.finish())
}

/// A JSON answer with `Cache-Control` and a content ETag; 304 when the client has it.
pub fn json_response<T: serde::Serialize>(headers: &HeaderMap, value: &T) -> Response {
    let body = match serde_json::to_vec(value) {
        Ok(b) => b,
        Err(e) => return crate::error::ApiError::internal(e).into_response(),
    };
    let etag = content_etag('c', &body);
    if not_modified(headers, &etag) {
        return not_modified_response(&etag);
    }
    let mut res = (StatusCode::OK, body).into_response();
    let hm = res.headers_mut();
    hm.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    hm.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Ok(v) = HeaderValue::from_str(&etag) {
        hm.insert(header::ETAG, v);
    }
    res
}

/// A 200 of `body`, already in `coding` (`crate::encoded`), with its content type,
/// `Cache-Control`, ETag and `Vary: Accept-Encoding` (the same URL answers other bytes to
/// a client asking another coding). An answer with `Content-Encoding` passes through the
/// server's `CompressionLayer` as it is.
pub fn encoded_response(
    content_type: &'static str,
    etag: &str,
    answer: (Bytes, Coding),
) -> Response {
    encoded_response_with(
        HeaderValue::from_static(content_type),
        CACHE_CONTROL,
        etag,
        answer,
    )
}

/// [`encoded_response`] with any content type and `Cache-Control`.
pub fn encoded_response_with(
    content_type: HeaderValue,
    cache_control: &'static str,
    etag: &str,
    (body, coding): (Bytes, Coding),
) -> Response {
    let mut res = (StatusCode::OK, body).into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, content_type);
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control),
    );
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(
        header::VARY,
        HeaderValue::from_static(header::ACCEPT_ENCODING.as_str()),
    );
    if let Some(v) = coding.header_value() {
        h.insert(header::CONTENT_ENCODING, v);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(values: &[&str], accept: Option<&str>) -> Asked {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::IF_NONE_MATCH, HeaderValue::from_str(v).unwrap());
        }
        if let Some(a) = accept {
            h.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(a).unwrap());
        }
        Asked::of(&h)
    }

    #[test]
    fn a_request_without_validators_holds_nothing() {
        assert!(!asked(&[], None).holds("W/\"m1-2\""));
    }

    #[test]
    fn validators_compare_weakly_in_lists_and_across_header_lines() {
        let etag = "W/\"m1-2\"";
        assert!(asked(&["W/\"m1-2\""], None).holds(etag));
        assert!(
            asked(&["\"m1-2\""], None).holds(etag),
            "strong form of the same tag"
        );
        assert!(
            asked(&["\"x\", W/\"m1-2\" "], None).holds(etag),
            "second of a list"
        );
        assert!(
            asked(&["\"x\"", "W/\"m1-2\""], None).holds(etag),
            "second header line"
        );
        assert!(asked(&["*"], None).holds(etag));
        assert!(!asked(&["W/\"m1-3\"", "\"m1-2"], None).holds(etag));
        assert!(!asked(&[""], None).holds(etag));
    }

    #[test]
    fn the_extractor_and_the_header_map_agree() {
        let mut h = HeaderMap::new();
        h.append(
            header::IF_NONE_MATCH,
            HeaderValue::from_static("\"a\", W/\"b\""),
        );
        for tag in ["W/\"a\"", "\"b\"", "W/\"c\""] {
            assert_eq!(Asked::of(&h).holds(tag), not_modified(&h, tag), "{tag}");
        }
    }

    #[test]
    fn the_coding_is_negotiated_once() {
        assert_eq!(asked(&[], None).coding, Coding::Identity);
        assert_eq!(
            asked(&[], Some("gzip, deflate, br, zstd")).coding,
            Coding::Brotli
        );
        assert_eq!(asked(&[], Some("gzip")).coding, Coding::Gzip);
    }
}
