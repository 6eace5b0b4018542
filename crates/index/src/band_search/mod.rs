//! The in-memory band search behind `GET /admin/api/bands`.
//!
//! The list must return an exact `total`; in SQL that means visiting every heap page that
//! holds a match, ~4 µs a page, so a pattern matching thousands of bands spread over the
//! table cost 40–70 ms whatever the indexes (docs/admin-auth-and-bands.md). This keeps the
//! searched and sorted columns of every band in memory instead: a filter is a scan of
//! ~150,000 small rows, which yields the total and the ids of the page; PostgreSQL then
//! fetches only those rows.
//!
//! Correctness does not depend on timing. Before every list the copy reads what changed
//! since its snapshot (`bandmap_db::bands::admin::search`), under a lock, so a list sees every write committed before
//! it started. The text orders (name, country) use positions PostgreSQL computed at the
//! last full load with the list's own ORDER BY (the database's collation); a row whose sort
//! text changed since loses its position and the page is finished by PostgreSQL among a
//! candidate set that provably holds it ([`SearchTable::select`]). Too many such
//! rows, a truncated table, a copy older than the tombstones, or a filter this module does
//! not model make the caller use the SQL list while a new copy loads in the background.
//!
//! **Why the list still reads the changes itself.** The one refresh task (`crate::refresh`)
//! also feeds this copy — its first load, and the changes since the mark at every round —
//! but only a read at the list gives read-your-writes: a notification arrives after the
//! commit, some time later, and announces only what the map shows, while the list sorts and
//! filters on columns no notification covers. The task's share keeps that read small and
//! the copy from going idle past its tombstones.

mod compact;
mod matcher;
mod table;

pub use bandmap_db::bands::admin::Selection;
pub use bandmap_db::bands::admin::search::{LoweredPatterns, SearchRow, Watermark};
pub use matcher::Matcher;
pub use table::{MAX_CANDIDATES, SearchTable, TableBuilder};

use crate::refresh::{Change, ReadModel, RefreshError, Refreshed};
use bandmap_db::bands::admin::search as queries;
use bandmap_db::bands::admin::{BandFilter, BandListItem, list_bands_sql, list_selected};
use bandmap_db::{DbError, PgPool, Result};
use futures::future::BoxFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// Rows with an unknown name position that start a new full load.
pub const RELOAD_UNRANKED: usize = 2_000;

/// Pause after a failed full load before the next attempt.
const RETRY_AFTER: Duration = Duration::from_secs(10);

/// Longest time a copy may go without a refresh: its tombstones may be pruned after that.
const MAX_IDLE: Duration = Duration::from_secs(6 * 3600);

/// The copy and the snapshot it is current to.
#[derive(Debug)]
struct Copy {
    table: SearchTable,
    mark: Watermark,
    refreshed: Instant,
}

/// The shared search: one per process.
#[derive(Debug, Default)]
pub struct BandSearch {
    copy: Arc<Mutex<Option<Copy>>>,
    loading: AtomicBool,
    failed_at: std::sync::Mutex<Option<Instant>>,
}

impl BandSearch {
    /// An empty search; the first list starts its load.
    pub fn new() -> BandSearch {
        BandSearch::default()
    }

    /// Loads the copy now (start-up warm-up, tests).
    pub async fn load_now(&self, pool: &PgPool) -> Result<()> {
        // Each row is packed as it is decoded: the load's owned strings never exist
        // together (docs/performance.md "Serve memory").
        let mut builder = TableBuilder::default();
        let mark = queries::load_each(pool, |r| builder.push(r)).await?;
        let table = tokio::task::spawn_blocking(move || builder.finish())
            .await
            .map_err(|e| DbError::Internal(format!("building the band search: {e}")))?;
        if let Err(e) = queries::prune_tombstones(pool).await {
            tracing::warn!(error = %e, "pruning band search tombstones failed");
        }
        tracing::info!(bands = table.len(), "band search loaded");
        *self.copy.lock().await = Some(Copy {
            table,
            mark,
            refreshed: Instant::now(),
        });
        Ok(())
    }

    /// Starts a background full load unless one runs or one failed moments ago.
    pub fn start_load(self: &Arc<Self>, pool: &PgPool) {
        if !self.claim_load() {
            return;
        }
        let (me, pool) = (self.clone(), pool.clone());
        tokio::spawn(async move {
            if let Err(e) = me.load_claimed(&pool).await {
                tracing::warn!(error = %e, "loading the band search failed; the list uses SQL");
            }
        });
    }

    /// The right to run the one full load, unless one runs or one failed moments ago.
    fn claim_load(&self) -> bool {
        let recently_failed = self
            .failed_at
            .lock()
            .map(|t| t.is_some_and(|t| t.elapsed() < RETRY_AFTER))
            .unwrap_or(false);
        !recently_failed && !self.loading.swap(true, Ordering::AcqRel)
    }

    /// Runs the claimed full load and notes its failure (for [`RETRY_AFTER`]).
    async fn load_claimed(&self, pool: &PgPool) -> Result<()> {
        let claim = LoadClaim(&self.loading);
        let outcome = self.load_now(pool).await;
        if let Ok(mut failed) = self.failed_at.lock() {
            *failed = outcome.as_ref().err().map(|_| Instant::now());
        }
        drop(claim);
        outcome
    }

    /// A full load now, unless one runs or one failed moments ago.
    async fn load_unless_claimed(&self, pool: &PgPool) -> Result<()> {
        if self.claim_load() {
            self.load_claimed(pool).await
        } else {
            Ok(())
        }
    }

    /// Brings the copy up to date without a list (the refresh task, `crate::refresh`):
    /// applies the rows changed since its mark, or loads it when there is none, it went
    /// idle too long, or only a full load can bring it up to date. A list still reads the
    /// changes since the mark itself (read-your-writes, [`BandSearch::select`]); this keeps
    /// that read small and the copy from going idle.
    pub async fn catch_up(&self, pool: &PgPool) -> Result<()> {
        let mut guard = self.copy.clone().lock_owned().await;
        let current = guard
            .as_ref()
            .filter(|copy| copy.refreshed.elapsed() <= MAX_IDLE)
            .map(|copy| copy.mark.clone());
        let reload = match current {
            None => {
                // Released before the load, which installs its copy under the same lock.
                *guard = None;
                drop(guard);
                true
            }
            Some(mark) => {
                let changes = queries::changes_since(pool, &mark, [None; 4]).await?;
                tokio::task::spawn_blocking(move || {
                    if !guard.as_mut().is_some_and(|copy| apply(copy, changes)) {
                        *guard = None;
                        return true;
                    }
                    guard
                        .as_ref()
                        .is_some_and(|copy| copy.table.unranked() > RELOAD_UNRANKED)
                })
                .await
                .map_err(|e| DbError::Internal(format!("band search: {e}")))?
            }
        };
        if reload {
            self.load_unless_claimed(pool).await?;
        }
        Ok(())
    }

    /// Bands in the copy (`None` without a copy).
    pub async fn bands(&self) -> Option<usize> {
        self.copy.lock().await.as_ref().map(|c| c.table.len())
    }

    /// Rows of the copy whose name position is unknown (`None` without a copy).
    pub async fn unranked(&self) -> Option<usize> {
        self.copy.lock().await.as_ref().map(|c| c.table.unranked())
    }

    /// `EXPLAIN (ANALYZE)` of the changes read at the next list (benchmark and docs); empty
    /// without a copy.
    pub async fn explain_refresh(&self, pool: &PgPool) -> Result<Vec<String>> {
        let mark = match self.copy.lock().await.as_ref() {
            Some(copy) => copy.mark.clone(),
            None => return Ok(Vec::new()),
        };
        queries::explain_changes(pool, &mark).await
    }

    /// The total and page ids for `f`, or `None` when the SQL list must answer (no copy
    /// yet, a reload pending, or a filter or page this search does not cover).
    pub async fn select(
        self: &Arc<Self>,
        pool: &PgPool,
        f: &BandFilter,
    ) -> Result<Option<Selection>> {
        let mut guard = self.copy.clone().lock_owned().await;
        let Some(copy) = guard.as_mut() else {
            self.start_load(pool);
            return Ok(None);
        };
        if copy.refreshed.elapsed() > MAX_IDLE {
            *guard = None;
            self.start_load(pool);
            return Ok(None);
        }
        let changes = queries::changes_since(pool, &copy.mark, f.patterns()).await?;
        let patterns = changes.patterns();
        let (offset, limit) = (to_usize(f.offset), to_usize(f.limit));
        let sort = f.sort;
        let f = f.clone();
        let (selection, reload) = tokio::task::spawn_blocking(move || {
            let Some(copy) = guard.as_mut() else {
                return (None, true);
            };
            if !apply(copy, changes) {
                *guard = None;
                return (None, true);
            }
            let selection = Matcher::new(&f, &patterns)
                .and_then(|m| copy.table.select(&m, sort, offset, limit));
            (selection, copy.table.unranked() > RELOAD_UNRANKED)
        })
        .await
        .map_err(|e| DbError::Internal(format!("band search: {e}")))?;
        if reload {
            self.start_load(pool);
        }
        Ok(selection)
    }
}

/// The one full load running; its drop lets the next one start (even if the load's future
/// is dropped midway).
#[derive(Debug)]
struct LoadClaim<'a>(&'a AtomicBool);

impl Drop for LoadClaim<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl ReadModel for BandSearch {
    fn name(&self) -> &'static str {
        "band search"
    }

    fn refresh<'a>(
        &'a self,
        pool: &'a PgPool,
        _: Change,
    ) -> BoxFuture<'a, std::result::Result<Refreshed, RefreshError>> {
        Box::pin(async move {
            self.catch_up(pool).await?;
            Ok(Refreshed::Current)
        })
    }
}

/// Applies `changes` to `copy`; false when only a full load can bring it up to date.
fn apply(copy: &mut Copy, changes: queries::Changes) -> bool {
    let queries::Changes {
        mark,
        changed,
        deleted,
        ..
    } = changes;
    for ma_id in deleted {
        match ma_id {
            Some(id) => copy.table.remove(id),
            None => return false,
        }
    }
    for row in changed.0 {
        copy.table.upsert(row);
    }
    copy.mark = mark;
    copy.refreshed = Instant::now();
    true
}

fn to_usize(v: i64) -> usize {
    usize::try_from(v).unwrap_or(0)
}

/// One page of bands and the total matching the filters: the in-memory search gives the
/// total and the ids of the page, PostgreSQL the rows; without a usable search copy (still
/// loading, or a page it does not cover) the SQL list answers.
pub async fn list_bands(
    pool: &PgPool,
    search: &Arc<BandSearch>,
    f: &BandFilter,
) -> Result<(Vec<BandListItem>, i64)> {
    match search.select(pool, f).await? {
        Some(selection) => list_selected(pool, &selection, f).await,
        None => list_bands_sql(pool, f).await,
    }
}
