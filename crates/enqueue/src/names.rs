//! The gazetteer's place-name knowledge for the location parser (issue 13): a comma inside
//! a place name does not split it, and "Town, Town" is two places of one step. Loaded by the
//! daemon at start and handed to its scans (no process-wide copy); without it, planning
//! parses as before.

use bandmap_location::PlaceNames;
use std::sync::Arc;

/// Shared, thread-safe name knowledge (the loaded gazetteer).
pub type SharedNames = Arc<dyn PlaceNames + Send + Sync>;

/// Loads the offline gazetteer for planning when the configuration uses it
/// (`GEOCODER_OFFLINE`, `GAZETTEER_PATH`). A missing or broken file is a warning: planning
/// then reads every comma as a region, as before issue 13 (None).
pub(crate) async fn load(config: &bandmap_config::Config) -> Option<SharedNames> {
    if !config.geocoder.offline {
        return None;
    }
    let path = config.geocoder.gazetteer_path.clone();
    let loaded =
        tokio::task::spawn_blocking(move || bandmap_gazetteer::Gazetteer::load(&path)).await;
    match loaded {
        Ok(Ok(g)) => {
            tracing::info!(
                places = g.len(),
                "enqueue plans with the gazetteer's place names"
            );
            Some(Arc::new(g))
        }
        Ok(Err(e)) => {
            tracing::warn!(
                error = %e,
                "gazetteer not loaded: enqueue reads every comma as a region"
            );
            None
        }
        Err(e) => {
            tracing::warn!(error = %e, "gazetteer load task failed");
            None
        }
    }
}
