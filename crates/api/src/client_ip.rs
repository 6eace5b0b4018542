//! The client address (SPEC §8): behind a reverse proxy, taken from `X-Forwarded-For`
//! (first entry) or `X-Real-IP` when `TRUST_PROXY` is on, else the socket peer.

use axum::http::HeaderMap;
use std::net::{IpAddr, SocketAddr};

/// Resolves the client address of a request.
pub fn client_ip(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trust_proxy: bool,
) -> Option<IpAddr> {
    if trust_proxy {
        let forwarded = headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse().ok());
        let real = || {
            headers
                .get("x-real-ip")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse().ok())
        };
        if let Some(ip) = forwarded.or_else(real) {
            return Some(ip);
        }
    }
    peer.map(|p| p.ip())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn proxy_headers_are_trusted_only_when_asked() {
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            HeaderValue::from_static("203.0.113.7, 10.0.0.1"),
        );
        let peer: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        assert_eq!(client_ip(&h, Some(peer), true), "203.0.113.7".parse().ok());
        assert_eq!(client_ip(&h, Some(peer), false), Some(peer.ip()));
        let mut h = HeaderMap::new();
        h.insert("x-real-ip", HeaderValue::from_static("198.51.100.2"));
        assert_eq!(client_ip(&h, Some(peer), true), "198.51.100.2".parse().ok());
        h.insert("x-forwarded-for", HeaderValue::from_static("garbage"));
        assert_eq!(client_ip(&h, Some(peer), true), "198.51.100.2".parse().ok());
    }
}
