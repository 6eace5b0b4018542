//! Enrichment: for each queued band (rule 2, priority order), the band page and the
//! discography — at most two requests per band, the politeness delay after each, failed or
//! not (rule 5). The structured page is stored with the band-page fields applied through
//! the one upsert path (locks and conflicts). A failing band is counted (`failed=`), logged
//! and skipped for the rest of the run; the run goes on. Its failure is recorded with a
//! backoff (`enrich_failures`, doubling per consecutive failure): until then the queue
//! skips it, so bands that always fail step aside for the others. Success clears it.

use crate::error::{ItemError, JobError};
use crate::job::RunCtl;
use crate::upstream_time::parse_page_time;
use bandmap_db::bands::enrich::{
    Enrichment, QueuedBand, claim_batch, listed_text, record_failure, release_claims,
    store_read_after,
};
use bandmap_db::bands::upsert::BandInput;
use bandmap_db::runs::End;
use bandmap_db::runs::Level;
use bandmap_upstream::parse::{BandPage, Release, parse_band_page, parse_discography};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Bands selected per batch (the cancel flag is read between batches and every 10 bands).
pub const BATCH: usize = 50;

/// Runs the enrichment over the queue, at most `max_bands` bands (None: until the queue is
/// empty; each band is tried at most once per run).
/// The bands are claimed per batch (several replicas never enrich the same band); the
/// run's claims are released when it ends, however it ends.
pub async fn run(ctl: &mut RunCtl<'_>, max_bands: Option<usize>) -> Result<End, JobError> {
    let outcome = run_claimed(ctl, max_bands).await;
    if let Err(e) = release_claims(&ctl.crawler.pool, ctl.run_id()).await {
        tracing::warn!(run_id = ctl.run_id(), error = %e, "enrichment claims not released (they expire)");
    }
    outcome
}

async fn run_claimed(ctl: &mut RunCtl<'_>, max_bands: Option<usize>) -> Result<End, JobError> {
    let mut tried: Vec<i64> = Vec::new();
    loop {
        let left = max_bands.map_or(BATCH, |m| m.saturating_sub(tried.len()).min(BATCH));
        if left == 0 {
            break;
        }
        let batch = claim_batch(&ctl.crawler.pool, ctl.run_id(), left as i64, &tried).await?;
        if batch.is_empty() {
            break;
        }
        for band in batch {
            tried.push(band.ma_id);
            enrich_counted(ctl, &band).await?;
            if ctl.stats.bands_seen.get().is_multiple_of(10)
                && let Some(flow) = ctl.checkpoint().await?
            {
                return Ok(flow);
            }
        }
        if let Some(flow) = ctl.checkpoint().await? {
            return Ok(flow);
        }
    }
    Ok(End::Done)
}

async fn enrich_counted(ctl: &mut RunCtl<'_>, band: &QueuedBand) -> Result<(), JobError> {
    ctl.stats.bands_seen.add(1);
    match enrich_one(ctl, band.ma_id).await {
        Ok(changed) => {
            ctl.stats.enriched.add(1);
            if changed {
                ctl.stats.updated.add(1);
            } else {
                ctl.stats.unchanged.add(1);
            }
        }
        Err(e) => {
            let e = e.fatal()?;
            ctl.stats.failed.add(1);
            let message = e.to_string();
            let retry = match record_failure(&ctl.crawler.pool, band.ma_id, &message).await? {
                Some(f) => format!("attempt {}, next try after {}", f.attempts, f.next_at),
                None => "band gone".to_string(),
            };
            ctl.log(
                Level::Warn,
                &format!(
                    "band {} ({}): failed=1 {message} ({retry})",
                    band.ma_id, band.name
                ),
            )
            .await?;
        }
    }
    Ok(())
}

/// Fetches, parses and stores one band; true when a stored value changed.
async fn enrich_one(ctl: &RunCtl<'_>, ma_id: i64) -> Result<bool, ItemError> {
    let c = ctl.crawler;
    let url = c.urls.band_page(ma_id);
    // Rule 4: an edit listed while the page is read must not be cleared by this store.
    let listed_before = listed_text(&c.pool, ma_id).await?;
    let html = c.fetch_html(&url).await?;
    let page = parse_band_page(&html).map_err(|e| e.at(&url))?;
    if page.ma_id != ma_id {
        return Err(ItemError::WrongBand {
            url,
            wanted: ma_id,
            found: page.ma_id,
        });
    }
    let disco_url = c.urls.discography(ma_id);
    let disco = c.fetch_html(&disco_url).await?;
    let releases = parse_discography(&disco).map_err(|e| e.at(&disco_url))?;
    let enrichment = enrichment(&page, &releases);
    let report = store_read_after(&c.pool, &enrichment, listed_before.as_deref()).await?;
    Ok(report.updated > 0)
}

/// What is stored for a parsed page (pure).
pub fn enrichment(page: &BandPage, releases: &[Release]) -> Enrichment {
    let band_page = band_page_json(page, releases);
    let crawled_hash = hex::encode(Sha256::digest(band_page.to_string().as_bytes()));
    Enrichment {
        fields: BandInput {
            ma_id: page.ma_id,
            name: page.name.clone(),
            country: page.country_name.clone(),
            country_code: page.country_code.clone(),
            location_text: page.location.clone(),
            genre: page.genre.clone(),
            themes: page.themes.clone(),
            status: page.status.clone(),
            formed_year: page.formed_year,
            label: page.label.clone(),
            url: (!page.url.is_empty()).then(|| page.url.clone()),
        },
        band_page,
        crawled_hash,
        modified_text: page.last_modified_text.clone(),
        modified_at: page.last_modified_text.as_deref().and_then(parse_page_time),
        created_at: page.added_on.as_deref().and_then(parse_page_time),
    }
}

/// `bands.band_page`: everything the page says beyond the catalogue columns. No fetch time
/// inside, so an unchanged page gives the same JSON and hash (rule 3).
pub fn band_page_json(page: &BandPage, releases: &[Release]) -> Value {
    let lineup: Vec<Value> = page
        .lineup
        .iter()
        .map(|m| {
            json!({"section": m.section, "name": m.name, "artist_url": m.artist_url,
                   "artist_id": m.artist_id, "role": m.role})
        })
        .collect();
    let releases: Vec<Value> = releases
        .iter()
        .map(|r| {
            json!({"id": r.id, "title": r.title, "url": r.url, "type": r.kind,
                   "year": r.year, "reviews": r.reviews})
        })
        .collect();
    json!({
        "url": page.url,
        "name": page.name,
        "country": page.country_name,
        "country_code": page.country_code,
        "location": page.location,
        "status": page.status,
        "formed_year": page.formed_year,
        "genre": page.genre,
        "lyrical_themes": page.themes,
        "label": page.label,
        "label_url": page.label_url,
        "years_active": page.years_active,
        "lineup": lineup,
        "discography_url": page.discography_url,
        "releases": releases,
        "info_raw": page.info_raw,
        "added_on": page.added_on,
        "last_modified_text": page.last_modified_text,
    })
}
