//! Serialised answers of one snapshot, kept for repeated queries: the same view asked again
//! (a shared link, the landing view, a reload, many visitors on one page) costs a hash
//! lookup instead of a query and a GeoJSON write. Held by the snapshot, so a refresh drops
//! them with it and a body can never outlive the data it was written from.
//!
//! The cache is `quick_cache` (like the filter cache and the flows' answers), weighed in
//! bytes: it keeps no strict least-recently-used order (its eviction is CLOCK-Pro-like: a
//! body asked again is kept over one asked once), so what it guarantees is the bounds —
//! at most [`MAX_BYTES`] charged and [`MAX_ENTRIES`] bodies, no body above
//! [`MAX_BODY_BYTES`] — and that a hit is the very bytes that were kept (docs/map.md).

use crate::map::filter::Filter;
use crate::map::query::ClusterQuery;
use crate::map::snapshot::Snapshot;
use std::sync::Arc;

/// Most bodies kept per snapshot.
pub const MAX_ENTRIES: usize = 256;
/// Most bytes of bodies kept per snapshot (the RSS budget of docs/performance.md).
pub const MAX_BYTES: usize = 8 << 20;
/// Larger bodies (zoom ≥ 17 answers of dense areas) are written each time, never kept: one
/// of them would evict dozens of ordinary views.
pub const MAX_BODY_BYTES: usize = 256 << 10;
/// The least a kept body is charged: with every body weighing at least this, the byte
/// budget also bounds the count ([`MAX_BYTES`] / [`MIN_CHARGE`] = [`MAX_ENTRIES`]), so one
/// weigher gives both bounds.
pub const MIN_CHARGE: usize = MAX_BYTES / MAX_ENTRIES;

// The one weigher bounds both; a kept body fits a shard (quick_cache splits the budget over
// at most 8 shards for 256 entries).
const _: () = assert!(MIN_CHARGE * MAX_ENTRIES == MAX_BYTES);
const _: () = assert!(MAX_BODY_BYTES <= MAX_BYTES / 8);

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

/// A body's charge: its length, at least [`MIN_CHARGE`].
#[derive(Debug, Clone, Copy, Default)]
struct Charge;

impl quick_cache::Weighter<Key, Arc<[u8]>> for Charge {
    fn weight(&self, _: &Key, body: &Arc<[u8]>) -> u64 {
        u64::try_from(body.len().max(MIN_CHARGE)).unwrap_or(u64::MAX)
    }
}

/// GeoJSON bodies, bounded in bytes and in entries.
#[derive(Debug)]
pub struct BodyCache(quick_cache::sync::Cache<Key, Arc<[u8]>, Charge>);

impl Default for BodyCache {
    fn default() -> BodyCache {
        BodyCache(quick_cache::sync::Cache::with_weighter(
            MAX_ENTRIES,
            MAX_BYTES as u64,
            Charge,
        ))
    }
}

impl BodyCache {
    fn get(&self, key: &Key) -> Option<Arc<[u8]>> {
        self.0.get(key)
    }

    fn put(&self, key: Key, body: Arc<[u8]>) {
        if body.len() > MAX_BODY_BYTES {
            return;
        }
        self.0.insert(key, body);
    }

    /// Drops every body kept.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// Number of bodies kept.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no body is kept.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Bytes charged for the bodies kept (each at least [`MIN_CHARGE`]): at least their
    /// length, at most [`MAX_BYTES`].
    pub fn bytes(&self) -> usize {
        usize::try_from(self.0.weight()).unwrap_or(usize::MAX)
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

    fn body(n: usize, fill: u8) -> Arc<[u8]> {
        vec![fill; n].into()
    }

    fn genre(z: u8, g: usize) -> Key {
        Key::with_plain(&q(z, Some(&format!("g{g}"))))
    }

    #[test]
    fn small_bodies_are_bounded_in_entries() {
        let c = BodyCache::default();
        for z in 0..=20u8 {
            for g in 0..20 {
                c.put(genre(z, g), body(10, z));
            }
        }
        assert!(c.len() <= MAX_ENTRIES, "{} bodies kept", c.len());
        assert!(c.len() >= MAX_ENTRIES / 2, "only {} bodies kept", c.len());
        assert!(c.bytes() <= MAX_BYTES);
    }

    #[test]
    fn large_bodies_are_bounded_in_bytes() {
        let c = BodyCache::default();
        for g in 0..4 * (MAX_BYTES / MAX_BODY_BYTES) {
            c.put(genre(3, g), body(MAX_BODY_BYTES, 1));
            assert!(c.bytes() <= MAX_BYTES, "{} bytes after {g}", c.bytes());
        }
        assert!(c.len() <= MAX_BYTES / MAX_BODY_BYTES);
        assert!(!c.is_empty());
    }

    #[test]
    fn a_hit_is_the_body_kept_and_a_miss_is_none() {
        let c = BodyCache::default();
        let (a, b) = (Key::with_plain(&q(1, None)), Key::with(&q(1, None), true));
        let kept = body(100, 7);
        c.put(a.clone(), kept.clone());
        let hit = c.get(&a);
        assert!(hit.as_ref().is_some_and(|h| Arc::ptr_eq(h, &kept)));
        assert!(c.get(&b).is_none(), "the breakdown is another answer");
        assert!(c.get(&Key::with_plain(&q(2, None))).is_none());
        // The same key again replaces the body and is charged once.
        c.put(a.clone(), body(200, 8));
        assert_eq!(c.len(), 1);
        assert_eq!(c.bytes(), MIN_CHARGE);
        assert!(c.get(&a).is_some_and(|h| h.len() == 200 && h[0] == 8));
    }

    #[test]
    fn a_body_over_the_limit_is_not_kept() {
        let c = BodyCache::default();
        let k = Key::with_plain(&q(3, None));
        c.put(k.clone(), body(MAX_BODY_BYTES + 1, 1));
        assert!(c.get(&k).is_none());
        assert!(c.is_empty());
        c.put(k.clone(), body(MAX_BODY_BYTES, 1));
        assert!(c.get(&k).is_some(), "the largest body allowed is kept");
        assert_eq!(c.bytes(), MAX_BODY_BYTES);
    }

    #[test]
    fn clear_drops_every_body() {
        let c = BodyCache::default();
        for g in 0..10 {
            c.put(genre(5, g), body(1000, 1));
        }
        assert_eq!(c.len(), 10);
        c.clear();
        assert!(c.is_empty());
        assert_eq!(c.bytes(), 0);
        assert!(c.get(&genre(5, 0)).is_none());
    }

    #[test]
    fn a_body_asked_again_outlives_bodies_asked_once() {
        // What replaces the strict LRU order: a repeated view (the landing view) is kept
        // through a stream of one-off views filling the budget many times over.
        let c = BodyCache::default();
        let landing = Key::with_plain(&q(3, None));
        c.put(landing.clone(), body(1000, 1));
        for g in 0..20 * MAX_ENTRIES {
            assert!(c.get(&landing).is_some(), "evicted after {g} other views");
            c.put(genre(6, g), body(1000, 2));
        }
    }
}
