//! Serialised flow answers of one snapshot, kept for repeated views like the clusters'
//! (`map/bodies.rs`): the same view asked again costs a lookup. The API crate writes the
//! bytes (its types document the shape); the snapshot keeps them and drops them with its
//! data.

use crate::map::filter::Filter;
use crate::map::flows::aggregate::{FlowAnswer, FlowQuery};
use crate::map::snapshot::Snapshot;
use std::sync::Arc;

/// Most answers kept per snapshot (a listed answer is at most a few tens of KB).
pub const MAX_ENTRIES: usize = 64;

/// The exact query (bbox by bit pattern).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    zoom: u8,
    bbox: [u64; 4],
    filter: Filter,
    limit: usize,
}

impl Key {
    fn of(q: &FlowQuery) -> Key {
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
            limit: q.limit,
        }
    }
}

/// Least-recently-used answers.
#[derive(Debug)]
pub struct FlowBodies(quick_cache::sync::Cache<Key, Arc<[u8]>>);

impl Default for FlowBodies {
    fn default() -> FlowBodies {
        FlowBodies(quick_cache::sync::Cache::new(MAX_ENTRIES))
    }
}

impl FlowBodies {
    /// Drops every kept answer.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// Number of kept answers.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Snapshot {
    /// The answer of `q` written by `write`: kept from an earlier identical query of this
    /// snapshot, or computed and written now and kept (a failed write is returned, never
    /// kept).
    pub fn flows_body<E>(
        &self,
        q: &FlowQuery,
        write: impl FnOnce(&FlowAnswer<'_>) -> Result<Vec<u8>, E>,
    ) -> Result<Arc<[u8]>, E> {
        let key = Key::of(q);
        if let Some(body) = self.flows.bodies().0.get(&key) {
            return Ok(body);
        }
        let body: Arc<[u8]> = write(&self.flows(q))?.into();
        if self.keeps_caches() {
            self.flows.bodies().0.insert(key, body.clone());
        }
        Ok(body)
    }
}
