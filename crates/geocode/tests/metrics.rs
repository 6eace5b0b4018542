#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The geocoder's metrics (issue 14 item 2) after real work against PostgreSQL and the
//! loopback fake Geoapify: gazetteer hits and misses, cache hits and misses, every provider
//! request with its outcome (a retried 500 counts as one error and one success). One test
//! function: the recorder is process-wide.

#[path = "geocode/common/mod.rs"]
mod common;

use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_geocode::{Outcome, run_once};
use common::*;
use prometheus_parse::{Scrape, Value};

fn number(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> f64 {
    let found = scrape
        .samples
        .iter()
        .find(|s| s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)));
    match found.map(|s| &s.value) {
        Some(Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v)) => *v,
        other => panic!("{metric} {labels:?}: no number sample (got {other:?})"),
    }
}

#[tokio::test]
async fn lookups_and_provider_calls_are_counted() {
    bandmap_metrics::install().unwrap();
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.95);

    // No gazetteer: a cache miss, then one provider request.
    row(&db.pool, 1, 0, "Hamar", &[], "Norway", "NO").await;
    let plain = worker(&db.pool, &config(&geo), None);
    assert!(matches!(run_once(&plain).await, Outcome::Done { .. }));
    // The same place again through the resolver: a cache hit, no request.
    let again = plain
        .geocoder
        .resolve(&bandmap_geocode::PlaceQuery {
            city: "Hamar".into(),
            regions: vec![],
            country_code: Some("no".into()),
            country_name: None,
        })
        .await;
    assert!(matches!(again, bandmap_geocode::Resolution::Accepted(_)));
    assert_eq!(geo.call_count(), 1);

    // With the gazetteer: Bergen is found offline; Oslo is not, and its first provider
    // request fails with a 500 that the client retries.
    let offline = worker(&db.pool, &config(&geo), Some(tiny_gazetteer()));
    row(&db.pool, 2, 0, "Bergen", &["Vestland"], "Norway", "NO").await;
    assert!(matches!(run_once(&offline).await, Outcome::Done { .. }));
    assert_eq!(geo.call_count(), 1, "the gazetteer answered Bergen");
    geo.fail_next(500, 1);
    row(&db.pool, 3, 0, "Oslo", &[], "Norway", "NO").await;
    assert!(matches!(run_once(&offline).await, Outcome::Done { .. }));
    assert_eq!(geo.call_count(), 3);

    let text = bandmap_metrics::render();
    let scrape = Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap();
    let gaz = "bandmap_geocoder_gazetteer_lookups_total";
    assert_eq!(number(&scrape, gaz, &[("result", "hit")]), 1.0);
    assert_eq!(number(&scrape, gaz, &[("result", "miss")]), 1.0);
    let cache = "bandmap_geocoder_cache_lookups_total";
    assert_eq!(number(&scrape, cache, &[("result", "hit")]), 1.0);
    assert_eq!(number(&scrape, cache, &[("result", "miss")]), 2.0);
    let calls = "bandmap_geocoder_provider_calls_total";
    let geoapify = ("provider", "geoapify");
    assert_eq!(number(&scrape, calls, &[geoapify, ("outcome", "ok")]), 2.0);
    assert_eq!(
        number(&scrape, calls, &[geoapify, ("outcome", "transient_error")]),
        1.0
    );
    let errors = "bandmap_geocoder_provider_errors_total";
    assert_eq!(
        number(&scrape, errors, &[geoapify, ("kind", "transient")]),
        1.0
    );
}
