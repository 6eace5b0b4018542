//! Building a snapshot from the points `bandmap_db::map_points` reads.

use crate::map::snapshot::{Snapshot, Staged, StagedSize};
use bandmap_db::PgPool;
use bandmap_db::map_points;

/// Why a load failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The database failed.
    #[error("loading map points: {0}")]
    Db(#[from] bandmap_db::DbError),
    /// Building the snapshot panicked (a bug): the caller keeps its previous snapshot.
    #[error("building the map snapshot failed: {0}")]
    Build(String),
}

/// Current value of `map_data_version` (0 before the first change).
pub async fn data_version(pool: &PgPool) -> Result<i64, LoadError> {
    Ok(map_points::data_version(pool).await?)
}

/// Whether `snap` no longer reflects the committed data.
pub async fn is_stale(pool: &PgPool, snap: &Snapshot) -> Result<bool, LoadError> {
    Ok(map_points::is_stale(pool, snap.version, &snap.pending_xids).await?)
}

/// Loads a new snapshot: the counter, then in-flight writers and rows from one
/// repeatable-read transaction.
pub async fn load(pool: &PgPool) -> Result<Snapshot, LoadError> {
    load_with(pool, Snapshot::from_staged).await
}

/// [`load`] with another snapshot builder (tests inject a failing one).
pub async fn load_with<F>(pool: &PgPool, build: F) -> Result<Snapshot, LoadError>
where
    F: FnOnce(i64, Staged) -> Snapshot + Send + 'static,
{
    load_sized(pool, StagedSize::default(), build).await
}

/// [`load_with`], with room for `expected` rows, bands and texts reserved up front (a
/// rebuild passes the size of the snapshot it replaces, so the staged columns are not
/// grown by doubling).
#[tracing::instrument(skip_all)]
pub async fn load_sized<F>(
    pool: &PgPool,
    expected: StagedSize,
    build: F,
) -> Result<Snapshot, LoadError>
where
    F: FnOnce(i64, Staged) -> Snapshot + Send + 'static,
{
    let version = map_points::data_version(pool).await?;
    // Each row is packed as it arrives: the owned rows never exist together.
    let mut rows = Staged::with_capacity(expected);
    let pending = map_points::load_points_each(pool, |r| rows.push(r)).await?;
    let n = rows.len();
    let started = std::time::Instant::now();
    // A panic must not install an empty snapshot under the current version: the map would
    // stay empty until the next data change. It becomes an error; the index keeps the
    // previous snapshot and retries at the next refresh.
    let mut snap = tokio::task::spawn_blocking(move || build(version, rows))
        .await
        .map_err(|e| {
            let why = panic_message(e);
            tracing::error!(version, error = %why, "map snapshot build failed");
            LoadError::Build(why)
        })?;
    snap.pending_xids = pending;
    tracing::debug!(
        points = n,
        version,
        build_ms = started.elapsed().as_millis() as u64,
        "map snapshot built"
    );
    Ok(snap)
}

fn panic_message(e: tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return e.to_string();
    }
    let payload = e.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}
