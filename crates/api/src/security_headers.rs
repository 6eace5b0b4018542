//! Browser hardening headers on every answer (pages, static files, API): a
//! Content-Security-Policy that allows only this server's own scripts and styles, images
//! from here and from the configured tile host, and no framing; `nosniff`; a referrer
//! policy; a permissions policy denying what the pages never use.
//!
//! `Strict-Transport-Security` is not sent here: the server speaks plain HTTP and the TLS
//! proxy in front of it sets it (docs/operations.md).

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;

/// The browser features no page of this server uses.
const PERMISSIONS_POLICY: &str = "accelerometer=(), autoplay=(), camera=(), display-capture=(), \
     encrypted-media=(), fullscreen=(self), geolocation=(), gyroscope=(), magnetometer=(), \
     microphone=(), midi=(), payment=(), publickey-credentials-get=(), usb=(), \
     screen-wake-lock=(), xr-spatial-tracking=()";

/// The header values, built once from the configuration.
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    csp: HeaderValue,
    /// The same policy with `frame-ancestors *`: the embed page only (issue 28).
    embed_csp: HeaderValue,
}

impl SecurityHeaders {
    /// Headers for a server whose map loads tiles from `tile_url` (`MAP_TILE_URL`).
    pub fn new(tile_url: &str) -> Self {
        let policy = content_security_policy(tile_source(tile_url).as_deref());
        let csp = HeaderValue::from_str(&policy)
            .unwrap_or_else(|_| HeaderValue::from_static(STRICT_FALLBACK));
        let embed_csp = HeaderValue::from_str(&embed_policy(&policy))
            .unwrap_or_else(|_| HeaderValue::from_static(STRICT_FALLBACK));
        Self { csp, embed_csp }
    }
}

/// The policy used if the tile host cannot be written into a header (never expected: the
/// configuration validates `MAP_TILE_URL`): the same, without remote images.
const STRICT_FALLBACK: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The Content-Security-Policy, with `tiles` (a CSP source expression) allowed for images.
pub fn content_security_policy(tiles: Option<&str>) -> String {
    let images = match tiles {
        Some(source) => format!("img-src 'self' data: {source}"),
        None => "img-src 'self' data:".to_string(),
    };
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        images.as_str(),
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
    .join("; ")
}

/// The CSP source of a tile URL template: its scheme and host (a `{s}` subdomain becomes
/// `*`), or none for `none` and same-origin paths (already covered by `'self'`).
pub fn tile_source(tile_url: &str) -> Option<String> {
    let (scheme, rest) = tile_url.split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.replace("{s}", "*");
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '*');
    if host.is_empty() || !host.chars().all(allowed) {
        return None;
    }
    Some(format!("{scheme}://{host}"))
}

/// The path of the embeddable map (`/embed`): the one answer any site may frame.
pub const EMBED_PATH: &str = "/embed";

/// `policy` with framing allowed from any site.
pub fn embed_policy(policy: &str) -> String {
    policy.replace("frame-ancestors 'none'", "frame-ancestors *")
}

/// Whether `path` is the admin API or the admin authentication area.
fn is_admin_answer(path: &str) -> bool {
    path.starts_with("/admin/api/") || path.starts_with("/admin/auth/")
}

/// The middleware: sets the headers on every response that does not already carry them.
pub async fn apply(
    State(headers): State<Arc<SecurityHeaders>>,
    req: Request,
    next: Next,
) -> Response {
    // Admin answers (data, sessions) are never stored by a browser or a proxy (issue 31).
    let admin = is_admin_answer(req.uri().path());
    let embed = req.uri().path() == EMBED_PATH;
    let mut response = next.run(req).await;
    let h = response.headers_mut();
    if admin {
        h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    // Framing: `/embed` may be framed by any site (CSP `frame-ancestors *`, and no
    // X-Frame-Options, which would forbid it in older browsers); everything else by none.
    let csp = if embed {
        &headers.embed_csp
    } else {
        &headers.csp
    };
    h.entry(CONTENT_SECURITY_POLICY)
        .or_insert_with(|| csp.clone());
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if !embed {
        h.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    h.insert(
        REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(
        "permissions-policy",
        HeaderValue::from_static(PERMISSIONS_POLICY),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_source_keeps_scheme_and_host_only() {
        assert_eq!(
            tile_source("https://tile.openstreetmap.org/{z}/{x}/{y}.png").as_deref(),
            Some("https://tile.openstreetmap.org")
        );
        assert_eq!(
            tile_source("https://{s}.tiles.example.com:8443/a/{z}/{x}/{y}.png?k=1").as_deref(),
            Some("https://*.tiles.example.com:8443")
        );
        assert_eq!(tile_source("none"), None);
        assert_eq!(tile_source("/tiles/{z}/{x}/{y}.png"), None);
        assert_eq!(tile_source("https://ev il;script-src */{z}/{x}/{y}"), None);
    }

    #[test]
    fn policy_forbids_inline_script_eval_and_framing() {
        let p = content_security_policy(Some("https://tile.example.org"));
        assert!(p.contains("script-src 'self';"));
        assert!(!p.contains("unsafe-inline") && !p.contains("unsafe-eval"));
        assert!(p.contains("frame-ancestors 'none'"));
        assert!(p.contains("img-src 'self' data: https://tile.example.org;"));
        assert!(HeaderValue::from_str(&p).is_ok());
        let e = embed_policy(&p);
        assert!(
            e.contains("frame-ancestors *") && !e.contains("'none'; frame"),
            "{e}"
        );
        assert_eq!(e.replace("frame-ancestors *", "frame-ancestors 'none'"), p);
    }
}
