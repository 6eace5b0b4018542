//! Inserting one batch of planned rows: one `UNNEST` statement and the set-based primary
//! point sync of its country-only bands, in one transaction. When that fails with a
//! database error (a row the database refuses), the batch is retried band by band so the
//! failing bands are isolated, counted and logged, and every other band gets its rows.
//!
//! A band's rows are all or nothing: a band that kept some rows would never be read again
//! (the scan reads bands without rows), so its refused place would be lost for good.

use crate::error::EnqueueError;
use crate::report::ScanReport;
use bandmap_db::DbError;
use bandmap_db::band_locations::GeocodeStatus;
use bandmap_db::band_locations::enqueue::{Created, Inserted, NewLocation, insert_locations};
use bandmap_db::band_locations::primary::sync_primary_points;
use bandmap_db::runs::{self, Level};
use sqlx::{Connection, PgPool};

/// Failure lines written to `crawl_log` per run (one per failed band); the rest are
/// counted (and a line says how many were not itemised), so a systematic failure cannot
/// flood the log.
pub const MAX_FAILURE_LINES: u64 = 200;

/// How many places of a failed band its log line names.
const FAILURE_PLACES: usize = 10;

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

/// Inserts a batch, isolating failing bands; adds to the report's counts. Returns the
/// bands left without rows because they changed since they were read (ascending).
pub(crate) async fn batch(
    pool: &PgPool,
    run_id: i64,
    rows: &[NewLocation],
    report: &mut ScanReport,
    progress: &mut Progress,
) -> Result<Vec<i64>, EnqueueError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    match insert_all(pool, rows).await {
        Ok((inserted, synced)) => {
            account(report, rows, &inserted, 0);
            report.primary_points += synced;
            Ok(inserted.stale_bands)
        }
        Err(e) if is_row_error(&e) => {
            let line = format!(
                "batch insert of {} rows failed ({e}); retrying band by band",
                rows.len()
            );
            tracing::warn!(run_id, error = %e, "batch insert failed; isolating bands");
            runs::log(pool, Some(run_id), Level::Warn, &line).await?;
            band_by_band(pool, run_id, rows, report, progress).await
        }
        Err(e) => Err(e.into()),
    }
}

/// The fast path: every row and the sync in one transaction.
async fn insert_all(pool: &PgPool, rows: &[NewLocation]) -> Result<(Inserted, u64), DbError> {
    let mut tx = pool.begin().await?;
    let inserted = insert_locations(&mut tx, rows).await?;
    let synced = sync_primary_points(&mut tx, &country_only_bands(&inserted.created)).await?;
    tx.commit().await?;
    Ok((inserted, synced))
}

/// The slow path: one savepoint per band in one transaction. A band whose insert fails
/// is rolled back to its savepoint, so it keeps no row and the next scan retries it
/// whole; all its planned rows count as failed and one line logs it.
async fn band_by_band(
    pool: &PgPool,
    run_id: i64,
    rows: &[NewLocation],
    report: &mut ScanReport,
    progress: &mut Progress,
) -> Result<Vec<i64>, EnqueueError> {
    // Grouping needs each band's rows together; a stable sort keeps their step order.
    let mut sorted = rows.to_vec();
    sorted.sort_by_key(|r| r.ma_id);
    let mut tx = pool.begin().await.map_err(DbError::from)?;
    let mut all = Inserted::default();
    let mut failed = 0;
    for band in sorted.chunk_by(|a, b| a.ma_id == b.ma_id) {
        let mut savepoint = tx.begin().await.map_err(DbError::from)?;
        match insert_locations(&mut savepoint, band).await {
            Ok(inserted) => {
                savepoint.commit().await.map_err(DbError::from)?;
                all.created.extend(inserted.created);
                all.stale_bands.extend(inserted.stale_bands);
            }
            Err(e) if is_row_error(&e) => {
                savepoint.rollback().await.map_err(DbError::from)?;
                failed += band.len() as u64;
                log_failure(pool, run_id, band, &e, progress).await?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    report.primary_points +=
        sync_primary_points(&mut tx, &country_only_bands(&all.created)).await?;
    tx.commit().await.map_err(DbError::from)?;
    account(report, rows, &all, failed);
    Ok(all.stale_bands)
}

/// Logs a failed band (`band` is not empty: it comes from `chunk_by`).
async fn log_failure(
    pool: &PgPool,
    run_id: i64,
    band: &[NewLocation],
    e: &DbError,
    progress: &mut Progress,
) -> Result<(), EnqueueError> {
    if progress.failure_lines >= MAX_FAILURE_LINES {
        progress.unlisted += 1;
        return Ok(());
    }
    progress.failure_lines += 1;
    let ma_id = band.first().map_or(0, |r| r.ma_id);
    tracing::warn!(run_id, ma_id, rows = band.len(), error = %e, "band insert failed");
    let mut places: Vec<String> = band
        .iter()
        .take(FAILURE_PLACES)
        .map(|r| format!("{}:{:?}", r.step, r.raw))
        .collect();
    if band.len() > FAILURE_PLACES {
        places.push("…".to_owned());
    }
    let line = format!(
        "insert failed: ma_id={ma_id} rows={} places=[{}]: {e}; none of the band's rows \
         kept, the next scan retries it",
        band.len(),
        places.join(", ")
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
            "{} further failed bands not listed one by one (limit {MAX_FAILURE_LINES} lines per run)",
            progress.unlisted
        );
        runs::log(pool, Some(run_id), Level::Warn, &line).await?;
    }
    Ok(())
}

/// Adds a batch's counts. Rows of stale bands are neither created, failed nor existing:
/// their bands are counted as skipped by the scan.
fn account(report: &mut ScanReport, planned: &[NewLocation], inserted: &Inserted, failed: u64) {
    let made = inserted.created.len() as u64;
    let stale_rows = planned
        .iter()
        .filter(|r| inserted.stale_bands.binary_search(&r.ma_id).is_ok())
        .count() as u64;
    report.created += made;
    report.country_only += inserted
        .created
        .iter()
        .filter(|c| c.geocode_status == GeocodeStatus::CountryOnly)
        .count() as u64;
    report.failed += failed;
    report.existing += (planned.len() as u64).saturating_sub(made + failed + stale_rows);
}

fn country_only_bands(created: &[Created]) -> Vec<i64> {
    created
        .iter()
        .filter(|c| c.geocode_status == GeocodeStatus::CountryOnly)
        .map(|c| c.ma_id)
        .collect()
}
