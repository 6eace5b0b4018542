//! `GET /metrics` (issue 14 item 2): after real traffic and seeded database state, the
//! private listener answers the Prometheus text format, a Prometheus text parser reads it,
//! and the families hold the values the activity implies: requests and latency per route
//! pattern (never the raw path), the map index size, `band_locations` per status, heartbeat
//! age per service, LLM totals per model, crawl runs and the progress of a running one.
//!
//! One test function: the recorder and its gauges are process-wide, and the database
//! gauges describe one database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::spawn_app;
use prometheus_parse::{Sample, Scrape, Value};
use tokio_util::sync::CancellationToken;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year, lat, lon) VALUES
 (1, 'Alpha', 'Black Metal', 'Norway', 'NO', 'Active', 1991, 59.91, 10.75),
 (2, 'Beta', 'Death Metal', 'Sweden', 'SE', 'Split-up', 1988, 59.33, 18.07),
 (3, 'Gamma', 'Heavy/Power Metal', 'France', 'FR', 'Active', 2005, 48.86, 2.35);
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) VALUES
 (11, 1, 0, 0, 'origin', 'Oslo', 59.91, 10.75, 'done'),
 (12, 1, 1, 1, 'later', 'Stockholm', 59.33, 18.07, 'done'),
 (21, 2, 0, 0, NULL, 'Sweden', 59.33, 18.07, 'country_only'),
 (31, 3, 0, 0, 'origin', 'Paris', 48.86, 2.35, 'done'),
 (32, 3, 1, 1, 'later', 'Berlin', NULL, NULL, 'pending'),
 (33, 3, 2, 2, 'last', 'Madrid', NULL, NULL, 'error'),
 (34, 3, 3, 3, NULL, 'Somewhere odd', NULL, NULL, 'llm_needed');
INSERT INTO service_health (service, state, checks, instance, last_write_at) VALUES
 ('geocoder', 'ok', '{}', 'host:1', now() - interval '10 minutes'),
 ('llm', 'degraded', '{}', 'host:2', now() - interval '1 minute');
INSERT INTO llm_cache (key, model, prompt, response, prompt_tokens, completion_tokens, cost_usd)
VALUES ('k1', 'model-a', 'p', 'r', 100, 20, 0.25),
       ('k2', 'model-a', 'p', 'r', 50, 10, 0.5);
INSERT INTO crawl_run (type, status, finished_at, stats) VALUES
 ('incremental', 'success', now(), '{"bands_seen": 7}'),
 ('full_crawl', 'running', NULL, '{"bands_seen": 40, "countries_done": 2}');
"#;

fn find<'a>(scrape: &'a Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<&'a Sample> {
    scrape
        .samples
        .iter()
        .find(|s| s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
}

fn number(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> f64 {
    match find(scrape, metric, labels).map(|s| &s.value) {
        Some(Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v)) => *v,
        other => {
            let present: Vec<String> = scrape
                .samples
                .iter()
                .filter(|s| s.metric == metric)
                .map(|s| format!("{:?}", s.labels))
                .collect();
            panic!("{metric} {labels:?}: no number sample (got {other:?}); present: {present:#?}")
        }
    }
}

#[tokio::test]
async fn metrics_after_activity() {
    bandmap_metrics::install().unwrap();
    let app = spawn_app().await;
    sqlx::raw_sql(SEED).execute(&app.db.pool).await.unwrap();
    app.state.read.map.reload(&app.state.pool).await.unwrap();
    let points = app.state.read.map.current().len();
    assert_eq!(points, 4, "the seed has four located rows");

    for query in ["?zoom=3", "?zoom=5", "?zoom=3&country=NO"] {
        let r = app
            .client
            .get(app.url(&format!("/api/clusters{query}")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{query}");
    }
    assert_eq!(
        app.client
            .get(app.url("/api/bands/1"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        app.client
            .get(app.url("/api/bands/424242"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(
        app.client
            .get(app.url("/no/such/secret-path"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(bandmap_metrics::serve(
        listener,
        app.db.pool.clone(),
        stop.clone(),
    ));
    let _stop = stop.drop_guard();

    let res = reqwest::get(format!("http://{addr}/metrics"))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()["content-type"],
        bandmap_metrics::endpoint::CONTENT_TYPE
    );
    let text = res.text().await.unwrap();
    let scrape = Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap();

    // Requests per route pattern, with method and status; the raw paths never appear.
    let clusters = [
        ("method", "GET"),
        ("route", "/api/clusters"),
        ("status", "200"),
    ];
    assert!(number(&scrape, "bandmap_http_requests_total", &clusters) >= 3.0);
    let card = [("route", "/api/bands/:ma_id"), ("status", "200")];
    assert!(number(&scrape, "bandmap_http_requests_total", &card) >= 1.0);
    let missing_card = [("route", "/api/bands/:ma_id"), ("status", "404")];
    assert!(number(&scrape, "bandmap_http_requests_total", &missing_card) >= 1.0);
    let unmatched = [("route", "unmatched"), ("status", "404")];
    assert!(number(&scrape, "bandmap_http_requests_total", &unmatched) >= 1.0);
    assert!(!text.contains("secret-path"), "a raw path became a label");
    assert!(!text.contains("424242"), "a raw path became a label");
    for s in scrape
        .samples
        .iter()
        .filter(|s| s.labels.get("route").is_some())
    {
        let route = s.labels.get("route").unwrap();
        assert!(route == "unmatched" || route.starts_with('/'), "{route}");
    }

    // Latency histogram per route: buckets up to +Inf, count matches the requests.
    let hist = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == "bandmap_http_request_duration_seconds"
                && s.labels.get("route") == Some("/api/clusters")
        })
        .expect("a latency histogram for /api/clusters");
    let Value::Histogram(buckets) = &hist.value else {
        panic!("not a histogram: {:?}", hist.value)
    };
    let inf = buckets.iter().find(|b| b.less_than.is_infinite()).unwrap();
    assert!(inf.count >= 3.0);
    let count = number(
        &scrape,
        "bandmap_http_request_duration_seconds_count",
        &[("route", "/api/clusters")],
    );
    assert_eq!(count, inf.count);

    // The map index.
    assert_eq!(
        number(&scrape, "bandmap_map_index_points", &[]),
        points as f64
    );
    assert!(
        number(
            &scrape,
            "bandmap_map_index_rebuild_duration_seconds_count",
            &[]
        ) >= 1.0
    );

    // Database gauges.
    assert_eq!(number(&scrape, "bandmap_bands", &[]), 3.0);
    for (status, n) in [
        ("done", 3.0),
        ("country_only", 1.0),
        ("pending", 1.0),
        ("error", 1.0),
        ("llm_needed", 1.0),
        ("processing", 0.0),
        ("manual", 0.0),
    ] {
        assert_eq!(
            number(&scrape, "bandmap_band_locations", &[("status", status)]),
            n,
            "{status}"
        );
    }
    let geocoder_age = number(
        &scrape,
        "bandmap_heartbeat_age_seconds",
        &[("service", "geocoder")],
    );
    assert!((590.0..1200.0).contains(&geocoder_age), "{geocoder_age}");
    assert_eq!(
        number(&scrape, "bandmap_heartbeat_degraded", &[("service", "llm")]),
        1.0
    );
    assert_eq!(
        number(
            &scrape,
            "bandmap_heartbeat_degraded",
            &[("service", "geocoder")]
        ),
        0.0
    );
    assert_eq!(
        number(
            &scrape,
            "bandmap_llm_recorded_calls",
            &[("model", "model-a")]
        ),
        2.0
    );
    assert_eq!(
        number(
            &scrape,
            "bandmap_llm_recorded_tokens",
            &[("model", "model-a"), ("kind", "prompt")]
        ),
        150.0
    );
    assert_eq!(
        number(
            &scrape,
            "bandmap_llm_recorded_tokens",
            &[("model", "model-a"), ("kind", "completion")]
        ),
        30.0
    );
    assert_eq!(
        number(
            &scrape,
            "bandmap_llm_recorded_cost_usd",
            &[("model", "model-a")]
        ),
        0.75
    );
    let runs = |t: &str, s: &str| {
        number(
            &scrape,
            "bandmap_crawl_runs",
            &[("job_type", t), ("status", s)],
        )
    };
    assert_eq!(runs("incremental", "success"), 1.0);
    assert_eq!(runs("full_crawl", "running"), 1.0);
    assert_eq!(runs("enrich", "error"), 0.0);
    let progress = |c: &str| {
        number(
            &scrape,
            "bandmap_crawl_run_progress",
            &[("job_type", "full_crawl"), ("counter", c)],
        )
    };
    assert_eq!(progress("bands_seen"), 40.0);
    assert_eq!(progress("countries_done"), 2.0);
    assert!(
        find(
            &scrape,
            "bandmap_crawl_run_progress",
            &[("job_type", "incremental")]
        )
        .is_none(),
        "a finished run shows no progress"
    );

    // Every family has its HELP text.
    for family in [
        "bandmap_http_requests_total",
        "bandmap_band_locations",
        "bandmap_heartbeat_age_seconds",
        "bandmap_map_index_points",
    ] {
        assert!(scrape.docs.contains_key(family), "no HELP for {family}");
    }

    // The listener serves nothing else.
    let other = reqwest::get(format!("http://{addr}/api/clusters"))
        .await
        .unwrap();
    assert_eq!(other.status(), 404);
}
