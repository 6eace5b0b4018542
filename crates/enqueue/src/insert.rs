//! Inserting one batch of planned rows: one `UNNEST` statement and the set-based primary
//! point sync of its country-only bands, in one transaction. When that fails with a
//! database error (a row the database refuses), the batch is retried row by row so the
//! failing rows are isolated, counted and logged, and every other row is created.

use crate::error::EnqueueError;
use crate::report::ScanReport;
use bandmap_db::DbError;
use bandmap_db::band_locations::enqueue::{Created, NewLocation, insert_locations};
use bandmap_db::band_locations::primary::sync_primary_points;
use bandmap_db::runs::{self, Level};
use sqlx::PgPool;

/// Per-row failure lines written to `crawl_log` per run; the rest are counted (and a line
/// says how many were not itemised), so a systematic failure cannot flood the log.
pub const MAX_FAILURE_LINES: u64 = 200;

/// Failure lines written so far in the run.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    failure_lines: u64,
    unlisted: u64,
}

/// Whether an error concerns the rows (the database refused them) rather than the
/// connection: only the former may be isolated and counted; the latter ends the scan.
fn is_row_error(e: &DbError) -> bool {
    matches!(e, DbError::Sqlx(sqlx::Error::Database(_)))
}

/// Inserts a batch, isolating failing rows; adds to the report's counts.
pub(crate) async fn batch(
    pool: &PgPool,
    run_id: i64,
    rows: &[NewLocation],
    report: &mut ScanReport,
    progress: &mut Progress,
) -> Result<(), EnqueueError> {
    if rows.is_empty() {
        return Ok(());
    }
    match insert_all(pool, rows).await {
        Ok((created, synced)) => {
            account(report, rows.len(), &created, 0);
            report.primary_points += synced;
            Ok(())
        }
        Err(e) if is_row_error(&e) => {
            let line = format!(
                "batch insert of {} rows failed ({e}); retrying row by row",
                rows.len()
            );
            tracing::warn!(run_id, error = %e, "batch insert failed; isolating rows");
            runs::log(pool, Some(run_id), Level::Warn, &line).await?;
            row_by_row(pool, run_id, rows, report, progress).await
        }
        Err(e) => Err(e.into()),
    }
}

/// The fast path: every row and the sync in one transaction.
async fn insert_all(pool: &PgPool, rows: &[NewLocation]) -> Result<(Vec<Created>, u64), DbError> {
    let mut tx = pool.begin().await?;
    let created = insert_locations(&mut tx, rows).await?;
    let synced = sync_primary_points(&mut tx, &country_only_bands(&created)).await?;
    tx.commit().await?;
    Ok((created, synced))
}

/// The slow path: one statement per row; failing rows are counted and logged.
async fn row_by_row(
    pool: &PgPool,
    run_id: i64,
    rows: &[NewLocation],
    report: &mut ScanReport,
    progress: &mut Progress,
) -> Result<(), EnqueueError> {
    let mut created = Vec::new();
    let mut failed = 0;
    for row in rows {
        let mut conn = pool.acquire().await.map_err(DbError::from)?;
        match insert_locations(&mut conn, std::slice::from_ref(row)).await {
            Ok(c) => created.extend(c),
            Err(e) if is_row_error(&e) => {
                failed += 1;
                log_failure(pool, run_id, row, &e, progress).await?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    account(report, rows.len(), &created, failed);
    let mut conn = pool.acquire().await.map_err(DbError::from)?;
    report.primary_points += sync_primary_points(&mut conn, &country_only_bands(&created)).await?;
    Ok(())
}

async fn log_failure(
    pool: &PgPool,
    run_id: i64,
    row: &NewLocation,
    e: &DbError,
    progress: &mut Progress,
) -> Result<(), EnqueueError> {
    if progress.failure_lines >= MAX_FAILURE_LINES {
        progress.unlisted += 1;
        return Ok(());
    }
    progress.failure_lines += 1;
    tracing::warn!(run_id, ma_id = row.ma_id, step = row.step, error = %e, "row insert failed");
    let line = format!(
        "insert failed: ma_id={} step={} location_raw={:?}: {e}",
        row.ma_id, row.step, row.raw
    );
    runs::log(pool, Some(run_id), Level::Warn, &line).await?;
    Ok(())
}

/// The line that accounts for failures beyond [`MAX_FAILURE_LINES`].
pub(crate) async fn log_unlisted_failures(
    pool: &PgPool,
    run_id: i64,
    progress: &Progress,
) -> Result<(), EnqueueError> {
    if progress.unlisted > 0 {
        let line = format!(
            "{} further failed inserts not listed one by one (limit {MAX_FAILURE_LINES} lines per run)",
            progress.unlisted
        );
        runs::log(pool, Some(run_id), Level::Warn, &line).await?;
    }
    Ok(())
}

fn account(report: &mut ScanReport, planned: usize, created: &[Created], failed: u64) {
    let made = created.len() as u64;
    report.created += made;
    report.country_only += created
        .iter()
        .filter(|c| c.geocode_status == "country_only")
        .count() as u64;
    report.failed += failed;
    report.existing += (planned as u64).saturating_sub(made + failed);
}

fn country_only_bands(created: &[Created]) -> Vec<i64> {
    created
        .iter()
        .filter(|c| c.geocode_status == "country_only")
        .map(|c| c.ma_id)
        .collect()
}
