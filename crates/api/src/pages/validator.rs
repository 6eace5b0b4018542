//! A validator for the pages written per request (town and band pages, sitemaps): a weak
//! ETag that hashes the written page, and `If-None-Match` → 304. The pages say `no-cache`
//! (the data moves with every crawl), so a browser or a search engine asks again on every
//! visit; with a validator, a page that did not change costs them a 304 instead of the page.
//! The server still writes the page to know its hash: this saves bytes and the client's
//! time, not the server's work (the pages keep their rate limit).

use crate::public::cache;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Largest page given a validator: a sitemap file (at most 40,000 addresses) is a few MB; a
/// body larger than this, or of unknown length, goes out as it is, without one.
const MAX_PAGE: usize = 16 * 1024 * 1024;

/// Middleware: a `200` without an ETag gets one of its bytes; when the request's
/// `If-None-Match` names it, the answer is a `304` with the page's validators
/// (`ETag`, `Cache-Control`, `Vary`) and no body.
pub async fn validate(req: Request, next: Next) -> Response {
    let asked = if_none_match(req.headers());
    let res = next.run(req).await;
    if res.status() != StatusCode::OK || res.headers().contains_key(header::ETAG) {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let known = body.size_hint().upper();
    if known.is_none_or(|n| n > MAX_PAGE as u64) {
        return Response::from_parts(parts, body);
    }
    let bytes = match axum::body::to_bytes(body, MAX_PAGE).await {
        Ok(bytes) => bytes,
        Err(e) => {
            tracing::warn!(error = %e, "page body unreadable");
            return crate::error::ApiError::internal(e).into_response();
        }
    };
    let etag = etag_of(&bytes);
    if let Ok(v) = HeaderValue::from_str(&etag) {
        parts.headers.insert(header::ETAG, v);
    }
    if cache::not_modified(&asked, &etag) {
        return not_modified(parts.headers);
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The request's `If-None-Match` values alone (the request itself moves into the handler).
fn if_none_match(headers: &HeaderMap) -> HeaderMap {
    let mut kept = HeaderMap::new();
    for v in headers.get_all(header::IF_NONE_MATCH) {
        kept.append(header::IF_NONE_MATCH, v.clone());
    }
    kept
}

/// `W/"h…"`: a hash of the page's bytes.
fn etag_of(bytes: &Bytes) -> String {
    cache::content_etag('h', bytes)
}

/// A 304 carrying the headers a cache needs from the 200 it stands for (RFC 9110 §15.4.5).
/// The server's `CompressionLayer` adds `Vary: accept-encoding` to the pages' 200s after
/// this layer; a 304 has no body for it to look at, so it is added here.
fn not_modified(page: HeaderMap) -> Response {
    let mut res = StatusCode::NOT_MODIFIED.into_response();
    for name in [header::ETAG, header::CACHE_CONTROL, header::VARY] {
        for v in page.get_all(&name) {
            res.headers_mut().append(name.clone(), v.clone());
        }
    }
    let varies_on_coding = page.get_all(header::VARY).iter().any(|v| {
        v.to_str()
            .is_ok_and(|v| v.to_ascii_lowercase().contains("accept-encoding"))
    });
    if !varies_on_coding {
        res.headers_mut()
            .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_etag_follows_the_bytes() {
        let a = etag_of(&Bytes::from_static(b"<p>Oslo</p>"));
        assert_eq!(a, etag_of(&Bytes::from_static(b"<p>Oslo</p>")));
        assert_ne!(a, etag_of(&Bytes::from_static(b"<p>Bergen</p>")));
        assert!(a.starts_with("W/\"h") && a.ends_with('"'), "{a}");
    }

    #[test]
    fn a_304_keeps_the_validators_and_nothing_else() {
        let mut page = HeaderMap::new();
        page.insert(header::ETAG, HeaderValue::from_static("W/\"h1\""));
        page.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        page.insert(header::VARY, HeaderValue::from_static("Accept-Language"));
        page.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
        let res = not_modified(page);
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(res.headers()[header::ETAG], "W/\"h1\"");
        let vary: Vec<_> = res.headers().get_all(header::VARY).iter().collect();
        assert_eq!(vary, ["Accept-Language", "accept-encoding"]);
        assert!(res.headers().get(header::CONTENT_TYPE).is_none());
    }
}
