//! The shared handle on the current snapshot: readers clone an `Arc` under a read lock held
//! for nanoseconds; a refresh builds the next snapshot off the request path and swaps it.
//! The index is a [`ReadModel`]: the one refresh task (`crate::refresh`) rebuilds it after
//! each notification and whenever the polled version moved.

use crate::map::load::{self, LoadError};
use crate::map::snapshot::Snapshot;
use crate::refresh::{Change, ReadModel, RefreshError, Refreshed};
use bandmap_db::PgPool;
use futures::future::BoxFuture;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

/// Channel notified by the triggers of migrations 010 and 014.
pub use bandmap_db::map_points::CHANNEL;

/// The map index of one API process.
#[derive(Debug)]
pub struct MapIndex {
    current: RwLock<Arc<Snapshot>>,
    loaded: AtomicBool,
    /// A load failed since the current snapshot was installed: the next refresh rebuilds
    /// even if the counter did not move.
    failed: AtomicBool,
    loading: tokio::sync::Mutex<()>,
}

impl Default for MapIndex {
    fn default() -> Self {
        Self::new()
    }
}

impl MapIndex {
    /// An index holding an empty snapshot, loaded on first use.
    pub fn new() -> MapIndex {
        MapIndex {
            current: RwLock::new(Arc::new(Snapshot::empty())),
            loaded: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            loading: tokio::sync::Mutex::new(()),
        }
    }

    /// The snapshot in use now (possibly the empty one before the first load).
    pub fn current(&self) -> Arc<Snapshot> {
        self.current
            .read()
            .map(|g| g.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// The current snapshot, loading it first if it never was.
    pub async fn get(&self, pool: &PgPool) -> Result<Arc<Snapshot>, LoadError> {
        if !self.loaded.load(Ordering::Acquire) {
            let _guard = self.loading.lock().await;
            if !self.loaded.load(Ordering::Acquire) {
                self.load_and_install(pool, Snapshot::from_staged).await?;
            }
        }
        Ok(self.current())
    }

    /// Rebuilds when the committed data moved since the snapshot (or nothing was loaded
    /// yet). Returns whether a new snapshot was installed.
    pub async fn refresh(&self, pool: &PgPool) -> Result<bool, LoadError> {
        let _guard = self.loading.lock().await;
        if self.loaded.load(Ordering::Acquire)
            && !self.failed.load(Ordering::Acquire)
            && !load::is_stale(pool, &self.current()).await?
        {
            return Ok(false);
        }
        self.load_and_install(pool, Snapshot::from_staged).await?;
        Ok(true)
    }

    /// Rebuilds unconditionally.
    pub async fn reload(&self, pool: &PgPool) -> Result<(), LoadError> {
        self.reload_with(pool, Snapshot::from_staged).await
    }

    /// [`MapIndex::reload`] with another snapshot builder (tests inject a failing one). On
    /// failure the previous snapshot stays in use and the next refresh retries.
    pub async fn reload_with<F>(&self, pool: &PgPool, build: F) -> Result<(), LoadError>
    where
        F: FnOnce(i64, crate::map::snapshot::Staged) -> Snapshot + Send + 'static,
    {
        let _guard = self.loading.lock().await;
        self.load_and_install(pool, build).await
    }

    async fn load_and_install<F>(&self, pool: &PgPool, build: F) -> Result<(), LoadError>
    where
        F: FnOnce(i64, crate::map::snapshot::Staged) -> Snapshot + Send + 'static,
    {
        let started = std::time::Instant::now();
        // The snapshot in use keeps serving while its successor builds; its caches go now
        // so that the two never hold filter indexes and kept answers at once (the serve
        // process's memory peak is this moment, docs/performance.md "Serve memory").
        let old = self.current();
        old.retire_caches();
        let expected = old.staging_size();
        match load::load_sized(pool, expected, build).await {
            Ok(snap) => {
                bandmap_metrics::index::rebuilt(snap.len(), snap.version, started.elapsed());
                self.install(snap);
                Ok(())
            }
            Err(e) => {
                old.keep_caches_again();
                self.failed.store(true, Ordering::Release);
                Err(e)
            }
        }
    }

    fn install(&self, snap: Snapshot) {
        let snap = Arc::new(snap);
        match self.current.write() {
            Ok(mut g) => *g = snap,
            Err(p) => *p.into_inner() = snap,
        }
        self.failed.store(false, Ordering::Release);
        self.loaded.store(true, Ordering::Release);
    }
}

impl ReadModel for MapIndex {
    fn name(&self) -> &'static str {
        "map index"
    }

    fn awaits_first_load(&self) -> bool {
        !self.loaded.load(Ordering::Acquire)
    }

    /// After a notification, rebuilds; after a poll, rebuilds only when the committed data
    /// moved since the snapshot, and then reports it found (the name search hears of it).
    fn refresh<'a>(
        &'a self,
        pool: &'a PgPool,
        change: Change,
    ) -> BoxFuture<'a, Result<Refreshed, RefreshError>> {
        Box::pin(async move {
            match change {
                Change::Announced => {
                    self.reload(pool).await?;
                    Ok(Refreshed::Current)
                }
                Change::Polled => {
                    let rebuilt = MapIndex::refresh(self, pool).await?;
                    Ok(if rebuilt {
                        Refreshed::Found
                    } else {
                        Refreshed::Current
                    })
                }
            }
        })
    }
}
