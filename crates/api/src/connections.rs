//! Connections per client address (issue 31): one client must not hold every connection
//! slot of the server.
//!
//! Every accepted connection takes one slot of its peer's address — an IPv6 peer counted
//! per /64, which one host usually holds whole — and gives it back when it ends. A peer
//! already at `HTTP_MAX_CONNECTIONS_PER_ADDRESS` has its new connection closed at once,
//! before a byte is read, so the rest of `HTTP_MAX_CONNECTIONS` stays free for everyone
//! else. Peers inside `TRUSTED_PROXIES` (with `TRUST_PROXY` on) carry many visitors each
//! and are not capped here: the proxy caps its own clients (deploy/nginx.conf,
//! `limit_conn`).
//!
//! The count is also what [`crate::tarpit`] asks before holding a refusal: a peer that
//! already holds many connections gets its 429 at once, so holding refusals never helps
//! one client keep connections open.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};

/// A peer holding more connections than this gets its refusals at once, not held (a
/// browser opens at most six connections to one host).
pub const HOLD_REFUSALS_UP_TO: usize = 6;

/// The key of a peer address: IPv4 (or IPv4-mapped IPv6) as is, other IPv6 cut to its /64.
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
        v4 => v4,
    }
}

/// The open connections of every capped address.
#[derive(Debug)]
pub struct AddressSlots {
    cap: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One connection's slot of its address, given back when dropped.
#[derive(Debug)]
pub struct AddressSlot {
    slots: Arc<AddressSlots>,
    key: IpAddr,
}

impl AddressSlots {
    /// At most `cap` connections per address (at least one).
    pub fn new(cap: usize) -> Arc<AddressSlots> {
        Arc::new(AddressSlots {
            cap: cap.max(1),
            open: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        // Each section is one counter update: a poisoned map is still consistent.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a new connection of `peer`, or None when its address holds `cap`.
    pub fn try_take(self: &Arc<Self>, peer: IpAddr) -> Option<AddressSlot> {
        let key = address_key(peer);
        let mut open = self.lock();
        let held = open.entry(key).or_insert(0);
        if *held >= self.cap {
            return None;
        }
        *held += 1;
        Some(AddressSlot {
            slots: Arc::clone(self),
            key,
        })
    }

    /// Connections `peer`'s address holds now.
    pub fn held(&self, peer: IpAddr) -> usize {
        self.lock().get(&address_key(peer)).copied().unwrap_or(0)
    }

    /// Addresses holding at least one connection.
    pub fn addresses(&self) -> usize {
        self.lock().len()
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self.slots.lock();
        if let Some(held) = open.get_mut(&self.key) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// What a request knows of its connection's peer (a request extension set by the accept
/// loop).
#[derive(Debug, Clone)]
pub struct PeerConnections {
    peer: IpAddr,
    /// None for a trusted proxy (not capped, not counted).
    slots: Option<Arc<AddressSlots>>,
}

impl PeerConnections {
    /// A capped peer, counted in `slots`.
    pub fn capped(peer: IpAddr, slots: Arc<AddressSlots>) -> PeerConnections {
        PeerConnections {
            peer,
            slots: Some(slots),
        }
    }

    /// A trusted proxy.
    pub fn proxy(peer: IpAddr) -> PeerConnections {
        PeerConnections { peer, slots: None }
    }

    /// Whether this peer holds more connections than a browser would
    /// ([`HOLD_REFUSALS_UP_TO`]); never for a trusted proxy.
    pub fn holds_many(&self) -> bool {
        self.slots
            .as_ref()
            .is_some_and(|s| s.held(self.peer) > HOLD_REFUSALS_UP_TO)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_address_gets_its_cap_and_the_slots_come_back() {
        let slots = AddressSlots::new(2);
        let a = slots.try_take(ip("203.0.113.1")).unwrap();
        let _b = slots.try_take(ip("203.0.113.1")).unwrap();
        assert!(slots.try_take(ip("203.0.113.1")).is_none());
        assert!(
            slots.try_take(ip("203.0.113.2")).is_some(),
            "others unaffected"
        );
        assert_eq!(slots.held(ip("203.0.113.1")), 2);
        drop(a);
        assert!(slots.try_take(ip("203.0.113.1")).is_some());
    }

    #[test]
    fn an_ipv6_slash_64_is_one_address_and_mapped_ipv4_is_ipv4() {
        let slots = AddressSlots::new(1);
        let _a = slots.try_take(ip("2001:db8:1:2::1")).unwrap();
        assert!(slots.try_take(ip("2001:db8:1:2:ffff::9")).is_none());
        assert!(slots.try_take(ip("2001:db8:1:3::1")).is_some());
        let _v4 = slots.try_take(ip("198.51.100.4")).unwrap();
        assert!(slots.try_take(ip("::ffff:198.51.100.4")).is_none());
    }

    #[test]
    fn the_map_forgets_addresses_that_closed_everything() {
        let slots = AddressSlots::new(4);
        let held: Vec<_> = (0..3)
            .map(|i| slots.try_take(ip(&format!("192.0.2.{i}"))).unwrap())
            .collect();
        assert_eq!(slots.addresses(), 3);
        drop(held);
        assert_eq!(slots.addresses(), 0);
    }

    #[test]
    fn many_connections_are_told_apart_from_a_browser_and_a_proxy() {
        let slots = AddressSlots::new(32);
        let peer = ip("203.0.113.9");
        let mut held = Vec::new();
        for _ in 0..HOLD_REFUSALS_UP_TO {
            held.push(slots.try_take(peer).unwrap());
        }
        let info = PeerConnections::capped(peer, Arc::clone(&slots));
        assert!(!info.holds_many());
        held.push(slots.try_take(peer).unwrap());
        assert!(info.holds_many());
        assert!(!PeerConnections::proxy(peer).holds_many());
    }
}
