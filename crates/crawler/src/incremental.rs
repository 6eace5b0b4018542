//! The incremental crawl: upstream's "recently added" and "recently modified" lists for
//! each month from the checkpoint `last_created_check` to now. The lists are newest first,
//! so paging stops at the first page that reaches rows older than the checkpoint (less a
//! day, as upstream writes its times without a zone); without a checkpoint every page of
//! the current month is read. Only European bands are kept (SPEC §3). Modified rows also
//! feed rule 4 (`record_modified`). Every page is a batch: the cancel flag is read after
//! each, European rows or not (rule 10). The checkpoint advances to the run's start time
//! only after the whole run succeeded.

use crate::error::{ItemError, JobError};
use crate::job::RunCtl;
use crate::schedule::{format_checkpoint, months_since, parse_checkpoint};
use crate::upstream_time::parse_change_time;
use crate::write::{non_empty, upsert_in_chunks};
use bandmap_db::bands::enrich::{
    MODIFIED_ZONE_MARGIN_HOURS, ModifiedSeen, record_created, record_modified,
};
use bandmap_db::bands::upsert::BandInput;
use bandmap_db::checkpoints::{self, LAST_CREATED_CHECK};
use bandmap_db::runs::End;
use bandmap_db::runs::Level;
use bandmap_location::countries;
use bandmap_upstream::ChangeKind;
use bandmap_upstream::parse::{ChangedBand, parse_change_page};
use bandmap_upstream::url::CHANGES_PAGE_SIZE;
use chrono::{DateTime, Duration, Utc};

/// Runs the incremental crawl.
pub async fn run(ctl: &mut RunCtl<'_>) -> Result<End, JobError> {
    let started = ctl.crawler.clock.now();
    let stored = checkpoints::get(&ctl.crawler.pool, LAST_CREATED_CHECK).await?;
    let cutoff = stored
        .as_deref()
        .and_then(parse_checkpoint)
        .map(|at| at - Duration::hours(i64::from(MODIFIED_ZONE_MARGIN_HOURS)));
    let months = months_since(cutoff, started);
    let names: Vec<String> = months
        .iter()
        .map(|(y, m)| format!("{y:04}-{m:02}"))
        .collect();
    ctl.stats.months = Some(names.clone());
    ctl.log(
        Level::Info,
        &format!(
            "months {} (checkpoint {})",
            names.join(", "),
            stored.as_deref().unwrap_or("none")
        ),
    )
    .await?;
    for (year, month) in months {
        for kind in [ChangeKind::Created, ChangeKind::Modified] {
            if let Some(flow) = crawl_list(ctl, (year, month), kind, cutoff).await? {
                return Ok(flow);
            }
        }
    }
    checkpoints::set(
        &ctl.crawler.pool,
        LAST_CREATED_CHECK,
        &format_checkpoint(started),
    )
    .await?;
    Ok(End::Done)
}

/// The pages of one month's list down to `cutoff` (all of them without one).
async fn crawl_list(
    ctl: &mut RunCtl<'_>,
    (year, month): (i32, u32),
    kind: ChangeKind,
    cutoff: Option<DateTime<Utc>>,
) -> Result<Option<End>, JobError> {
    let mut offset = 0;
    loop {
        let url = ctl.crawler.urls.changes_page(year, month, kind, offset);
        let page = match fetch_page(ctl, &url).await {
            Ok(p) => p,
            Err(e) => return Err(JobError::Listing(e.fatal()?.to_string())),
        };
        ctl.stats.pages.add(1);
        ctl.stats.rows_skipped.add(page.skipped as u64);
        let (keep, dropped): (Vec<&ChangedBand>, Vec<&ChangedBand>) =
            page.rows.iter().partition(|r| is_european(r));
        ctl.stats.non_european_skipped.add(dropped.len() as u64);
        let inputs: Vec<BandInput> = keep.iter().map(|r| input(r)).collect();
        if let Some(flow) = upsert_in_chunks(ctl, &inputs).await? {
            return Ok(Some(flow));
        }
        record_times(ctl, &keep, year, kind).await?;
        // A page without European rows wrote no chunk, so no checkpoint ran yet.
        if inputs.is_empty()
            && let Some(flow) = ctl.checkpoint().await?
        {
            return Ok(Some(flow));
        }
        offset += CHANGES_PAGE_SIZE;
        if page.rows.is_empty() || offset >= page.total || reaches(&page.rows, year, cutoff) {
            return Ok(None);
        }
    }
}

/// Whether a page (newest first) reaches rows older than `cutoff`: the next pages hold
/// only older changes, already read by an earlier run.
fn reaches(rows: &[ChangedBand], year: i32, cutoff: Option<DateTime<Utc>>) -> bool {
    let Some(cutoff) = cutoff else {
        return false;
    };
    rows.iter()
        .filter_map(|r| parse_change_time(&r.changed_at_text, year))
        .any(|at| at < cutoff)
}

async fn fetch_page(
    ctl: &RunCtl<'_>,
    url: &str,
) -> Result<bandmap_upstream::parse::ChangePage, ItemError> {
    let json = ctl.crawler.fetch_json(url).await?;
    Ok(parse_change_page(&json).map_err(|e| e.at(url))?)
}

/// Rule 4 and `ma_created_at` from the rows' times.
async fn record_times(
    ctl: &mut RunCtl<'_>,
    rows: &[&ChangedBand],
    year: i32,
    kind: ChangeKind,
) -> Result<(), JobError> {
    let pool = &ctl.crawler.pool;
    match kind {
        ChangeKind::Created => {
            let seen: Vec<_> = rows
                .iter()
                .filter_map(|r| Some((r.ma_id, parse_change_time(&r.changed_at_text, year)?)))
                .collect();
            record_created(pool, &seen).await?;
        }
        ChangeKind::Modified => {
            let seen: Vec<ModifiedSeen> = rows
                .iter()
                .filter_map(|r| {
                    Some(ModifiedSeen {
                        ma_id: r.ma_id,
                        text: r.changed_at_text.clone(),
                        at: parse_change_time(&r.changed_at_text, year)?,
                    })
                })
                .collect();
            let raised = record_modified(pool, &seen).await?;
            ctl.stats.enrich_pending_raised.add(raised);
        }
    }
    Ok(())
}

/// European by the row's country code, else by its country name.
fn is_european(row: &ChangedBand) -> bool {
    match &row.country_code {
        Some(code) => countries::is_european(code),
        None => countries::is_european(&row.country_name),
    }
}

fn input(row: &ChangedBand) -> BandInput {
    BandInput {
        ma_id: row.ma_id,
        name: row.name.clone(),
        country: non_empty(&row.country_name),
        country_code: row.country_code.clone(),
        genre: non_empty(&row.genre),
        url: non_empty(&row.url),
        ..BandInput::default()
    }
}
