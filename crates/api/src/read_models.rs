//! The in-memory read models of one server (`bandmap_index`) and the data it loads on first
//! use, grouped in the application state. The three that copy database rows are kept fresh
//! by the one refresh task (`bandmap_index::refresh`), which [`ReadModels::refreshed`] lists:
//! a new read model is a field here, its `impl ReadModel`, and one line there.

use bandmap_index::band_search::BandSearch;
use bandmap_index::map::MapIndex;
use bandmap_index::name_search::NameSearch;
use bandmap_index::populations::PopulationTable;
use bandmap_index::refresh::ReadModel;
use std::sync::Arc;

/// The read models (a field of [`crate::state::AppState`]).
#[derive(Clone, Debug, Default)]
pub struct ReadModels {
    /// The in-memory map index (loaded on first use, refreshed by the refresh task).
    pub map: Arc<MapIndex>,
    /// The public name search's in-memory copy (refreshed after the map; while it is not
    /// known fresh, searches run in SQL).
    pub name_search: Arc<NameSearch>,
    /// The in-memory band search of the admin list (loaded by the refresh task or the
    /// first list; each list reads the changes since its mark).
    pub band_search: Arc<BandSearch>,
    /// Country populations of `GET /api/countries`, read on first use from the file beside
    /// the gazetteer.
    pub populations: Arc<PopulationTable>,
    /// The offline gazetteer of the admin suggestions, loaded on first use (None inside:
    /// the file could not be read).
    pub gazetteer: Arc<tokio::sync::OnceCell<Option<Arc<bandmap_gazetteer::Gazetteer>>>>,
    /// The map answers compressed once for the clients that accept it, kept by ETag
    /// ([`crate::encoded`]; entries of an older snapshot age out).
    pub encoded: Arc<crate::encoded::EncodedBodies>,
    /// The clusters requests answered lately, by query string as sent: parsed and tagged
    /// once ([`crate::public::clusters::memo`]).
    pub cluster_views: Arc<crate::public::clusters::memo::ViewMemo>,
}

impl ReadModels {
    /// Empty models, each loaded on first use or by the refresh task.
    pub fn new() -> ReadModels {
        ReadModels {
            name_search: Arc::new(NameSearch::new()),
            ..ReadModels::default()
        }
    }

    /// The models the refresh task keeps fresh, in the order of its rounds: the map first
    /// (what the public page waits for), then the name search (which the map's found
    /// changes reach), then the admin band search.
    pub fn refreshed(&self) -> Vec<Arc<dyn ReadModel>> {
        vec![
            self.map.clone(),
            self.name_search.clone(),
            self.band_search.clone(),
        ]
    }

    /// A write through this process: every model hears of it at once (the name search stops
    /// answering from its copy until it is reloaded).
    pub fn heard_write(&self) {
        for model in self.refreshed() {
            model.heard();
        }
    }
}
