//! The public name search (`GET /api/search`) answered from memory (issue 18).
//!
//! Under a flood from many addresses the per-address rate limit does not apply, and every
//! search that reached PostgreSQL took the public pool from the visitors. This copy of every
//! band's searched and shown columns answers instead: a trigram index for texts of three
//! characters or more, a scan that stops early for shorter ones (docs/performance.md).
//!
//! **Freshness.** The copy is only used while nothing is known to have changed since it
//! was loaded; otherwise the caller runs the SQL search, as before. Changes are learned
//! from the map's notifications (`bandmap_map_changed`, which migration 024 also sends for
//! new bands and moved primary points), from the version poll, and from this process's own
//! writes (admin edits, imports). The one refresh task (`crate::refresh`) reloads the copy
//! after each, at most once per [`RELOAD_GAP`].

mod table;
pub mod trigrams;

pub use table::{NameTable, TRIGRAM_CHARS, TableBuilder, fold};

use crate::countries::{CountryTable, CountryTableBuilder};
use crate::refresh::{Change, ReadModel, RefreshError, Refreshed};
use bandmap_db::PgPool;
use bandmap_db::bands::by_name;
use futures::future::BoxFuture;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Least time between two loads of the copy by the refresh task: while the pipeline writes
/// without pause, every change would otherwise read every band again. Meanwhile searches
/// run in SQL, as they did before the copy existed.
pub const RELOAD_GAP: Duration = Duration::from_secs(5);

/// Why a load failed.
#[derive(Debug, thiserror::Error)]
pub enum NameSearchError {
    /// The database failed.
    #[error("loading the name search: {0}")]
    Db(#[from] bandmap_db::DbError),
    /// Building the copy failed (a bug): searches run in SQL until a load succeeds.
    #[error("building the name search failed: {0}")]
    Build(String),
}

/// The shared copy of one API process, and the catalogue's country counts loaded with it
/// ([`crate::countries`]): the same changes make both stale.
#[derive(Debug, Default)]
pub struct NameSearch {
    copy: RwLock<Option<Arc<NameTable>>>,
    countries: RwLock<Option<Arc<CountryTable>>>,
    /// Bumped by every change the process hears of.
    changes: AtomicU64,
    /// The value of `changes` read before the copy in use was loaded.
    loaded_after: AtomicU64,
    loading: tokio::sync::Mutex<()>,
    /// When the refresh task last loaded the copy ([`RELOAD_GAP`]).
    reloaded_at: std::sync::Mutex<Option<Instant>>,
}

impl NameSearch {
    /// Nothing loaded yet: every search runs in SQL until the first load.
    pub fn new() -> NameSearch {
        NameSearch {
            loaded_after: AtomicU64::new(u64::MAX),
            ..NameSearch::default()
        }
    }

    /// Something the search shows may have changed: the copy is not used again until it is
    /// reloaded.
    pub fn changed(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    /// The copy, when nothing changed since it was loaded.
    pub fn fresh(&self) -> Option<Arc<NameTable>> {
        if !self.is_fresh() {
            return None;
        }
        self.copy
            .read()
            .map(|g| g.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// The country counts, when nothing changed since they were loaded.
    pub fn fresh_countries(&self) -> Option<Arc<CountryTable>> {
        if !self.is_fresh() {
            return None;
        }
        self.countries
            .read()
            .map(|g| g.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    fn is_fresh(&self) -> bool {
        self.loaded_after.load(Ordering::Acquire) == self.changes.load(Ordering::Acquire)
    }

    /// Reloads the copy when a change was heard since the last load (or none was loaded).
    /// Returns whether it loaded.
    pub async fn catch_up(&self, pool: &PgPool) -> Result<bool, NameSearchError> {
        let _guard = self.loading.lock().await;
        let seen = self.changes.load(Ordering::Acquire);
        if self.loaded_after.load(Ordering::Acquire) == seen {
            return Ok(false);
        }
        let expected = self.current_len();
        // A copy behind a heard change is never used again: it goes before its successor
        // loads, so the two never take memory at once.
        self.install(None);
        self.install_countries(None);
        let table = load(pool, expected + expected / 32).await?;
        let bands = table.len();
        let countries = load_countries(pool).await?;
        self.install(Some(Arc::new(table)));
        self.install_countries(Some(Arc::new(countries)));
        // A change heard during the load keeps the copy unused until the next catch-up.
        self.loaded_after.store(seen, Ordering::Release);
        tracing::debug!(bands, "name search loaded");
        Ok(true)
    }

    /// Whether a copy is held (fresh or not).
    pub fn holds_copy(&self) -> bool {
        self.copy.read().map(|g| g.is_some()).unwrap_or(false)
    }

    fn install(&self, copy: Option<Arc<NameTable>>) {
        match self.copy.write() {
            Ok(mut g) => *g = copy,
            Err(p) => *p.into_inner() = copy,
        }
    }

    fn install_countries(&self, copy: Option<Arc<CountryTable>>) {
        match self.countries.write() {
            Ok(mut g) => *g = copy,
            Err(p) => *p.into_inner() = copy,
        }
    }

    fn current_len(&self) -> usize {
        self.copy
            .read()
            .map(|g| g.as_ref().map_or(0, |t| t.len()))
            .unwrap_or(0)
    }
}

impl ReadModel for NameSearch {
    fn name(&self) -> &'static str {
        "name search"
    }

    /// The copy stops answering at once; the next refresh reloads it.
    fn heard(&self) {
        self.changed();
    }

    /// Reloads the copy (and the country counts) when a change was heard since its load,
    /// unless the last load is less than [`RELOAD_GAP`] old; searches run in SQL meanwhile.
    fn refresh<'a>(
        &'a self,
        pool: &'a PgPool,
        _: Change,
    ) -> BoxFuture<'a, Result<Refreshed, RefreshError>> {
        Box::pin(async move {
            let last = self.reloaded_at.lock().map(|t| *t).unwrap_or(None);
            if last.is_some_and(|at| at.elapsed() < RELOAD_GAP) {
                return Ok(Refreshed::Current);
            }
            if self.catch_up(pool).await?
                && let Ok(mut at) = self.reloaded_at.lock()
            {
                *at = Some(Instant::now());
            }
            Ok(Refreshed::Current)
        })
    }
}

/// Reads every band and builds a copy (off the async threads).
pub async fn load(pool: &PgPool, expected: usize) -> Result<NameTable, NameSearchError> {
    let mut builder = TableBuilder::with_capacity(expected);
    by_name::load_each(pool, |r| builder.push(r)).await?;
    tokio::task::spawn_blocking(move || builder.finish())
        .await
        .map_err(|e| NameSearchError::Build(e.to_string()))
}

/// Reads the catalogue's country groups and builds their copy.
pub async fn load_countries(pool: &PgPool) -> Result<CountryTable, NameSearchError> {
    let mut builder = CountryTableBuilder::default();
    bandmap_db::country_counts::load_groups(pool, |g| builder.push(g)).await?;
    Ok(builder.finish())
}
