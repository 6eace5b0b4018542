//! What the map endpoints (`/api/clusters`, `/api/flows`) take from the application state:
//! the map index, the pool of its first load and the compressed answers, extracted alone through axum's
//! `FromRef`. Extracting the whole `AppState` cloned its thirteen shared handles on every
//! request and dropped them after — reference-count atomics written by every worker
//! thread on the hottest path of the API (`perf`: ~4 % of a busy serve in the clone and
//! drop alone, docs/performance.md "Flows").

use crate::encoded::EncodedBodies;
use crate::state::AppState;
use axum::extract::FromRef;
use bandmap_index::map::{LoadError, MapIndex, Snapshot};
use sqlx::PgPool;
use std::sync::Arc;

/// The map index and the pool it loads from.
#[derive(Debug, Clone)]
pub struct MapState {
    /// The in-memory map index.
    pub map: Arc<MapIndex>,
    /// The pool of its first load.
    pub pool: PgPool,
    /// Compressed answers kept by ETag.
    pub encoded: Arc<EncodedBodies>,
}

impl FromRef<AppState> for MapState {
    fn from_ref(state: &AppState) -> MapState {
        MapState {
            map: state.read.map.clone(),
            pool: state.pool.clone(),
            encoded: state.read.encoded.clone(),
        }
    }
}

impl MapState {
    /// The snapshot to answer from (loaded first if it never was).
    pub async fn snapshot(&self) -> Result<Arc<Snapshot>, LoadError> {
        self.map.get(&self.pool).await
    }
}
