//! Shared state of the handlers.

use bandmap_config::Config;
use bandmap_time::{Clock, SystemClock};
use sqlx::PgPool;
use std::sync::Arc;

/// State handed to every handler.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Database pool.
    pub pool: PgPool,
    /// The configuration read at start.
    pub config: Arc<Config>,
    /// Time source.
    pub clock: Arc<dyn Clock>,
    /// The in-memory map index (loaded on first use, refreshed by
    /// [`crate::public::start_background`]).
    pub map: Arc<bandmap_index::map::MapIndex>,
    /// The in-memory band search of the admin list (loaded on first use and at start by
    /// [`crate::public::start_background`]).
    pub band_search: Arc<bandmap_index::band_search::BandSearch>,
    /// The offline gazetteer of the admin suggestions, loaded on first use (None inside:
    /// the file could not be read).
    pub gazetteer: Arc<tokio::sync::OnceCell<Option<Arc<bandmap_gazetteer::Gazetteer>>>>,
}

impl AppState {
    /// State with the system clock.
    pub fn new(pool: PgPool, config: Config) -> Self {
        Self {
            pool,
            config: Arc::new(config),
            clock: Arc::new(SystemClock),
            map: Arc::new(bandmap_index::map::MapIndex::new()),
            band_search: Arc::new(bandmap_index::band_search::BandSearch::new()),
            gazetteer: Arc::new(tokio::sync::OnceCell::new()),
        }
    }
}
