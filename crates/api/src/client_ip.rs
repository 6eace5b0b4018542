//! The client address (SPEC §8, docs/configuration.md "Client address behind a proxy").
//!
//! Forwarding headers are believed only from a peer inside `TRUSTED_PROXIES` (and only
//! with `TRUST_PROXY` on). `X-Forwarded-For` is then read from the right: trusted entries
//! are further proxies, the first untrusted one is the client. Entries to its left were
//! written by the client and could be anything, so they are never taken.

use axum::http::HeaderMap;
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};

/// Which peers may tell the client address.
#[derive(Debug, Clone, Copy)]
pub struct ProxyTrust<'a> {
    /// `TRUST_PROXY`: read the headers at all.
    pub enabled: bool,
    /// `TRUSTED_PROXIES`.
    pub proxies: &'a [IpNet],
}

impl<'a> ProxyTrust<'a> {
    /// From the server configuration.
    pub fn from_config(server: &'a bandmap_config::ServerConfig) -> Self {
        Self {
            enabled: server.trust_proxy,
            proxies: &server.trusted_proxies,
        }
    }

    /// Whether `ip` is one of the trusted proxies (IPv4-mapped IPv6 read as IPv4); never
    /// with `TRUST_PROXY` off.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        if !self.enabled {
            return false;
        }
        let ip = canonical(ip);
        self.proxies.iter().any(|net| net.contains(&ip))
    }
}

/// IPv4-mapped IPv6 (`::ffff:10.0.0.1`, what a dual-stack socket reports) as plain IPv4,
/// so `10.0.0.0/8` matches it.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// One header entry: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or `[2001:db8::1]:80`.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .map(canonical)
}

/// Resolves the client address of a request.
pub fn client_ip(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trust: ProxyTrust<'_>,
) -> Option<IpAddr> {
    let peer = peer.map(|p| canonical(p.ip()))?;
    if !trust.enabled || !trust.trusts(peer) {
        return Some(peer);
    }
    let mut lines = headers
        .get_all("x-forwarded-for")
        .iter()
        .map(|v| v.to_str().ok())
        .peekable();
    if lines.peek().is_none() {
        let real = headers
            .get("x-real-ip")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_entry);
        return Some(real.unwrap_or(peer));
    }
    // A line that is not text makes the whole header unreadable: the peer reported it.
    let Some(lines) = lines.collect::<Option<Vec<&str>>>() else {
        return Some(peer);
    };
    let mut last_trusted = peer;
    for entry in lines.iter().flat_map(|l| l.split(',')).rev() {
        match parse_entry(entry) {
            Some(ip) if trust.trusts(ip) => last_trusted = ip,
            Some(ip) => return Some(ip),
            None => return Some(last_trusted),
        }
    }
    Some(last_trusted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn nets(nets: &[&str]) -> Vec<IpNet> {
        nets.iter().map(|n| n.parse().unwrap()).collect()
    }

    fn trust(nets: &[IpNet]) -> ProxyTrust<'_> {
        ProxyTrust {
            enabled: true,
            proxies: nets,
        }
    }

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn ip(s: &str) -> Option<IpAddr> {
        s.parse().ok()
    }

    const PROXY: &str = "127.0.0.1:5000";

    #[test]
    fn the_right_most_untrusted_entry_is_the_client() {
        let n = nets(&["127.0.0.0/8", "10.0.0.0/8"]);
        let t = trust(&n);
        let peer = PROXY.parse().ok();
        // The client wrote 6.6.6.6 itself; the proxy appended the real peer.
        let h = xff(&["6.6.6.6, 203.0.113.7"]);
        assert_eq!(client_ip(&h, peer, t), ip("203.0.113.7"));
        // Two trusted hops are skipped.
        let h = xff(&["6.6.6.6, 203.0.113.7, 10.1.2.3, 10.0.0.9"]);
        assert_eq!(client_ip(&h, peer, t), ip("203.0.113.7"));
        // Several header lines count as one list, in order.
        let h = xff(&["6.6.6.6", "203.0.113.8", "10.0.0.1"]);
        assert_eq!(client_ip(&h, peer, t), ip("203.0.113.8"));
        // Ports and brackets are tolerated.
        let h = xff(&["[2001:db8::5]:443"]);
        assert_eq!(client_ip(&h, peer, t), ip("2001:db8::5"));
        let h = xff(&["198.51.100.4:1234"]);
        assert_eq!(client_ip(&h, peer, t), ip("198.51.100.4"));
        // Every entry trusted: the left-most.
        let h = xff(&["10.0.0.7, 10.0.0.8"]);
        assert_eq!(client_ip(&h, peer, t), ip("10.0.0.7"));
    }

    #[test]
    fn garbage_stops_at_the_last_trusted_hop() {
        let n = nets(&["127.0.0.0/8", "10.0.0.0/8"]);
        let t = trust(&n);
        let peer = PROXY.parse().ok();
        let h = xff(&["203.0.113.1, garbage, 10.0.0.2"]);
        assert_eq!(client_ip(&h, peer, t), ip("10.0.0.2"));
        let h = xff(&["garbage"]);
        assert_eq!(client_ip(&h, peer, t), ip("127.0.0.1"));
    }

    #[test]
    fn an_untrusted_peer_or_trust_off_ignores_every_header() {
        let h = {
            let mut h = xff(&["203.0.113.7"]);
            h.insert("x-real-ip", HeaderValue::from_static("198.51.100.2"));
            h
        };
        let n = nets(&["127.0.0.0/8"]);
        let direct = "192.0.2.50:4000".parse().ok();
        assert_eq!(client_ip(&h, direct, trust(&n)), ip("192.0.2.50"));
        let local = PROXY.parse().ok();
        assert_eq!(client_ip(&h, local, trust(&n)), ip("203.0.113.7"));
        let off = ProxyTrust {
            enabled: false,
            ..trust(&n)
        };
        assert_eq!(client_ip(&h, local, off), ip("127.0.0.1"));
        assert_eq!(client_ip(&h, local, trust(&[])), ip("127.0.0.1"));
    }

    #[test]
    fn x_real_ip_only_without_forwarded_for_and_mapped_v4_matches() {
        let n = nets(&["10.0.0.0/8"]);
        let t = trust(&n);
        let mut h = HeaderMap::new();
        h.insert("x-real-ip", HeaderValue::from_static("198.51.100.2"));
        let mapped: Option<SocketAddr> = "[::ffff:10.0.0.3]:80".parse().ok();
        assert_eq!(client_ip(&h, mapped, t), ip("198.51.100.2"));
        h.insert("x-real-ip", HeaderValue::from_static("junk"));
        assert_eq!(client_ip(&h, mapped, t), ip("10.0.0.3"));
        assert_eq!(client_ip(&h, None, t), None);
    }
}
