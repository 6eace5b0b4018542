//! The map index's queries (`crates/index`, docs/map.md): the mappable points, the data
//! version counter `map_data_version` and its change notifications.

use crate::Result;
use sqlx::{PgExecutor, PgPool};

pub use sqlx::postgres::PgListener;

/// The source rows: located `band_locations` rows (`done`, `country_only`) with their band.
pub const POINTS_SQL: &str = include_str!("map_points.sql");

/// Channel notified by the triggers of migrations 010 and 014.
pub const CHANNEL: &str = "bandmap_map_changed";

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

/// One mappable point (a located `band_locations` row joined to its band).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PointRow {
    /// `band_locations.id`.
    pub location_id: i64,
    /// Band id.
    pub ma_id: i64,
    /// Longitude of the row.
    pub lon: f64,
    /// Latitude of the row.
    pub lat: f64,
    /// Display order of the step.
    pub step_order: i32,
    /// The parser's step order (never changes; a manual override keeps it): the band's
    /// path order is `(parsed_step, location_id)`, as on the card (docs/map.md "Flows").
    pub parsed_step: i32,
    /// Step label.
    pub step_label: Option<String>,
    /// Raw location text of the step.
    pub location_raw: String,
    /// Band name.
    pub name: String,
    /// Band genre.
    pub genre: Option<String>,
    /// Band country name.
    pub country: Option<String>,
    /// Band country ISO2 code.
    pub country_code: Option<String>,
    /// Band status.
    pub status: Option<String>,
    /// Band formation year.
    pub formed_year: Option<i32>,
}

/// The points of one read, and the writers in flight at its snapshot.
#[derive(Debug, Clone, Default)]
pub struct Points {
    /// Every mappable point.
    pub rows: Vec<PointRow>,
    /// Transaction ids in flight when the rows were read (see [`is_stale`]).
    pub pending_xids: Vec<i64>,
}

/// Current value of `map_data_version` (0 before the first change).
pub async fn data_version(db: impl PgExecutor<'_>) -> Result<i64> {
    let v: i64 = sqlx::query_scalar(
        "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM map_data_version",
    )
    .fetch_one(db)
    .await?;
    Ok(v)
}

/// Whether data read at `version` with `pending_xids` in flight no longer reflects the
/// committed data.
pub async fn is_stale(db: impl PgExecutor<'_>, version: i64, pending_xids: &[i64]) -> Result<bool> {
    let stale: bool = sqlx::query_scalar(STALE_SQL)
        .bind(version)
        .bind(pending_xids)
        .fetch_one(db)
        .await?;
    Ok(stale)
}

/// Every mappable point and the writers in flight, from one repeatable-read transaction.
/// Read [`data_version`] before: the rows are at least as new as that counter.
pub async fn load_points(pool: &PgPool) -> Result<Points> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let pending_xids: Vec<i64> = sqlx::query_scalar(IN_FLIGHT_SQL)
        .fetch_one(&mut *tx)
        .await?;
    let rows: Vec<PointRow> = sqlx::query_as(POINTS_SQL).fetch_all(&mut *tx).await?;
    tx.commit().await?;
    Ok(Points { rows, pending_xids })
}

/// [`load_points`] without holding the rows: each row is handed to `each` as it is decoded
/// (the map index packs it at once, so 150,000 rows of owned strings — ~60 MB — never
/// exist together; docs/performance.md "Serve memory"). Returns the writers in flight.
pub async fn load_points_each(
    pool: &PgPool,
    mut each: impl FnMut(PointRow) + Send,
) -> Result<Vec<i64>> {
    use futures::TryStreamExt;
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let pending_xids: Vec<i64> = sqlx::query_scalar(IN_FLIGHT_SQL)
        .fetch_one(&mut *tx)
        .await?;
    {
        let mut rows = sqlx::query_as::<_, PointRow>(POINTS_SQL).fetch(&mut *tx);
        while let Some(row) = rows.try_next().await? {
            each(row);
        }
    }
    tx.commit().await?;
    Ok(pending_xids)
}

/// A listener on [`CHANNEL`]; `None` when it cannot connect or listen (the caller then
/// polls [`data_version`] only).
pub async fn listen(pool: &PgPool) -> Option<PgListener> {
    let mut l = PgListener::connect_with(pool).await.ok()?;
    match l.listen(CHANNEL).await {
        Ok(()) => Some(l),
        Err(e) => {
            tracing::warn!(error = %e, "LISTEN failed; polling the version only");
            None
        }
    }
}
