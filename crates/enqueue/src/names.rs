//! The gazetteer's place-name knowledge for the location parser (issue 13): a comma inside
//! a place name does not split it, and "Town, Town" is two places of one step. Set once by
//! the daemon when the offline gazetteer loads; without it, planning parses as before.

use bandmap_location::PlaceNames;
use std::sync::{Arc, OnceLock};

/// Shared, thread-safe name knowledge (the loaded gazetteer).
pub type SharedNames = Arc<dyn PlaceNames + Send + Sync>;

static NAMES: OnceLock<SharedNames> = OnceLock::new();

/// Makes every later scan of this process plan with `names`. The first call wins; false
/// when names were already set.
pub fn use_place_names(names: SharedNames) -> bool {
    NAMES.set(names).is_ok()
}

/// The names set by [`use_place_names`], if any.
pub(crate) fn current() -> Option<SharedNames> {
    NAMES.get().cloned()
}

/// Loads the offline gazetteer for planning when the configuration uses it
/// (`GEOCODER_OFFLINE`, `GAZETTEER_PATH`). A missing or broken file is a warning: planning
/// then reads every comma as a region, as before issue 13.
pub(crate) async fn load(config: &bandmap_config::Config) {
    if !config.geocoder.offline || current().is_some() {
        return;
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
            use_place_names(Arc::new(g));
        }
        Ok(Err(e)) => tracing::warn!(
            error = %e,
            "gazetteer not loaded: enqueue reads every comma as a region"
        ),
        Err(e) => tracing::warn!(error = %e, "gazetteer load task failed"),
    }
}
