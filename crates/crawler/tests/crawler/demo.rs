//! The crawler on the offline demo recording (`UPSTREAM_MODE=recorded:demo/upstream`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_crawler::{JobKind, JobOptions, execute};
use bandmap_test_support::TestDb;

#[tokio::test]
async fn full_crawl_of_the_demo_fills_the_catalogue_with_european_bands_only() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let run = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success", "{run:?}");
    let n = count(&db.pool, "SELECT count(*) FROM bands").await;
    assert_eq!(n, 308);
    assert_eq!(run.stats.json()["bands_seen"], 308);
    assert_eq!(run.stats.json()["inserted"], 308);
    let countries: Vec<String> = sqlx::query_scalar("SELECT DISTINCT country_code FROM bands")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert!(
        countries
            .iter()
            .all(|cc| bandmap_location::countries::is_european(cc))
    );
    // One list request per country (each demo country fits one page of 500).
    let n_countries = bandmap_crawler::full_crawl::european_countries().len() as u64;
    assert_eq!(c.client().stats().requests, n_countries);
    assert_eq!(run.stats.json()["countries_total"], n_countries);
    assert_eq!(c.country_pauses(), n_countries - 1);
    assert_eq!(
        text(
            &db.pool,
            "SELECT value FROM crawl_checkpoint WHERE key = 'last_full_crawl_at'"
        )
        .await
        .as_deref(),
        Some("2026-11-22T02:00:00Z")
    );
    let url = text(
        &db.pool,
        "SELECT data->>'url' FROM bands WHERE ma_id = 3540001001",
    )
    .await;
    assert!(url.unwrap().ends_with("/3540001001"));
    // The changed catalogue is handed to the enqueue daemon: one pending trigger.
    let enqueue_triggers = "SELECT count(*) FROM job_triggers WHERE job_type = 'geocoder_enqueue' AND status = 'pending'";
    assert_eq!(count(&db.pool, enqueue_triggers).await, 1);

    // Rule 3: the same crawl again changes nothing, updated_at stays.
    sqlx::query("ALTER TABLE bands DISABLE TRIGGER bands_before_update")
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE bands SET updated_at = updated_at - interval '1 day'")
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query("ALTER TABLE bands ENABLE TRIGGER bands_before_update")
        .execute(&db.pool)
        .await
        .unwrap();
    let before = text(&db.pool, "SELECT max(updated_at)::text FROM bands").await;
    let run = execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success");
    assert_eq!(run.stats.json()["unchanged"], 308);
    assert_eq!(run.stats.json()["updated"], 0);
    // Nothing changed: no second trigger, the pending one is reused.
    assert_eq!(count(&db.pool, enqueue_triggers).await, 1);
    assert_eq!(
        text(&db.pool, "SELECT max(updated_at)::text FROM bands").await,
        before
    );
}

#[tokio::test]
async fn incremental_keeps_european_bands_and_advances_the_checkpoint() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success", "{run:?}");
    assert_eq!(run.stats.json()["months"], serde_json::json!(["2026-11"]));
    assert!(run.stats.json()["non_european_skipped"].as_u64().unwrap() >= 4);
    let codes: Vec<Option<String>> = sqlx::query_scalar("SELECT country_code FROM bands")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert!(!codes.is_empty());
    assert!(codes.iter().all(|cc| {
        cc.as_deref()
            .is_some_and(bandmap_location::countries::is_european)
    }));
    assert_eq!(
        text(
            &db.pool,
            "SELECT value FROM crawl_checkpoint WHERE key = 'last_created_check'"
        )
        .await
        .as_deref(),
        Some("2026-11-22T02:00:00Z")
    );
    // created and modified lists, one page each.
    assert_eq!(c.client().stats().requests, 2);
}

#[tokio::test]
async fn enrichment_stores_band_pages_with_two_requests_per_band_and_rule_4_raises_once() {
    let db = TestDb::new().await;
    let (c, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    execute(&c, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    let before = c.client().stats().requests;
    let run = execute(&c, JobKind::Enrich, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.status, "success", "{run:?}");
    assert_eq!(run.stats.json()["enriched"], 308);
    assert_eq!(run.stats.json()["failed"], 0);
    assert_eq!(
        c.client().stats().requests - before,
        616,
        "two requests per band"
    );
    assert_eq!(
        c.politeness_waits() - before,
        616,
        "a politeness wait after every request"
    );
    assert_eq!(
        count(
            &db.pool,
            "SELECT count(*) FROM bands WHERE NOT enriched OR crawled_hash IS NULL"
        )
        .await,
        0
    );
    assert_eq!(
        bandmap_db::bands::enrich::queue_counts(&db.pool)
            .await
            .unwrap()
            .total,
        0
    );
    let page: serde_json::Value =
        sqlx::query_scalar("SELECT band_page FROM bands WHERE ma_id = 3540001001")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert!(
        page["lineup"].is_array(),
        "demo pages carry no line-up; see solver tests"
    );
    assert!(page["releases"].is_array());
    assert!(page["discography_url"].is_string());
    assert!(page.get("lyrical_themes").is_some() && page.get("info_raw").is_some());
    // Rule 4 compares the modified list's text; the page's own text stays in band_page.
    assert_eq!(page["last_modified_text"], "2026-11-20 05:42:00");
    assert_eq!(
        count(
            &db.pool,
            "SELECT count(*) FROM bands WHERE ma_modified_text IS NOT NULL"
        )
        .await,
        0
    );

    // Rule 4: the modified list shows edits older than the pages just read: nothing raised,
    // the list's texts are recorded.
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.stats.json()["enrich_pending_raised"], 0);
    assert_eq!(
        text(
            &db.pool,
            "SELECT ma_modified_text FROM bands WHERE ma_id = 3540001001"
        )
        .await
        .as_deref(),
        Some("November 20th, 05:42")
    );
    // A band whose recorded text is another (an earlier edit) and whose page was read
    // before this edit: raised once, and only once.
    sqlx::query("UPDATE bands SET ma_modified_text = 'November 1st, 10:00', crawled_at = '2026-11-01T12:00:00Z' WHERE ma_id = 3540001001")
        .execute(&db.pool).await.unwrap();
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.stats.json()["enrich_pending_raised"], 1);
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM bands WHERE enrich_pending").await,
        1
    );
    assert_eq!(
        text(
            &db.pool,
            "SELECT ma_modified_text FROM bands WHERE ma_id = 3540001001"
        )
        .await
        .as_deref(),
        Some("November 20th, 05:42")
    );
    let run = execute(&c, JobKind::Incremental, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.stats.json()["enrich_pending_raised"], 0);
    let q = bandmap_db::bands::enrich::next_batch(&db.pool, 10, &[])
        .await
        .unwrap();
    assert_eq!(q.len(), 1);
    assert_eq!(
        q[0].priority,
        bandmap_db::bands::enrich::EnrichPriority::EnrichPending
    );
    // Enriching it clears the flag; the queue is empty again.
    let run = execute(&c, JobKind::Enrich, None, JobOptions::default())
        .await
        .unwrap();
    assert_eq!(run.stats.json()["enriched"], 1);
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM bands WHERE enrich_pending").await,
        0
    );
}

#[tokio::test]
async fn two_replicas_enriching_at_once_fetch_each_band_once() {
    let db = TestDb::new().await;
    let (a, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    let (b, _) = demo_crawler(&db.pool, "2026-11-22T02:00:00Z");
    execute(&a, JobKind::FullCrawl, None, JobOptions::default())
        .await
        .unwrap();
    let before = a.client().stats().requests;
    let (ra, rb) = tokio::join!(
        execute(&a, JobKind::Enrich, None, JobOptions::default()),
        execute(&b, JobKind::Enrich, None, JobOptions::default()),
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!(ra.status, "success", "{ra:?}");
    assert_eq!(rb.status, "success", "{rb:?}");
    let enriched =
        |r: &bandmap_crawler::RunOutcome| r.stats.json()["enriched"].as_u64().unwrap_or(0);
    assert_eq!(enriched(&ra) + enriched(&rb), 308, "{ra:?} {rb:?}");
    let requests = a.client().stats().requests - before + b.client().stats().requests;
    assert_eq!(requests, 616, "each band page and discography fetched once");
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM bands WHERE enriched").await,
        308
    );
    assert_eq!(
        count(&db.pool, "SELECT count(*) FROM enrich_claims").await,
        0
    );
}
