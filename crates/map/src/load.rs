//! Reading the mappable points and the data version from PostgreSQL.

use crate::snapshot::{PointRow, Snapshot};
use sqlx::PgPool;

/// The source rows: located `band_locations` rows (`done`, `country_only`) with their band.
pub const POINTS_SQL: &str = include_str!("points.sql");

/// Why a load failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The database failed.
    #[error("loading map points: {0}")]
    Db(#[from] sqlx::Error),
    /// Building the snapshot panicked (a bug): the caller keeps its previous snapshot.
    #[error("building the map snapshot failed: {0}")]
    Build(String),
}

/// Writers in flight at the load transaction's snapshot. The counter is read *before* that
/// snapshot, so every writer it counts has either committed (its rows are visible) or is in
/// this list; a refresh reloads once one of them commits.
const IN_FLIGHT_SQL: &str =
    "SELECT ARRAY(SELECT x::text::bigint FROM pg_snapshot_xip(pg_current_snapshot()) x)";

/// Whether the data moved since a snapshot: the counter differs, or a writer that was in
/// flight when it was read has committed since.
const STALE_SQL: &str = "SELECT (CASE WHEN is_called THEN last_value ELSE 0 END) <> $1 \
     OR EXISTS (SELECT 1 FROM unnest($2::bigint[]) x \
                WHERE pg_xact_status(x::text::xid8) = 'committed') \
     FROM map_data_version";

/// Current value of `map_data_version` (0 before the first change).
pub async fn data_version(pool: &PgPool) -> Result<i64, LoadError> {
    let v: i64 = sqlx::query_scalar(
        "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM map_data_version",
    )
    .fetch_one(pool)
    .await?;
    Ok(v)
}

/// Whether `snap` no longer reflects the committed data.
pub async fn is_stale(pool: &PgPool, snap: &Snapshot) -> Result<bool, LoadError> {
    let stale: bool = sqlx::query_scalar(STALE_SQL)
        .bind(snap.version)
        .bind(&snap.pending_xids)
        .fetch_one(pool)
        .await?;
    Ok(stale)
}

/// Loads a new snapshot: the counter, then in-flight writers and rows from one
/// repeatable-read transaction.
pub async fn load(pool: &PgPool) -> Result<Snapshot, LoadError> {
    load_with(pool, Snapshot::build).await
}

/// [`load`] with another snapshot builder (tests inject a failing one).
#[tracing::instrument(skip_all)]
pub async fn load_with<F>(pool: &PgPool, build: F) -> Result<Snapshot, LoadError>
where
    F: FnOnce(i64, Vec<PointRow>) -> Snapshot + Send + 'static,
{
    let version = data_version(pool).await?;
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let pending: Vec<i64> = sqlx::query_scalar(IN_FLIGHT_SQL)
        .fetch_one(&mut *tx)
        .await?;
    let rows: Vec<PointRow> = sqlx::query_as(POINTS_SQL).fetch_all(&mut *tx).await?;
    tx.commit().await?;
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
