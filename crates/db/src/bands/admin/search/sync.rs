//! Reading the search rows from PostgreSQL: a full load with the sort ranks, and the
//! changes since a load or the last refresh.
//!
//! A copy is as of one snapshot, remembered as its watermark: `xmax` (every transaction id
//! from there on is invisible to it) and the transactions in progress below it (`xip`). Whatever a later
//! snapshot shows that this one did not was written by a transaction at or after `xmax`
//! or in `xip`, and such a transaction stamped its rows with its id (`search_xid`,
//! migration 018) or left a tombstone. A transaction still in flight at the refresh is
//! in the new `xip` and is read once it commits.

use super::LoweredPatterns;
use super::row::{COLUMNS, SearchRow, rank_columns};
use crate::Result;
use sqlx::types::Json;
use sqlx::{Acquire, PgExecutor, Postgres};

/// The snapshot a copy is current to.
#[derive(Debug, Clone, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Watermark {
    /// Transactions from this id on were not visible to the snapshot.
    pub xmax: i64,
    /// Transactions below `xmax` in progress at the snapshot.
    pub xip: Vec<i64>,
}

const SNAPSHOT_SQL: &str = "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax,
    ARRAY(SELECT x::text::bigint FROM pg_snapshot_xip(pg_current_snapshot()) x) AS xip";

/// Tombstones older than this are deleted by full loads; a copy older than this reloads.
pub const TOMBSTONE_DAYS: i32 = 1;

/// Every band with its ranks, each handed to `each` as it is decoded (the band search packs
/// it at once, so 120,000 rows of owned strings, ~50 MB, never exist together;
/// docs/performance.md "Serve memory"). Returns the snapshot they were read at.
pub async fn load_each(
    db: impl Acquire<'_, Database = Postgres>,
    mut each: impl FnMut(SearchRow) + Send,
) -> Result<Watermark> {
    use futures::TryStreamExt;
    let mut tx = db.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let mark: Watermark = sqlx::query_as(SNAPSHOT_SQL).fetch_one(&mut *tx).await?;
    // Built from constants only.
    let sql = format!("{COLUMNS}, {} FROM bands", rank_columns());
    {
        let mut rows = sqlx::query_as::<_, SearchRow>(sqlx::AssertSqlSafe(sql)).fetch(&mut *tx);
        while let Some(row) = rows.try_next().await? {
            each(row);
        }
    }
    tx.commit().await?;
    Ok(mark)
}

/// Deletes tombstones no copy can still need.
pub async fn prune_tombstones(db: impl PgExecutor<'_>) -> Result<u64> {
    let done = sqlx::query(
        "DELETE FROM band_search_deletes WHERE deleted_at < now() - make_interval(days => $1)",
    )
    .bind(TOMBSTONE_DAYS)
    .execute(db)
    .await?;
    Ok(done.rows_affected())
}

/// What changed since a watermark, and the patterns of the request lower-cased.
#[derive(Debug, sqlx::FromRow)]
pub struct Changes {
    /// The snapshot of this read.
    #[sqlx(flatten)]
    pub mark: Watermark,
    /// Rows inserted or changed (without ranks).
    pub changed: Json<Vec<SearchRow>>,
    /// Deleted ids; a `None` means the table was truncated.
    pub deleted: Vec<Option<i64>>,
    /// `lower()` of the name, location, themes and genre patterns.
    pub p0: Option<String>,
    /// See `p0`.
    pub p1: Option<String>,
    /// See `p0`.
    pub p2: Option<String>,
    /// See `p0`.
    pub p3: Option<String>,
}

impl Changes {
    /// The lowered patterns.
    pub fn patterns(&self) -> LoweredPatterns {
        [
            self.p0.clone(),
            self.p1.clone(),
            self.p2.clone(),
            self.p3.clone(),
        ]
    }
}

fn changes_sql(prefix: &str) -> String {
    format!(
        "{prefix}{SNAPSHOT_SQL},
        (SELECT coalesce(json_agg(r), '[]'::json) FROM ({COLUMNS} FROM bands
            WHERE search_xid >= $1::text::xid8
               OR search_xid = ANY($2::bigint[]::text[]::xid8[])) r) AS changed,
        ARRAY(SELECT ma_id FROM band_search_deletes
            WHERE xid >= $1::text::xid8 OR xid = ANY($2::bigint[]::text[]::xid8[])) AS deleted,
        lower($3) AS p0, lower($4) AS p1, lower($5) AS p2, lower($6) AS p3"
    )
}

/// The changes since `since`, in one statement (one snapshot, one round trip).
pub async fn changes_since(
    db: impl PgExecutor<'_>,
    since: &Watermark,
    patterns: [Option<&str>; 4],
) -> Result<Changes> {
    let [p0, p1, p2, p3] = patterns;
    // Built from constants only; every value is bound.
    let changes = sqlx::query_as(sqlx::AssertSqlSafe(changes_sql("")))
        .bind(since.xmax.to_string())
        .bind(&since.xip)
        .bind(p0)
        .bind(p1)
        .bind(p2)
        .bind(p3)
        .fetch_one(db)
        .await?;
    Ok(changes)
}

/// `EXPLAIN (ANALYZE)` of the changes read since `since` (benchmark and docs).
pub async fn explain_changes(db: impl PgExecutor<'_>, since: &Watermark) -> Result<Vec<String>> {
    let sql = changes_sql("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ");
    let plan = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(since.xmax.to_string())
        .bind(&since.xip)
        .bind(None::<String>)
        .bind(None::<String>)
        .bind(None::<String>)
        .bind(None::<String>)
        .fetch_all(db)
        .await?;
    Ok(plan)
}
