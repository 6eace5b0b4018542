#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The worker pipeline against a real PostgreSQL and the loopback fake Geoapify: tiers,
//! fallbacks, acceptance, cache, dedup, failures and their states.

use crate::common::*;
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_geocode::{Outcome, cache_key, run_once};
use serde_json::json;

#[tokio::test]
async fn fallbacks_go_from_most_to_least_specific_with_the_real_parameters() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    // Most specific: only a coarse answer; then nothing; then the city.
    geo.set_results(
        "Bergen, Vestland, Norway",
        vec![FakeGeoapify::result(
            "Vestland",
            60.9,
            6.5,
            "state",
            Some(1.0),
            "no",
        )],
    );
    geo.set_results("Bergen, Norway", vec![]);
    geo.set_results("Bergen", vec![city("Bergen", 60.39, 5.32, 0.9, "no")]);
    let id = row(&db.pool, 1, 0, "Bergen", &["Vestland"], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);

    let out = run_once(&w).await;
    assert!(matches!(out, Outcome::Done { dedup: false, .. }), "{out:?}");
    assert_eq!(
        geo.texts(),
        ["Bergen, Vestland, Norway", "Bergen, Norway", "Bergen"]
    );
    for call in geo.calls() {
        assert_eq!(call.filter(), Some("countrycode:no"));
        assert_eq!(call.params.get("lang").map(String::as_str), Some("en"));
        assert_eq!(call.params.get("limit").map(String::as_str), Some("5"));
        assert_eq!(call.params.get("format").map(String::as_str), Some("json"));
        assert_eq!(call.params.get("apiKey").map(String::as_str), Some(KEY));
    }
    let s = state(&db.pool, id).await;
    assert_eq!(s.geocode_status, "done");
    assert_eq!(s.provider.as_deref(), Some("geoapify"));
    assert_eq!(s.query.as_deref(), Some("Bergen"));
    assert_eq!(s.confidence, Some(0.9));
    assert_eq!(s.geocode_granularity.as_deref(), Some("city"));
    assert_eq!((s.lat, s.lon), (Some(60.39), Some(5.32)));
    assert_eq!(band_point(&db.pool, 1).await.2, Some(id));
}

#[tokio::test]
async fn a_cache_hit_reads_confidence_from_the_row_and_granularity_from_raw() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(1.0);
    let id = row(&db.pool, 1, 0, "Bergen", &["Vestland"], "Norway", "NO").await;
    let q = bandmap_geocode::PlaceQuery {
        city: "Bergen".into(),
        regions: vec!["Vestland".into()],
        country_code: Some("NO".into()),
        country_name: Some("Norway".into()),
    };
    let first = q.fallbacks().remove(0);
    // raw says confidence 1 and `suburb`; the row says 0.83 and a stale granularity.
    sqlx::query(
        "INSERT INTO geocode_cache (key, provider, query, raw, lat, lon, confidence, granularity)
         VALUES ($1, 'geoapify', $2, $3, 60.4, 5.3, 0.83, 'stale')",
    )
    .bind(cache_key("geoapify", &first))
    .bind(&first.text)
    .bind(json!({"result_type": "suburb", "rank": {"confidence": 1.0}, "lat": 60.4, "lon": 5.3}))
    .execute(&db.pool)
    .await
    .unwrap();
    let w = worker(&db.pool, &config(&geo), None);

    assert!(matches!(run_once(&w).await, Outcome::Done { .. }));
    assert_eq!(geo.call_count(), 0, "a cache hit makes no provider call");
    let s = state(&db.pool, id).await;
    assert_eq!(s.confidence, Some(0.83));
    assert_eq!(s.geocode_granularity.as_deref(), Some("suburb"));
    assert_eq!(s.query.as_deref(), Some("Bergen, Vestland, Norway"));
}

#[tokio::test]
async fn provider_answers_are_cached_and_reused() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.95);
    // Different raw text (so no dedup twin), same query text once parsed.
    let a = row(&db.pool, 1, 0, "Hamar", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);
    assert!(matches!(run_once(&w).await, Outcome::Done { .. }));
    let cached: (f64, String) =
        sqlx::query_as("SELECT confidence, granularity FROM geocode_cache WHERE key = $1")
            .bind("geoapify:hamar, norway|no")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(cached, (0.95, "city".to_string()));
    // The resolver alone (the LLM worker's path) now answers from the cache.
    let r = w
        .geocoder
        .resolve(&bandmap_geocode::PlaceQuery {
            city: "Hamar".into(),
            regions: vec![],
            country_code: Some("no".into()),
            country_name: None,
        })
        .await;
    assert!(
        matches!(r, bandmap_geocode::Resolution::Accepted(_)),
        "{r:?}"
    );
    assert_eq!(geo.call_count(), 1);
    assert_eq!(state(&db.pool, a).await.geocode_status, "done");
}

#[tokio::test]
async fn dedup_copies_a_done_twin_without_any_call() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let first = row(&db.pool, 1, 0, "Trondheim", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);
    assert!(matches!(
        run_once(&w).await,
        Outcome::Done { dedup: false, .. }
    ));
    assert_eq!(geo.call_count(), 1);

    // Same place, other case, other band.
    let second = row(&db.pool, 2, 0, "TRONDHEIM", &[], "Norway", "NO").await;
    let out = run_once(&w).await;
    assert!(matches!(out, Outcome::Done { dedup: true, .. }), "{out:?}");
    assert_eq!(geo.call_count(), 1, "dedup makes no provider call");
    let (a, b) = (state(&db.pool, first).await, state(&db.pool, second).await);
    assert_eq!(b.geocode_status, "done");
    assert_eq!(
        (a.lat, a.lon, a.provider, a.confidence),
        (b.lat, b.lon, b.provider, b.confidence)
    );
    assert_eq!(a.query, b.query);
    assert_eq!(band_point(&db.pool, 2).await.2, Some(second));
}

#[tokio::test]
async fn coarse_results_are_rejected_and_every_failed_fallback_means_llm_needed() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.set_default(std::sync::Arc::new(|_, cc| {
        vec![FakeGeoapify::result(
            "Somewhere",
            61.0,
            9.0,
            "state",
            Some(1.0),
            cc.unwrap_or("no"),
        )]
    }));
    let id = row(
        &db.pool,
        1,
        0,
        "Nowhereville",
        &["Innlandet"],
        "Norway",
        "NO",
    )
    .await;
    let w = worker(&db.pool, &config(&geo), None);

    let out = run_once(&w).await;
    assert_eq!(out, Outcome::LlmNeeded { id });
    assert_eq!(geo.call_count(), 3, "every fallback tried once");
    let s = state(&db.pool, id).await;
    assert_eq!(s.geocode_status, "llm_needed");
    assert_eq!(s.attempts, 1);
    assert!(s.lat.is_none());
    let err = s.error.unwrap();
    assert!(err.contains("too coarse (state)"), "{err}");
    assert!(err.contains("'Nowhereville, Innlandet, Norway'"), "{err}");
}

#[tokio::test]
async fn low_confidence_and_missing_confidence_are_not_accepted() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.set_results(
        "Lillehammer, Norway",
        vec![city("Lillehammer", 61.1, 10.5, 0.5, "no")],
    );
    geo.set_results(
        "Lillehammer",
        vec![FakeGeoapify::result(
            "Lillehammer",
            61.1,
            10.5,
            "city",
            None,
            "no",
        )],
    );
    let id = row(&db.pool, 1, 0, "Lillehammer", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);
    assert_eq!(run_once(&w).await, Outcome::LlmNeeded { id });
    let err = state(&db.pool, id).await.error.unwrap();
    assert!(err.contains("confidence 0.50 < 0.70"), "{err}");
    assert!(err.contains("no confidence given"), "{err}");
}

#[tokio::test]
async fn three_transient_failures_back_off_then_go_to_llm_needed() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.fail_always(Some(500));
    let id = row(&db.pool, 1, 0, "Bodø", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);

    assert_eq!(run_once(&w).await, Outcome::Failed { id, attempts: 1 });
    let s = state(&db.pool, id).await;
    assert_eq!(s.geocode_status, "pending");
    assert!(
        s.error.as_deref().unwrap().contains("geoapify HTTP 500"),
        "{:?}",
        s.error
    );
    assert!(
        (25.0..=31.0).contains(&s.due_in),
        "first backoff 30 s, got {}",
        s.due_in
    );
    assert_eq!(
        geo.call_count(),
        3,
        "one call retried twice within the attempt"
    );
    assert_eq!(
        run_once(&w).await,
        Outcome::Idle,
        "not retried before its backoff"
    );

    make_due(&db.pool).await;
    assert_eq!(run_once(&w).await, Outcome::Failed { id, attempts: 2 });
    let s = state(&db.pool, id).await;
    assert!(
        (55.0..=61.0).contains(&s.due_in),
        "second backoff 60 s, got {}",
        s.due_in
    );

    make_due(&db.pool).await;
    assert_eq!(run_once(&w).await, Outcome::LlmNeeded { id });
    let s = state(&db.pool, id).await;
    assert_eq!(s.geocode_status, "llm_needed");
    assert_eq!(s.attempts, 3);
    assert!(s.error.unwrap().contains("500"));
}

#[tokio::test]
async fn a_429_is_retried_and_then_succeeds() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    geo.fail_next(429, 1);
    let id = row(&db.pool, 1, 0, "Tromsø", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);
    assert!(matches!(run_once(&w).await, Outcome::Done { .. }));
    assert_eq!(geo.texts(), ["Tromsø, Norway", "Tromsø, Norway"]);
    assert_eq!(state(&db.pool, id).await.attempts, 0);
}

#[tokio::test]
async fn a_401_puts_the_row_in_error_with_the_providers_message() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    geo.require_key("the-right-key");
    let id = row(&db.pool, 1, 0, "Molde", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);

    let out = run_once(&w).await;
    let Outcome::Error { id: got, message } = out else {
        panic!("expected Error, got {out:?}");
    };
    assert_eq!(got, id);
    assert!(
        message.contains("401") && message.contains("Invalid apiKey"),
        "{message}"
    );
    assert_eq!(geo.call_count(), 1, "a 401 is not retried");
    let s = state(&db.pool, id).await;
    assert_eq!(s.geocode_status, "error");
    assert_eq!(s.error.as_deref(), Some(message.as_str()));
    assert!(!message.contains(KEY), "the key never appears in an error");
}

#[tokio::test]
async fn processing_that_raises_ends_in_error_and_the_worker_goes_on() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let bad = row(&db.pool, 1, 0, "Kirkenes", &[], "Norway", "NO").await;
    // A corrupt cache row: accepted, but its latitude breaks the row's CHECK constraint.
    sqlx::query(
        "INSERT INTO geocode_cache (key, provider, query, raw, lat, lon, confidence, granularity)
         VALUES ('geoapify:kirkenes, norway|no', 'geoapify', 'Kirkenes, Norway',
                 '{\"result_type\": \"city\"}', 123.0, 5.0, 0.9, 'city')",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let good = row(&db.pool, 2, 0, "Alta", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), None);

    let out = run_once(&w).await;
    let Outcome::Error { id, message } = out else {
        panic!("expected Error, got {out:?}");
    };
    assert_eq!(id, bad);
    assert!(message.contains("processing failed"), "{message}");
    assert_eq!(state(&db.pool, bad).await.geocode_status, "error");
    assert!(matches!(run_once(&w).await, Outcome::Done { .. }));
    assert_eq!(state(&db.pool, good).await.geocode_status, "done");
}

#[tokio::test]
async fn the_gazetteer_resolves_without_any_call_and_passes_ambiguity_on() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let bergen = row(&db.pool, 1, 0, "Bergen", &["Hordaland"], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), Some(tiny_gazetteer()));

    let out = run_once(&w).await;
    assert!(
        matches!(&out, Outcome::Done { provider, .. } if provider == "gazetteer"),
        "{out:?}"
    );
    assert_eq!(geo.call_count(), 0);
    let s = state(&db.pool, bergen).await;
    assert_eq!(s.provider.as_deref(), Some("gazetteer"));
    assert_eq!(s.geocode_granularity.as_deref(), Some("city"));
    assert!(s.confidence.unwrap() >= 0.7);
    assert!((s.lat.unwrap() - 60.39299).abs() < 1e-6);
    assert!(s.query.unwrap().contains("GeoNames 5"));

    // Two Neustadts and no region: the gazetteer passes it on to the provider.
    let neustadt = row(&db.pool, 2, 0, "Neustadt", &[], "Germany", "DE").await;
    let out = run_once(&w).await;
    assert!(
        matches!(&out, Outcome::Done { provider, .. } if provider == "geoapify"),
        "{out:?}"
    );
    assert_eq!(geo.texts(), ["Neustadt, Germany"]);
    assert_eq!(
        state(&db.pool, neustadt).await.provider.as_deref(),
        Some("geoapify")
    );
}

#[tokio::test]
async fn without_a_provider_the_gazetteer_still_runs_and_other_rows_wait() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    let mut cfg = config(&geo);
    cfg.api_key = None;
    let w = worker(&db.pool, &cfg, Some(tiny_gazetteer()));
    assert_eq!(
        w.geocoder.provider_status(),
        bandmap_geocode::ProviderStatus::Disabled("GEOCODING_API_KEY missing".into())
    );
    let bergen = row(&db.pool, 1, 0, "Bergen", &[], "Norway", "NO").await;
    let other = row(&db.pool, 2, 0, "Neustadt", &[], "Germany", "DE").await;

    let mut outcomes = vec![run_once(&w).await, run_once(&w).await];
    outcomes.sort_by_key(|o| format!("{o:?}"));
    assert!(matches!(outcomes[0], Outcome::Done { .. }), "{outcomes:?}");
    assert_eq!(outcomes[1], Outcome::Waiting { id: other });
    assert_eq!(
        state(&db.pool, bergen).await.provider.as_deref(),
        Some("gazetteer")
    );
    let s = state(&db.pool, other).await;
    assert_eq!(s.geocode_status, "pending");
    assert_eq!(s.attempts, 0, "waiting consumes no attempt");
    assert!(s.due_in > 500.0, "waits ~10 min, got {}", s.due_in);
    let err = s.error.unwrap();
    assert!(
        err.starts_with("waiting: no provider (GEOCODING_API_KEY missing)"),
        "{err}"
    );
    assert!(err.contains("ambiguous"), "{err}");
    assert_eq!(run_once(&w).await, Outcome::Idle);
    assert_eq!(geo.call_count(), 0);

    cfg.provider = bandmap_config::GeocoderProvider::None;
    cfg.api_key = Some(secrecy::SecretString::from("k".to_string()));
    let w = worker(&db.pool, &cfg, None);
    assert_eq!(
        w.geocoder.provider_status(),
        bandmap_geocode::ProviderStatus::Disabled("GEOCODER_PROVIDER=none".into())
    );
}

/// Issue 30: a region alone ("Hordaland", a region of the tiny gazetteer) is never placed
/// by the gazetteer; without a provider the row waits, and its error says what it is.
#[tokio::test]
async fn a_region_alone_is_noted_region_only_and_never_placed() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    let mut cfg = config(&geo);
    cfg.api_key = None;
    let w = worker(&db.pool, &cfg, Some(tiny_gazetteer()));
    let region = row(&db.pool, 1, 0, "Hordaland", &[], "Norway", "NO").await;
    assert_eq!(run_once(&w).await, Outcome::Waiting { id: region });
    let s = state(&db.pool, region).await;
    assert_eq!(s.geocode_status, "pending");
    assert!(s.lat.is_none(), "a region alone gets no point");
    let err = s.error.unwrap();
    assert!(
        err.contains("names a region only (Vestland): région seulement"),
        "{err}"
    );
    assert_eq!(geo.call_count(), 0);
}

#[tokio::test]
async fn without_a_provider_an_undecided_row_goes_to_the_llm_when_one_is_configured() {
    // Issue 19 point 7: GEOCODER_PROVIDER=none (or no key) and the gazetteer cannot decide.
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    let mut cfg = config(&geo);
    cfg.provider = bandmap_config::GeocoderProvider::None;
    let w = worker(&db.pool, &cfg, Some(tiny_gazetteer())).with_llm(true);
    let other = row(&db.pool, 2, 0, "Neustadt", &[], "Germany", "DE").await;
    assert_eq!(run_once(&w).await, Outcome::LlmNeeded { id: other });
    let s = state(&db.pool, other).await;
    assert_eq!(s.geocode_status, "llm_needed");
    let err = s.error.unwrap();
    assert!(
        err.starts_with("no provider (GEOCODER_PROVIDER=none)"),
        "{err}"
    );
    assert_eq!(geo.call_count(), 0);
}

#[tokio::test]
async fn a_requeued_country_only_row_returns_to_country_only_without_a_provider_call() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    // Any text sent would come back as an acceptable city: a call would make it `done`.
    geo.answer_every_text_as_city(0.95);
    let id = country_row(&db.pool, 1, "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), Some(tiny_gazetteer()));

    assert_eq!(run_once(&w).await, Outcome::CountryOnly { id });
    let centroid = bandmap_location::countries::by_code("NO").unwrap();
    let s = state(&db.pool, id).await;
    assert_eq!(s.geocode_status, "country_only");
    assert_eq!((s.lat, s.lon), (Some(centroid.lat), Some(centroid.lon)));
    assert_eq!(s.confidence, Some(0.1));
    assert_eq!(s.provider.as_deref(), Some("centroid"));
    assert_eq!(s.geocode_granularity.as_deref(), Some("country"));
    assert_eq!(s.error, None);
    assert_eq!(
        geo.call_count(),
        0,
        "no provider call for a country-only row"
    );
    assert_eq!(
        band_point(&db.pool, 1).await,
        (Some(centroid.lat), Some(centroid.lon), Some(id)),
        "the band's primary point is re-synced to the centroid"
    );
}

#[tokio::test]
async fn waiting_rows_wait_longer_each_time_and_wake_at_once_for_a_provider() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    let mut cfg = config(&geo);
    cfg.provider = bandmap_config::GeocoderProvider::None;
    let w = worker(&db.pool, &cfg, Some(tiny_gazetteer()));
    let id = row(&db.pool, 1, 0, "Neustadt", &[], "Germany", "DE").await;

    // 10 min, then 20, then 40: each consecutive wait doubles.
    let mut dues = Vec::new();
    for _ in 0..3 {
        assert_eq!(run_once(&w).await, Outcome::Waiting { id });
        let s = state(&db.pool, id).await;
        assert_eq!((s.geocode_status.as_str(), s.attempts), ("pending", 0));
        dues.push(s.due_in);
        make_due(&db.pool).await;
    }
    for (due, minutes) in dues.iter().zip([10.0, 20.0, 40.0]) {
        let expected = minutes * 60.0;
        assert!(
            *due > expected - 60.0 && *due <= expected,
            "due in {due} s, expected ≈ {expected}"
        );
    }
    // Capped.
    sqlx::query("UPDATE band_locations SET wait_count = 25 WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await
        .unwrap();
    assert_eq!(run_once(&w).await, Outcome::Waiting { id });
    let cap = bandmap_geocode::MAX_WAIT_DELAY.as_secs_f64();
    let due = state(&db.pool, id).await.due_in;
    assert!(due > cap - 60.0 && due <= cap, "due in {due} s, cap {cap}");

    // A provider appears (start of a configured service): due now, count reset.
    let woken =
        bandmap_db::band_locations::upkeep::wake_waiting(&db.pool, bandmap_geocode::WAIT_PREFIX)
            .await
            .unwrap();
    assert_eq!(woken, 1);
    assert!(state(&db.pool, id).await.due_in <= 0.0);
    assert_eq!(run_once(&w).await, Outcome::Waiting { id });
    let due = state(&db.pool, id).await.due_in;
    assert!(
        due > 540.0 && due <= 600.0,
        "back to the first wait, got {due}"
    );
}
