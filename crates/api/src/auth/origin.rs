//! Cross-site request guards of the admin writes and of login/logout (issue 18), besides
//! the `SameSite=Strict` cookie: a write must declare a JSON body (a plain HTML form
//! cannot), and a browser's `Sec-Fetch-Site` / `Origin` must say the page came from this
//! site.
//!
//! `Sec-Fetch-Site` (sent by current browsers) is trusted first: `same-origin` and `none`
//! (typed by the user) pass; `same-site` and `cross-site` are refused — a sibling subdomain
//! is another site for the admin. Without it, an `Origin` must be the origin the request
//! was sent to: the scheme (when a proxy says it in `X-Forwarded-Proto`), the host and the
//! port of `Host` (the scheme's default when absent) — issue 31: a page on another port, or
//! over plain HTTP when the proxy says HTTPS, is another origin. `Origin: null` is refused.
//! (A cross-site page cannot set `X-Forwarded-Proto`: a browser asks the server first, and
//! the server allows no such request.)
//! A request with neither header is not from a browser page (curl, scripts) and passes:
//! CSRF needs a victim's browser.

use crate::error::ApiError;
use axum::http::{HeaderMap, StatusCode, header};

/// Refuses a body not declared `application/json` with `status` (400 for the admin API,
/// as before; 415 for logout, like login).
pub fn require_json(headers: &HeaderMap, status: StatusCode) -> Result<(), ApiError> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if json {
        return Ok(());
    }
    let message = "writes require Content-Type: application/json";
    Err(if status == StatusCode::BAD_REQUEST {
        ApiError::bad_request(message)
    } else {
        ApiError::refused(status, message)
    })
}

fn cross_site(why: &str) -> ApiError {
    ApiError::Forbidden(format!("cross-site request refused ({why})"))
}

/// The host (lower-cased, without brackets) and the port of `Host` or of an origin's
/// authority; `default_port` when none is written.
fn host_and_port(authority: &str, default_port: u16) -> Option<(String, u16)> {
    let a = authority.trim().to_ascii_lowercase();
    let (host, port) = match a.strip_prefix('[') {
        Some(rest) => {
            let (host, after) = rest.split_once(']')?;
            (host.to_string(), after.strip_prefix(':'))
        }
        None => match a.split_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (a.clone(), None),
        },
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default_port,
    };
    (!host.is_empty()).then_some((host, port))
}

fn default_port(scheme: &str) -> u16 {
    if scheme == "https" { 443 } else { 80 }
}

/// Refuses a request a browser says came from another site.
pub fn require_same_origin(headers: &HeaderMap) -> Result<(), ApiError> {
    if let Some(site) = headers.get("sec-fetch-site") {
        return match site.to_str().map(str::to_ascii_lowercase).as_deref() {
            Ok("same-origin" | "none") => Ok(()),
            Ok(other) => Err(cross_site(&format!("Sec-Fetch-Site: {other}"))),
            Err(_) => Err(cross_site("unreadable Sec-Fetch-Site")),
        };
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin
        .to_str()
        .map_err(|_| cross_site("unreadable Origin"))?;
    let Some((scheme, authority)) = origin.trim().split_once("://") else {
        return Err(cross_site("Origin is not a web origin"));
    };
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "http" | "https") {
        return Err(cross_site("Origin is not a web origin"));
    }
    // The scheme the request was made with, when a proxy says it; without it (a TLS
    // terminator that does not say) the port still tells the two schemes' defaults apart.
    let served = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map_or_else(|| scheme.clone(), |v| v.trim().to_ascii_lowercase());
    if scheme != served {
        return Err(cross_site("Origin is another scheme"));
    }
    let sent_to = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .and_then(|h| host_and_port(h, default_port(&served)));
    let origin = host_and_port(authority, default_port(&scheme));
    match (sent_to, origin) {
        (Some(to), Some(from)) if to == from => Ok(()),
        _ => Err(cross_site("Origin is another site")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn same_origin_passes_and_cross_site_is_403() {
        for ok in [
            &[][..],
            &[("sec-fetch-site", "same-origin")],
            &[("sec-fetch-site", "none")],
            &[
                ("host", "bandmap.example"),
                ("origin", "https://bandmap.example"),
            ],
            &[
                ("host", "bandmap.example"),
                ("x-forwarded-proto", "https"),
                ("origin", "https://BandMap.example"),
            ],
            &[
                ("host", "bandmap.example:8443"),
                ("x-forwarded-proto", "https"),
                ("origin", "https://bandmap.example:8443"),
            ],
            &[
                ("host", "bandmap.example"),
                ("origin", "http://bandmap.example:80"),
            ],
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080"),
            ],
            &[("host", "[::1]:8080"), ("origin", "http://[::1]:8080")],
        ] {
            assert!(require_same_origin(&headers(ok)).is_ok(), "{ok:?}");
        }
        for bad in [
            &[("sec-fetch-site", "cross-site")][..],
            &[("sec-fetch-site", "same-site")],
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "https://bandmap.example"),
                ("host", "bandmap.example"),
            ],
            &[
                ("host", "bandmap.example"),
                ("origin", "https://evil.example"),
            ],
            &[
                ("host", "bandmap.example"),
                ("origin", "https://bandmap.example.evil.example"),
            ],
            &[("host", "bandmap.example"), ("origin", "null")],
            &[("origin", "https://bandmap.example")],
            &[
                ("host", "bandmap.example"),
                ("origin", "file://bandmap.example"),
            ],
            // Issue 31: another port or another scheme is another origin.
            &[
                ("host", "bandmap.example:8443"),
                ("x-forwarded-proto", "https"),
                ("origin", "https://bandmap.example"),
            ],
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:9999"),
            ],
            &[
                ("host", "bandmap.example"),
                ("x-forwarded-proto", "https"),
                ("origin", "http://bandmap.example"),
            ],
            &[
                ("host", "bandmap.example"),
                ("origin", "https://bandmap.example:8443"),
            ],
            &[
                ("host", "bandmap.example:x"),
                ("origin", "http://bandmap.example"),
            ],
        ] {
            assert!(
                matches!(
                    require_same_origin(&headers(bad)),
                    Err(ApiError::Forbidden(_))
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn json_is_required_with_the_given_status() {
        let json = headers(&[("content-type", "Application/JSON; charset=utf-8")]);
        assert!(require_json(&json, StatusCode::BAD_REQUEST).is_ok());
        let form = headers(&[("content-type", "application/x-www-form-urlencoded")]);
        assert!(matches!(
            require_json(&form, StatusCode::BAD_REQUEST),
            Err(ApiError::BadRequest(_))
        ));
        assert!(matches!(
            require_json(&HeaderMap::new(), StatusCode::UNSUPPORTED_MEDIA_TYPE),
            Err(ApiError::Refused { status, .. }) if status == StatusCode::UNSUPPORTED_MEDIA_TYPE
        ));
    }
}
