//! What the map endpoints (`/api/clusters`, `/api/flows`) take from the application state:
//! the map index, the pool of its first load and the compressed answers, extracted through
//! axum's `FromRef` as one handle on the shared state.
//!
//! Why one handle: axum clones a route's state for every request, and each extractor's
//! `FromRef` clones again. `MapState` once held its own three reference-counted handles
//! (index, pool, compressed answers): three atomic increments and decrements written by
//! both worker threads on the hottest path of the API. It now holds the [`AppState`], one
//! `Arc` (docs/performance.md "Flows", "One handle on the state").

use super::clusters::memo::ViewMemo;
use crate::encoded::EncodedBodies;
use crate::state::AppState;
use axum::extract::FromRef;
use bandmap_index::map::{LoadError, Snapshot};
use std::sync::Arc;

/// The map index, the pool it loads from and the compressed answers, read from the
/// application state.
#[derive(Debug, Clone)]
pub struct MapState(AppState);

impl FromRef<AppState> for MapState {
    fn from_ref(state: &AppState) -> MapState {
        MapState(state.clone())
    }
}

impl MapState {
    /// The snapshot to answer from (loaded first if it never was).
    pub async fn snapshot(&self) -> Result<Arc<Snapshot>, LoadError> {
        self.0.read.map.get(&self.0.pool).await
    }

    /// The clusters requests answered lately, parsed and tagged.
    pub fn cluster_views(&self) -> &ViewMemo {
        &self.0.read.cluster_views
    }

    /// The map answers compressed once and kept by ETag.
    pub fn encoded(&self) -> &EncodedBodies {
        &self.0.read.encoded
    }
}
