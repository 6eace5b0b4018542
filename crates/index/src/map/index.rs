//! The shared handle on the current snapshot: readers clone an `Arc` under a read lock held
//! for nanoseconds; a refresh builds the next snapshot off the request path and swaps it.
//! The background task listens for `bandmap_map_changed` and also polls the version counter.

use crate::map::load::{self, LoadError};
use crate::map::snapshot::Snapshot;
use crate::name_search::NameSearch;
use bandmap_db::PgPool;
use bandmap_db::map_points::{self, PgListener};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Channel notified by the triggers of migrations 010 and 014.
pub use bandmap_db::map_points::CHANNEL;
/// Version poll interval (covers a lost LISTEN connection).
pub const POLL_INTERVAL: Duration = Duration::from_secs(5);
/// Pause after a failed refresh.
pub const RETRY_DELAY: Duration = Duration::from_secs(2);
/// Notifications arriving within this window are folded into one rebuild.
pub const DEBOUNCE: Duration = Duration::from_millis(250);
/// Least time between two loads of the name search's copy: while the pipeline writes
/// without pause, every change would otherwise read every band again. Meanwhile searches
/// run in SQL, as they did before the copy existed.
pub const NAMES_RELOAD_GAP: Duration = Duration::from_secs(5);

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
        let expected = old.len() + old.len() / 32;
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

    /// Keeps the snapshot fresh until `shutdown`: loads at once, rebuilds after each
    /// notification (debounced) and whenever the polled version moved. The name search
    /// hears of the same changes (at once, before the debounce) and is reloaded after the
    /// map, at most once per [`NAMES_RELOAD_GAP`].
    pub async fn run(
        self: Arc<Self>,
        pool: PgPool,
        names: Arc<NameSearch>,
        shutdown: CancellationToken,
    ) {
        let mut listener: Option<PgListener> = None;
        let mut names_loaded_at: Option<std::time::Instant> = None;
        loop {
            if listener.is_none() {
                listener = map_points::listen(&pool).await;
            }
            let notified = {
                let wait = async {
                    match listener.as_mut() {
                        Some(l) => l.recv().await.is_ok(),
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    ok = wait => Some(ok),
                    _ = tokio::time::sleep(POLL_INTERVAL) => None,
                    _ = std::future::ready(()), if !self.loaded.load(Ordering::Acquire) => None,
                }
            };
            let outcome = match notified {
                Some(true) => {
                    names.changed();
                    tokio::time::sleep(DEBOUNCE).await;
                    if let Some(l) = listener.as_mut() {
                        while l.next_buffered().is_some() {}
                    }
                    self.reload(&pool).await.map(|()| true)
                }
                Some(false) => {
                    listener = None;
                    self.refresh(&pool).await
                }
                None => self.refresh(&pool).await,
            };
            if matches!(notified, Some(false) | None) && matches!(outcome, Ok(true)) {
                // The poll found a change no notification announced.
                names.changed();
            }
            let mut failed = false;
            if let Err(e) = outcome {
                tracing::warn!(error = %e, "map refresh failed; keeping the previous snapshot");
                failed = true;
            }
            if names_loaded_at.is_none_or(|at| at.elapsed() >= NAMES_RELOAD_GAP) {
                match names.catch_up(&pool).await {
                    Ok(true) => names_loaded_at = Some(std::time::Instant::now()),
                    Ok(false) => {}
                    Err(e) => {
                        tracing::warn!(error = %e, "name search refresh failed; searches run in SQL meanwhile");
                        failed = true;
                    }
                }
            }
            if failed {
                // Without a first snapshot the loop would retry at once: back off.
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tokio::time::sleep(RETRY_DELAY) => {}
                }
            }
        }
    }
}
