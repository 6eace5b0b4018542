//! One scan (rules 11, 12): a `crawl_run` of type `geocoder_enqueue` that reads the bands
//! without rows in `ma_id` order, plans their rows off the async threads, inserts each
//! batch in one statement, and records honest counts.
//!
//! Failures of single bands never end the scan: when a batch insert fails with a database
//! error, the batch is retried band by band, each failing band's rows are rolled back,
//! counted in `failed` and logged with the band and the error, and the scan goes on.
//! A band whose location text or country changed between reading and inserting gets no
//! row and is counted in `skipped` (reason `Changed`): the next scan reads it again. A lost connection ends the
//! run as `error`: the job itself cannot continue.

use crate::error::EnqueueError;
use crate::insert::{self, Progress};
use crate::names::SharedNames;
use crate::plan::{Plan, SkipReason, plan, plan_with};
use crate::report::ScanReport;
use bandmap_db::band_locations::enqueue::{NewLocation, bands_without_rows};
use bandmap_db::runs::{self, End, JobType, Level, Run};
use sqlx::PgPool;
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;
use tracing::instrument;

/// Bands read per page (and planned and inserted per batch).
pub const BATCH_SIZE: i64 = 5_000;

/// How many band ids a skip line lists.
const SKIP_SAMPLE: usize = 20;

/// Runs one scan, recorded as a `crawl_run` of type `geocoder_enqueue` (attached to
/// `trigger_id` when an admin trigger started it). Returns its counts; an `Err` means the
/// scan could not continue, and the run (if it could be opened) was closed as `error`.
pub async fn run_once(pool: &PgPool, trigger_id: Option<i64>) -> Result<ScanReport, EnqueueError> {
    run_scan(pool, trigger_id, None, None, None).await
}

/// [`run_once`] with the run recorded as `owner`'s (the daemon's instance lock, so other
/// replicas' start recovery leaves it alone), that also stops between batches when
/// `shutdown` fires, and plans with the gazetteer's place `names` when given.
#[instrument(skip_all, fields(trigger_id))]
pub(crate) async fn run_scan(
    pool: &PgPool,
    trigger_id: Option<i64>,
    owner: Option<&runs::Owner>,
    shutdown: Option<&CancellationToken>,
    names: Option<&SharedNames>,
) -> Result<ScanReport, EnqueueError> {
    let run = Run::start(pool, JobType::GeocoderEnqueue, trigger_id, owner).await?;
    let run_id = run.id();
    let mut report = ScanReport {
        run_id,
        ..ScanReport::default()
    };
    let scanned = scan(&run, shutdown, names, &mut report).await;
    report.stopped_early = !matches!(scanned, Ok(End::Done));
    let end = match &scanned {
        Ok(end) => end.clone(),
        Err(e) => {
            tracing::error!(run_id, error = %e, "enqueue scan failed");
            End::Failed(e.to_string())
        }
    };
    let closed = run.close(&end, &report.stats(), &report.summary()).await;
    match (scanned, closed) {
        (Ok(_), Ok(_)) => Ok(report),
        (Ok(_), Err(e)) => Err(e.into()),
        (Err(e), closed) => {
            if let Err(fin) = closed {
                tracing::warn!(run_id, error = %fin, "run not closed; start recovery will close it");
            }
            Err(e)
        }
    }
}

/// The scan body: pages of bands until none is left or the scan must stop.
async fn scan(
    run: &Run,
    shutdown: Option<&CancellationToken>,
    names: Option<&SharedNames>,
    report: &mut ScanReport,
) -> Result<End, EnqueueError> {
    let (pool, run_id) = (run.pool(), run.id());
    let origin = match run.trigger() {
        Some(t) => format!("manual, trigger {t}"),
        None => "automatic".to_owned(),
    };
    run.log(Level::Info, &format!("enqueue scan started ({origin})"))
        .await?;
    let mut progress = Progress::default();
    let mut skipped: BTreeMap<SkipReason, Vec<i64>> = BTreeMap::new();
    // Pipelined: while page n is inserted, page n+1 is read and planned on another
    // connection (keyset paging makes page n+1 independent of page n's rows).
    let mut next = read_and_plan(pool, i64::MIN, names).await?;
    let end = loop {
        if let Some(end) = should_stop(run, shutdown).await? {
            break end;
        }
        let Some(page) = next.take() else {
            break End::Done;
        };
        report.bands += page.bands;
        merge_skips(&mut skipped, page.skipped);
        let (inserted, following) = tokio::join!(
            insert::batch(pool, run_id, &page.rows, report, &mut progress),
            read_and_plan(pool, page.last_ma_id, names),
        );
        merge_skips(
            &mut skipped,
            inserted?.into_iter().map(|id| (SkipReason::Changed, id)),
        );
        next = following?;
        report.skipped = skipped.values().map(|v| v.len() as u64).sum();
        run.write_stats(&report.stats()).await?;
    };
    report.skipped = skipped.values().map(|v| v.len() as u64).sum();
    log_skips(run, &skipped).await?;
    insert::log_unlisted_failures(pool, run_id, &progress).await?;
    if report.existing > 0 {
        let line = format!(
            "{} planned rows already existed (created by another scan meanwhile)",
            report.existing
        );
        run.log(Level::Info, &line).await?;
    }
    Ok(end)
}

/// Shutdown, a cancel request, or a run closed by cleanup stop the scan between batches.
async fn should_stop(
    run: &Run,
    shutdown: Option<&CancellationToken>,
) -> Result<Option<End>, EnqueueError> {
    if shutdown.is_some_and(CancellationToken::is_cancelled) {
        return Ok(Some(End::Shutdown));
    }
    Ok(run.check().await?)
}

/// A page of bands, planned.
struct Page {
    bands: u64,
    last_ma_id: i64,
    rows: Vec<NewLocation>,
    skipped: Vec<(SkipReason, i64)>,
}

/// Reads the page after `after` and plans it on the blocking pool (parsing is CPU work).
/// `None` when no band is left.
async fn read_and_plan(
    pool: &PgPool,
    after: i64,
    names: Option<&SharedNames>,
) -> Result<Option<Page>, EnqueueError> {
    let bands = bands_without_rows(pool, after, BATCH_SIZE).await?;
    let Some(last_ma_id) = bands.last().map(|b| b.ma_id) else {
        return Ok(None);
    };
    let known = names.cloned();
    let page = tokio::task::spawn_blocking(move || {
        let mut rows = Vec::with_capacity(bands.len() * 2);
        let mut skipped = Vec::new();
        for b in &bands {
            let planned = match known.as_deref() {
                Some(n) => plan_with(b, n),
                None => plan(b),
            };
            match planned {
                Plan::Rows(r) => rows.extend(r),
                Plan::Skip(reason) => skipped.push((reason, b.ma_id)),
            }
        }
        Page {
            bands: bands.len() as u64,
            last_ma_id,
            rows,
            skipped,
        }
    })
    .await?;
    Ok(Some(page))
}

fn merge_skips(
    all: &mut BTreeMap<SkipReason, Vec<i64>>,
    page: impl IntoIterator<Item = (SkipReason, i64)>,
) {
    for (reason, ma_id) in page {
        all.entry(reason).or_default().push(ma_id);
    }
}

/// One log line per skip reason, with the count and the first band ids.
async fn log_skips(
    run: &Run,
    skipped: &BTreeMap<SkipReason, Vec<i64>>,
) -> Result<(), EnqueueError> {
    let run_id = run.id();
    for (reason, ids) in skipped {
        let sample: Vec<String> = ids.iter().take(SKIP_SAMPLE).map(i64::to_string).collect();
        let more = if ids.len() > SKIP_SAMPLE { ", …" } else { "" };
        let line = format!(
            "skipped {} bands: {reason} (ma_id {}{more})",
            ids.len(),
            sample.join(", ")
        );
        tracing::info!(run_id, skipped = ids.len(), %reason, "bands skipped");
        run.log(Level::Info, &line).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
