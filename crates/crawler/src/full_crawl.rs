//! The full crawl: every European country's browse list (data: `bandmap_location::countries`,
//! `european = true`, pseudo countries excluded), all pages of 500, a pause between
//! countries, progress in the run's statistics every 10 bands (rule 8). A country whose
//! listing stays unreadable after the client's retries is logged and counted, the crawl goes
//! on with the next country, and the run ends `error` naming those countries without
//! setting `last_full_crawl_at` (so the next 03:00 tick tries again). A complete crawl sets
//! `last_full_crawl_at` to its start time.

use crate::error::{ItemError, JobError};
use crate::job::RunCtl;
use crate::schedule::format_checkpoint;
use crate::write::{non_empty, upsert_in_chunks};
use bandmap_db::bands::upsert::BandInput;
use bandmap_db::checkpoints::{self, LAST_FULL_CRAWL_AT};
use bandmap_db::runs::End;
use bandmap_db::runs::Level;
use bandmap_location::countries::{self, Country};
use bandmap_upstream::parse::{CountryPage, ListedBand, parse_country_page};
use bandmap_upstream::url::COUNTRY_PAGE_SIZE;

/// The countries a full crawl reads, in table order.
pub fn european_countries() -> Vec<&'static Country> {
    countries::all()
        .iter()
        .filter(|c| c.european && !c.is_pseudo())
        .collect()
}

/// Runs the full crawl.
pub async fn run(ctl: &mut RunCtl<'_>) -> Result<End, JobError> {
    let started = ctl.crawler.clock.now();
    let list = european_countries();
    ctl.stats.countries_total.set(list.len() as u64);
    let mut unreadable = Vec::new();
    for (i, country) in list.iter().enumerate() {
        if i > 0 {
            ctl.crawler
                .country_pause()
                .await
                .map_err(|_| JobError::Shutdown)?;
        }
        ctl.stats.country_index.set(i as u64 + 1);
        ctl.stats.country_code = Some(country.code.to_string());
        match crawl_country(ctl, country).await? {
            CountryEnd::Stop(flow) => return Ok(flow),
            CountryEnd::Unreadable(msg) => {
                ctl.stats.failed.add(1);
                ctl.log(
                    Level::Error,
                    &format!("country {}: failed=1 {msg}", country.code),
                )
                .await?;
                unreadable.push(country.code);
            }
            CountryEnd::Done(n) => {
                ctl.stats.countries_done.add(1);
                ctl.log(
                    Level::Info,
                    &format!(
                        "country {} ({}/{}): {n} bands",
                        country.code,
                        i + 1,
                        list.len()
                    ),
                )
                .await?;
            }
        }
    }
    if !unreadable.is_empty() {
        return Err(JobError::Listing(format!(
            "{} country listing(s) unreadable: {}",
            unreadable.len(),
            unreadable.join(", ")
        )));
    }
    checkpoints::set(
        &ctl.crawler.pool,
        LAST_FULL_CRAWL_AT,
        &format_checkpoint(started),
    )
    .await?;
    Ok(End::Done)
}

enum CountryEnd {
    Done(u64),
    Unreadable(String),
    Stop(End),
}

async fn crawl_country(ctl: &mut RunCtl<'_>, country: &Country) -> Result<CountryEnd, JobError> {
    let mut offset = 0;
    let mut seen = 0;
    loop {
        let url = ctl.crawler.urls.country_page(country.code, offset);
        let page = match fetch_page(ctl, &url).await {
            Ok(p) => p,
            Err(e) => return Ok(CountryEnd::Unreadable(e.fatal()?.to_string())),
        };
        ctl.stats.pages.add(1);
        ctl.stats.rows_skipped.add(page.skipped as u64);
        let inputs: Vec<BandInput> = page.rows.iter().map(|r| input(r, country)).collect();
        seen += inputs.len() as u64;
        if let Some(flow) = upsert_in_chunks(ctl, &inputs).await? {
            return Ok(CountryEnd::Stop(flow));
        }
        // A page without rows is a batch too: the cancel flag is read at each one.
        if inputs.is_empty()
            && let Some(flow) = ctl.checkpoint().await?
        {
            return Ok(CountryEnd::Stop(flow));
        }
        offset += COUNTRY_PAGE_SIZE;
        if page.rows.is_empty() || offset >= page.total {
            return Ok(CountryEnd::Done(seen));
        }
    }
}

async fn fetch_page(ctl: &RunCtl<'_>, url: &str) -> Result<CountryPage, ItemError> {
    let json = ctl.crawler.fetch_json(url).await?;
    Ok(parse_country_page(&json).map_err(|e| e.at(url))?)
}

fn input(row: &ListedBand, country: &Country) -> BandInput {
    BandInput {
        ma_id: row.ma_id,
        name: row.name.clone(),
        country: Some(country.name.to_string()),
        country_code: Some(country.code.to_string()),
        location_text: non_empty(&row.location),
        genre: non_empty(&row.genre),
        status: non_empty(&row.status),
        url: non_empty(&row.url),
        ..BandInput::default()
    }
}
