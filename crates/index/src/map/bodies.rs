//! Serialised answers of one snapshot, kept for repeated queries: the same view asked again
//! (a shared link, the landing view, a reload, many visitors on one page) costs a hash
//! lookup instead of a query and a GeoJSON write. Held by the snapshot, so a refresh drops
//! them with it and a body can never outlive the data it was written from.

use crate::map::filter::Filter;
use crate::map::query::ClusterQuery;
use crate::map::snapshot::Snapshot;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Most bodies kept per snapshot.
pub const MAX_ENTRIES: usize = 256;
/// Most bytes of bodies kept per snapshot (the RSS budget of docs/performance.md).
pub const MAX_BYTES: usize = 8 << 20;
/// Larger bodies (zoom ≥ 17 answers of dense areas) are written each time, never kept: one
/// of them would evict dozens of ordinary views.
pub const MAX_BODY_BYTES: usize = 256 << 10;

/// The exact query (bbox by bit pattern, so `-0.0` and `0.0` are distinct keys: harmless).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    zoom: u8,
    bbox: [u64; 4],
    filter: Filter,
    breakdown: bool,
}

impl Key {
    fn with(q: &ClusterQuery, breakdown: bool) -> Key {
        let b = &q.bbox;
        Key {
            zoom: q.zoom,
            bbox: [
                b.min_lon.to_bits(),
                b.min_lat.to_bits(),
                b.max_lon.to_bits(),
                b.max_lat.to_bits(),
            ],
            filter: q.filter.clone(),
            breakdown,
        }
    }
}

/// Least-recently-used cache of GeoJSON bodies, bounded in entries and bytes.
#[derive(Debug, Default)]
pub struct BodyCache {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    tick: u64,
    bytes: usize,
    map: HashMap<Key, (Arc<[u8]>, u64)>,
}

impl BodyCache {
    fn get(&self, key: &Key) -> Option<Arc<[u8]>> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.tick += 1;
        let tick = inner.tick;
        inner.map.get_mut(key).map(|(body, used)| {
            *used = tick;
            body.clone()
        })
    }

    fn put(&self, key: Key, body: Arc<[u8]>) {
        if body.len() > MAX_BODY_BYTES {
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.tick += 1;
        let tick = inner.tick;
        if let Some((old, _)) = inner.map.remove(&key) {
            inner.bytes -= old.len();
        }
        while !inner.map.is_empty()
            && (inner.map.len() >= MAX_ENTRIES || inner.bytes + body.len() > MAX_BYTES)
        {
            let oldest = inner
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            match oldest.and_then(|k| inner.map.remove(&k)) {
                Some((old, _)) => inner.bytes -= old.len(),
                None => break,
            }
        }
        inner.bytes += body.len();
        inner.map.insert(key, (body, tick));
    }

    /// Drops every body kept.
    pub fn clear(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map = HashMap::new();
        inner.bytes = 0;
    }

    /// Number of bodies kept.
    pub fn len(&self) -> usize {
        self.inner.lock().map(|i| i.map.len()).unwrap_or(0)
    }

    /// Whether no body is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the bodies kept.
    pub fn bytes(&self) -> usize {
        self.inner.lock().map(|i| i.bytes).unwrap_or(0)
    }
}

impl Snapshot {
    /// The GeoJSON answer of `q`: kept from an earlier identical query of this snapshot, or
    /// computed now (outside the cache lock) and kept.
    pub fn geojson(&self, q: &ClusterQuery) -> Arc<[u8]> {
        self.geojson_with(q, false)
    }

    /// [`Snapshot::geojson`], with the family breakdown when `breakdown` (kept apart from
    /// the answer without it).
    pub fn geojson_with(&self, q: &ClusterQuery, breakdown: bool) -> Arc<[u8]> {
        let key = Key::with(q, breakdown);
        if let Some(body) = self.bodies.get(&key) {
            return body;
        }
        let result = self.query_with(q, breakdown);
        let body: Arc<[u8]> = crate::map::geojson::write_with(self, &result, breakdown).into();
        if self.keeps_caches() {
            self.bodies.put(key, body.clone());
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::query::Bbox;

    fn q(zoom: u8, genre: Option<&str>) -> ClusterQuery {
        ClusterQuery {
            bbox: Bbox::WORLD,
            zoom,
            filter: Filter::new(genre, None, None, None, None),
        }
    }

    impl Key {
        fn with_plain(q: &ClusterQuery) -> Key {
            Key::with(q, false)
        }
    }

    #[test]
    fn bounded_in_entries_and_bytes_least_recently_used_first() {
        let c = BodyCache::default();
        let body = |n: usize| -> Arc<[u8]> { vec![b'x'; n].into() };
        for z in 0..=20u8 {
            for g in 0..20 {
                c.put(Key::with_plain(&q(z, Some(&format!("g{g}")))), body(10));
            }
        }
        assert_eq!(c.len(), MAX_ENTRIES);
        assert_eq!(c.bytes(), MAX_ENTRIES * 10);
        // Too big to keep.
        c.put(Key::with_plain(&q(3, None)), body(MAX_BODY_BYTES + 1));
        assert!(c.get(&Key::with_plain(&q(3, None))).is_none());
        // The byte budget evicts the least recently used first.
        let c = BodyCache::default();
        let a = Key::with_plain(&q(1, None));
        let b = Key::with_plain(&q(2, None));
        c.put(a.clone(), body(MAX_BODY_BYTES));
        c.put(b.clone(), body(MAX_BODY_BYTES));
        assert!(c.get(&a).is_some()); // a is now more recent than b
        let fit = MAX_BYTES / MAX_BODY_BYTES;
        for g in 0..fit - 2 {
            c.put(
                Key::with_plain(&q(3, Some(&format!("g{g}")))),
                body(MAX_BODY_BYTES),
            );
        }
        assert_eq!(c.len(), fit, "up to the byte budget, nothing is evicted");
        c.put(Key::with_plain(&q(4, None)), body(MAX_BODY_BYTES));
        assert!(c.bytes() <= MAX_BYTES);
        assert_eq!(c.len(), fit);
        assert!(c.get(&b).is_none(), "b was the least recently used");
        assert!(c.get(&a).is_some());
    }
}
