//! The LLM worker against a real PostgreSQL and the fake OpenAI-compatible API: JSON mode,
//! cache, fallback, backoff, cost, and every outcome state of CONTRACT §3.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_fakes::llm::{FakeLlm, LlmFault};
use bandmap_geocode::Resolution;
use bandmap_llm::Outcome;
use bandmap_test_support::TestDb;
use serde_json::json;
use std::time::Duration;

/// (model, how the fake answered) of every request, in order.
fn answered(llm: &FakeLlm) -> Vec<(String, String)> {
    llm.requests()
        .into_iter()
        .map(|q| (q.model, q.answered))
        .collect()
}

fn kolbotn() -> serde_json::Value {
    json!({"city": "Kolbotn", "region": "Viken", "country": "Norway", "confidence": 0.9})
}

#[tokio::test]
async fn accepted_city_is_done_with_llm_provider_in_json_mode_and_cost_stored() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    let out = r.worker.run_once().await.unwrap();
    assert_eq!(
        out,
        Outcome::Done {
            location_id: id,
            provider: "llm+gazetteer".into(),
            model: PRIMARY.into(),
            cached: false
        }
    );

    // JSON mode, temperature 0, primary model, bearer key, prompt built from the row.
    let reqs = llm.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].model, PRIMARY);
    assert_eq!(
        reqs[0].body["response_format"],
        json!({"type": "json_object"})
    );
    assert_eq!(reqs[0].body["temperature"], json!(0.0));
    assert_eq!(
        reqs[0].authorization.as_deref(),
        Some("Bearer gsk_test_key")
    );
    // The prompt holds the stable facts only (rule 21, issue 13): the row's place text and
    // the band's country — no band name, no other step, no geocoder query or error.
    let user = reqs[0].user_message();
    assert_eq!(
        user,
        "Place to locate: Kolbotn, Viken\nCountry of the band: Norway\nAnswer in JSON."
    );
    for absent in ["Darkthrone", "Oslo", GEOCODER_ERROR] {
        assert!(!user.contains(absent), "prompt holds {absent:?}: {user}");
    }
    let system = reqs[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("JSON") && system.contains("\"city\""));

    // Row done, point stored, band primary point synced in the same transaction.
    let s = row(&db.pool, id).await;
    assert_eq!(s.geocode_status, "done");
    assert_eq!(s.provider.as_deref(), Some("llm+gazetteer"));
    assert_eq!((s.lat, s.lon), (Some(59.81), Some(10.8)));
    assert_eq!(s.confidence, Some(0.93));
    assert_eq!(s.geocode_granularity.as_deref(), Some("city"));
    assert_eq!(s.query.as_deref(), Some("Kolbotn (gazetteer)"));
    assert_eq!(s.error, None);
    let (blat, bprov): (Option<f64>, Option<String>) =
        sqlx::query_as("SELECT lat, geocode_provider FROM bands WHERE ma_id = 1")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(blat, Some(59.81));
    assert_eq!(bprov.as_deref(), Some("llm+gazetteer"));

    // The resolver got the extracted city with region and the country code.
    let seen = r.resolver.seen();
    assert_eq!(seen[0].city, "Kolbotn");
    assert_eq!(seen[0].regions, vec!["Viken".to_string()]);
    assert_eq!(seen[0].country_code.as_deref(), Some("NO"));

    // One llm_cache row with everything, cost from the 70B price table.
    let rows = cache_rows(&db.pool).await;
    assert_eq!(rows.len(), 1);
    let c = &rows[0];
    assert_eq!(c.key.len(), 64);
    assert_eq!((c.ma_id, c.location_id), (Some(1), Some(id)));
    assert_eq!(c.location_raw.as_deref(), Some("Kolbotn, Viken"));
    assert_eq!(c.country.as_deref(), Some("Norway"));
    assert_eq!(c.model, PRIMARY);
    assert_eq!(c.extraction.as_ref().unwrap()["city"], "Kolbotn");
    let (p, k) = (c.prompt_tokens.unwrap(), c.completion_tokens.unwrap());
    assert!(p > 50 && k > 5, "realistic usage: {p}/{k}");
    let expected = (f64::from(p) * 0.59 + f64::from(k) * 0.79) / 1e6;
    assert!(
        (c.cost.unwrap() - expected).abs() < 1e-12,
        "{:?} vs {expected}",
        c.cost
    );
    assert!(c.prompt.as_deref().unwrap().contains("Kolbotn, Viken"));
    assert!(c.response.as_deref().unwrap().contains("chat.completion"));
}

#[tokio::test]
async fn identical_request_is_answered_from_the_cache_without_a_call() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Done { cached: false, .. }
    ));

    // An admin resets the row; the geocoder fails again and hands it over once more.
    geocoder_hands_over(&db.pool, id, "Kolbotn, Viken").await;
    let out = r.worker.run_once().await.unwrap();
    assert!(matches!(out, Outcome::Done { cached: true, .. }), "{out:?}");
    assert_eq!(
        llm.count(),
        1,
        "the second identical request made no API call"
    );
    assert_eq!(cache_rows(&db.pool).await.len(), 1);
    assert_eq!(row(&db.pool, id).await.geocode_status, "done");
}

#[tokio::test]
async fn a_429_on_the_primary_falls_back_and_records_the_model_used() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer(json!({"city": "Bergen", "region": null, "country": "Norway", "confidence": 0.8}));
    llm.fail_next(
        PRIMARY,
        LlmFault::RateLimited {
            retry_after_secs: 30,
        },
        1,
    );
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Bergen", 60.39, 5.32, "geoapify");
    let a = llm_row(&db.pool, 1, "Gorgoroth", "Bergen").await;
    let b = llm_row(&db.pool, 2, "Immortal", "Bergen, Hordaland").await;
    let c = llm_row(&db.pool, 3, "Enslaved", "Haugesund").await;

    let out = r.worker.run_once().await.unwrap();
    assert!(
        matches!(&out, Outcome::Done { model, .. } if model == FALLBACK),
        "{out:?}"
    );
    let models: Vec<(String, String)> = llm
        .requests()
        .iter()
        .map(|q| (q.model.clone(), q.answered.clone()))
        .collect();
    assert_eq!(
        models,
        vec![
            (PRIMARY.into(), "429".into()),
            (FALLBACK.into(), "ok".into())
        ]
    );
    assert!(r.pacer.sleeps().is_empty(), "falling back does not wait");
    let rows = cache_rows(&db.pool).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].model, FALLBACK);
    let (p, k) = (
        rows[0].prompt_tokens.unwrap(),
        rows[0].completion_tokens.unwrap(),
    );
    let expected = (f64::from(p) * 0.05 + f64::from(k) * 0.08) / 1e6;
    assert!(
        (rows[0].cost.unwrap() - expected).abs() < 1e-12,
        "8B price applied"
    );
    assert_eq!(
        row(&db.pool, a).await.provider.as_deref(),
        Some("llm+geoapify")
    );

    // retry-after is honoured: the primary stays off for 30 s, so the next row goes
    // straight to the fallback without asking the primary.
    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Done { .. }
    ));
    assert_eq!(llm.requests()[2].model, FALLBACK);
    assert_eq!(row(&db.pool, b).await.geocode_status, "done");

    // Once the retry-after has passed, the primary is used again.
    r.pacer.advance(Duration::from_secs(31));
    r.worker.run_once().await.unwrap();
    assert_eq!(llm.requests()[3].model, PRIMARY);
    assert_eq!(row(&db.pool, c).await.geocode_status, "done");
    let models: Vec<String> = cache_rows(&db.pool)
        .await
        .into_iter()
        .map(|r| r.model)
        .collect();
    assert_eq!(models, vec![FALLBACK, FALLBACK, PRIMARY]);
}

#[tokio::test]
async fn primary_local_window_full_uses_the_fallback() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer(json!({"city": null, "region": null, "country": null, "confidence": 0.1}));
    let mut s = settings();
    s.primary.limits.rpm = 1;
    let r = rig_with(&db.pool, &llm, s);
    llm_row(&db.pool, 1, "A", "Somewhere").await;
    llm_row(&db.pool, 2, "B", "Elsewhere").await;
    r.worker.run_once().await.unwrap();
    r.worker.run_once().await.unwrap();
    let models: Vec<String> = llm.requests().into_iter().map(|q| q.model).collect();
    assert_eq!(models, vec![PRIMARY, FALLBACK]);
}

#[tokio::test]
async fn server_errors_back_off_exponentially_then_succeed() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    llm.fail_next("*", LlmFault::ServerError, 2);
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Done { .. }
    ));
    let answered: Vec<String> = llm.requests().into_iter().map(|q| q.answered).collect();
    assert_eq!(answered, vec!["500", "500", "ok"]);
    assert!(
        llm.requests().iter().all(|q| q.model == PRIMARY),
        "5xx does not fall back"
    );
    let sleeps = r.pacer.sleeps();
    assert_eq!(sleeps.len(), 2, "one backoff before each retry: {sleeps:?}");
    // base 1 s then 2 s, each with up to 50 % jitter.
    assert!(sleeps[0] >= Duration::from_secs(1) && sleeps[0] < Duration::from_millis(1500));
    assert!(sleeps[1] >= Duration::from_secs(2) && sleeps[1] < Duration::from_secs(3));
    assert_eq!(row(&db.pool, id).await.geocode_status, "done");
}

#[tokio::test]
async fn both_models_rate_limited_waits_for_the_earliest_retry_after() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    llm.fail_next(
        PRIMARY,
        LlmFault::RateLimited {
            retry_after_secs: 7,
        },
        1,
    );
    llm.fail_next(
        FALLBACK,
        LlmFault::RateLimited {
            retry_after_secs: 3,
        },
        1,
    );
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    let out = r.worker.run_once().await.unwrap();
    assert!(
        matches!(&out, Outcome::Done { model, .. } if model == FALLBACK),
        "{out:?}"
    );
    let seq = answered(&llm);
    assert_eq!(
        seq,
        vec![
            (PRIMARY.into(), "429".into()),
            (FALLBACK.into(), "429".into()),
            (FALLBACK.into(), "ok".into())
        ]
    );
    let sleeps = r.pacer.sleeps();
    assert_eq!(sleeps.len(), 1, "{sleeps:?}");
    assert!(
        sleeps[0] >= Duration::from_secs(3) && sleeps[0] < Duration::from_secs(4),
        "{sleeps:?}"
    );
}

#[tokio::test]
async fn api_failure_after_retries_stays_llm_needed_with_error_and_attempts() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.fail_next("*", LlmFault::ServerError, 100);
    let r = rig(&db.pool, &llm);
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    let out = r.worker.run_once().await.unwrap();
    assert!(
        matches!(out, Outcome::Retry { location_id, .. } if location_id == id),
        "{out:?}"
    );
    assert_eq!(llm.count(), 4, "max_attempts API calls");
    assert_eq!(r.pacer.sleeps().len(), 3);
    let s = row(&db.pool, id).await;
    assert_eq!(s.geocode_status, "llm_needed");
    assert_eq!(s.attempts, 4);
    assert!(
        s.error.as_deref().unwrap().contains("HTTP 500"),
        "{:?}",
        s.error
    );
    // 60 s × 2^(4−1) = 8 min.
    assert!(
        s.retry_in_secs > 470.0 && s.retry_in_secs <= 480.0,
        "{}",
        s.retry_in_secs
    );
    assert!(
        cache_rows(&db.pool).await.is_empty(),
        "no answer, no cache row"
    );
    // Not due any more: the next run is idle.
    assert_eq!(r.worker.run_once().await.unwrap(), Outcome::Idle);
}

#[tokio::test]
async fn refused_request_is_not_retried() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.fail_next("*", LlmFault::Unauthorized, 100);
    let r = rig(&db.pool, &llm);
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Retry { .. }
    ));
    assert_eq!(llm.count(), 1);
    let s = row(&db.pool, id).await;
    assert_eq!((s.geocode_status.as_str(), s.attempts), ("llm_needed", 4));
    assert!(s.error.unwrap().contains("HTTP 401"));
}

#[tokio::test]
async fn malformed_reply_is_a_row_error_and_retried_later_not_from_cache() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    llm.fail_next("*", LlmFault::Malformed, 1);
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    let out = r.worker.run_once().await.unwrap();
    assert!(matches!(out, Outcome::Retry { .. }), "{out:?}");
    let s = row(&db.pool, id).await;
    assert_eq!(s.geocode_status, "llm_needed");
    assert!(
        s.error.as_deref().unwrap().contains("malformed"),
        "{:?}",
        s.error
    );
    let rows = cache_rows(&db.pool).await;
    assert_eq!(rows.len(), 1, "the call is recorded (it was billed)");
    assert!(rows[0].extraction.is_none());
    assert!(rows[0].cost.unwrap() > 0.0);

    // Later, the same request is asked again (a malformed answer is never served).
    make_due(&db.pool, id).await;
    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Done { cached: false, .. }
    ));
    assert_eq!(llm.count(), 2);
    let reqs = llm.requests();
    assert_eq!(reqs[0].body, reqs[1].body, "the retry repeats the request");
    let rows = cache_rows(&db.pool).await;
    assert_eq!(
        rows.len(),
        2,
        "one row per billed call, the malformed one kept"
    );
    assert_eq!(rows[0].key, rows[1].key);
    assert!(rows[0].extraction.is_none() && rows[0].cost.unwrap() > 0.0);
    assert_eq!(rows[1].extraction.as_ref().unwrap()["city"], "Kolbotn");
}

#[tokio::test]
async fn null_city_goes_manual_without_geocoding() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer(json!({"city": null, "region": "Viken", "country": "Norway", "confidence": 0.4}));
    let r = rig(&db.pool, &llm);
    let id = llm_row(&db.pool, 1, "Band", "Viken").await;
    let out = r.worker.run_once().await.unwrap();
    assert!(matches!(out, Outcome::Manual { .. }), "{out:?}");
    let s = row(&db.pool, id).await;
    assert_eq!(s.geocode_status, "manual");
    assert!(s.error.unwrap().contains("no city"));
    assert!(r.resolver.seen().is_empty());
    assert!(cache_rows(&db.pool).await[0].extraction.as_ref().unwrap()["city"].is_null());
}

#[tokio::test]
async fn city_that_fails_geocoding_goes_manual() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer(
        json!({"city": "Nowhereville", "region": null, "country": "Norway", "confidence": 0.6}),
    );
    let r = rig(&db.pool, &llm);
    let id = llm_row(&db.pool, 1, "Band", "Nowhere").await;
    let out = r.worker.run_once().await.unwrap();
    assert!(matches!(out, Outcome::Manual { .. }), "{out:?}");
    let s = row(&db.pool, id).await;
    assert_eq!(s.geocode_status, "manual");
    assert!(s.error.unwrap().contains("Nowhereville"));
    assert_eq!(s.query.as_deref(), Some("Nowhereville, Norway"));
    assert_eq!(s.lat, None);
}

#[tokio::test]
async fn geocoder_outages_keep_the_row_and_fatal_refusals_are_errors() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for(
        "Alpha",
        json!({"city": "Alpha", "region": null, "country": null, "confidence": 0.9}),
    );
    llm.answer_for(
        "Beta",
        json!({"city": "Beta", "region": null, "country": null, "confidence": 0.9}),
    );
    let r = rig(&db.pool, &llm);
    r.resolver.set(
        "Alpha",
        Resolution::Transient {
            error: "HTTP 503".into(),
        },
    );
    r.resolver.set(
        "Beta",
        Resolution::Fatal {
            error: "HTTP 401 invalid key".into(),
        },
    );
    let a = llm_row(&db.pool, 1, "A", "Alpha").await;
    let b = llm_row(&db.pool, 2, "B", "Beta").await;
    r.worker.run_once().await.unwrap();
    r.worker.run_once().await.unwrap();
    let sa = row(&db.pool, a).await;
    assert_eq!((sa.geocode_status.as_str(), sa.attempts), ("llm_needed", 4));
    assert!(sa.error.unwrap().contains("HTTP 503"));
    let sb = row(&db.pool, b).await;
    assert_eq!(sb.geocode_status, "error");
    assert!(sb.error.unwrap().contains("invalid key"));
}

#[tokio::test]
async fn claims_skip_leased_and_undue_rows() {
    let db = TestDb::new().await;
    let a = llm_row(&db.pool, 1, "A", "Alpha").await;
    let b = llm_row(&db.pool, 2, "B", "Beta").await;
    sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now() + interval '1 hour' WHERE id = $1",
    )
    .bind(b)
    .execute(&db.pool)
    .await
    .unwrap();
    let first = bandmap_db::band_locations::llm::claim(&db.pool)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.id, a);
    assert_eq!(first.band_name, "A");
    assert!(
        bandmap_db::band_locations::llm::claim(&db.pool)
            .await
            .unwrap()
            .is_none(),
        "leased and undue rows are not claimed"
    );
}

#[tokio::test]
async fn admin_change_during_the_call_is_not_overwritten() {
    let db = TestDb::new().await;
    let id = llm_row(&db.pool, 1, "A", "Alpha").await;
    let claimed = bandmap_db::band_locations::llm::claim(&db.pool)
        .await
        .unwrap()
        .unwrap();
    sqlx::query("UPDATE band_locations SET geocode_status = 'pending' WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await
        .unwrap();
    assert!(
        !bandmap_db::band_locations::llm::mark_manual(&db.pool, &claimed.lease(), "x", None)
            .await
            .unwrap()
    );
    assert_eq!(row(&db.pool, id).await.geocode_status, "pending");
}

#[tokio::test]
async fn retry_after_an_api_failure_repeats_the_request_and_a_cached_answer_makes_no_call() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    llm.fail_next("*", LlmFault::ServerError, 4);
    let r = rig(&db.pool, &llm);
    r.resolver.set(
        "Kolbotn",
        Resolution::Transient {
            error: "HTTP 503 from the provider".into(),
        },
    );
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    // 1. Every API call fails: the row keeps the LLM's own error.
    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Retry { .. }
    ));
    assert_eq!(llm.count(), 4);
    let error = row(&db.pool, id).await.error.unwrap();
    assert!(error.contains("HTTP 500"), "{error}");

    // 2. The retry sends exactly the first request again (same cache key): the prompt
    //    quotes no error at all, neither the geocoder's nor the LLM failure now in `error`.
    make_due(&db.pool, id).await;
    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Retry { .. }
    ));
    let reqs = llm.requests();
    assert_eq!(reqs.len(), 5);
    assert_eq!(reqs[4].body, reqs[0].body, "same request, same cache key");
    let user = reqs[4].user_message();
    assert!(!user.contains(GEOCODER_ERROR), "{user}");
    assert!(
        !user.contains("HTTP 500") && !user.contains("LLM"),
        "{user}"
    );
    assert_eq!(cache_rows(&db.pool).await.len(), 1);

    // 3. That call succeeded and is cached; geocoding failed transiently. The next retry
    //    is answered from the cache: no further API call.
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    make_due(&db.pool, id).await;
    let out = r.worker.run_once().await.unwrap();
    assert!(matches!(out, Outcome::Done { cached: true, .. }), "{out:?}");
    assert_eq!(llm.count(), 5, "the cached extraction made the retry free");
    assert_eq!(cache_rows(&db.pool).await.len(), 1);
}

#[tokio::test]
async fn city_the_geocoder_cannot_resolve_without_provider_goes_manual_and_a_reset_is_free() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    let r = rig(&db.pool, &llm);
    r.resolver.set(
        "Kolbotn",
        Resolution::Unavailable {
            reason: "no provider (GEOCODER_PROVIDER=none); gazetteer: not found".into(),
        },
    );
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    let out = r.worker.run_once().await.unwrap();
    assert!(
        matches!(out, Outcome::Manual { location_id, .. } if location_id == id),
        "{out:?}"
    );
    let s = row(&db.pool, id).await;
    assert_eq!((s.geocode_status.as_str(), s.attempts), ("manual", 3));
    let error = s.error.unwrap();
    assert!(
        error.contains("Kolbotn") && error.contains("GEOCODER_PROVIDER=none"),
        "{error}"
    );
    assert!(error.contains("configure a geocoding provider"), "{error}");
    assert_eq!(r.worker.run_once().await.unwrap(), Outcome::Idle, "no loop");

    // A provider is configured and the admin resets the row: the geocoder hands it over
    // again and the LLM step is answered from the cache.
    r.resolver.accept("Kolbotn", 59.81, 10.8, "geoapify");
    geocoder_hands_over(&db.pool, id, "Kolbotn, Viken").await;
    let out = r.worker.run_once().await.unwrap();
    assert!(matches!(out, Outcome::Done { cached: true, .. }), "{out:?}");
    assert_eq!(llm.count(), 1);
}

#[tokio::test]
async fn json_validate_failed_is_retried_on_the_other_model_and_recorded() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    llm.fail_next(PRIMARY, LlmFault::JsonValidateFailed, 1);
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    let out = r.worker.run_once().await.unwrap();
    assert!(
        matches!(&out, Outcome::Done { model, cached: false, .. } if model == FALLBACK),
        "{out:?}"
    );
    let seq = answered(&llm);
    assert_eq!(
        seq,
        vec![
            (PRIMARY.into(), "400".into()),
            (FALLBACK.into(), "ok".into())
        ]
    );
    assert!(
        r.pacer.sleeps().is_empty(),
        "no backoff: the service is fine"
    );
    assert_eq!(row(&db.pool, id).await.geocode_status, "done");
    let rows = cache_rows(&db.pool).await;
    assert_eq!(rows.len(), 2, "the failed generation is a call too");
    assert_eq!(rows[0].model, PRIMARY);
    assert!(rows[0].extraction.is_none());
    assert!(
        rows[0]
            .response
            .as_deref()
            .unwrap()
            .contains("json_validate_failed")
    );
    assert_eq!(rows[1].model, FALLBACK);
    assert_eq!(rows[1].extraction.as_ref().unwrap()["city"], "Kolbotn");
}

#[tokio::test]
async fn a_503_retry_after_is_honoured() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    llm.fail_next(
        "*",
        LlmFault::Unavailable {
            retry_after_secs: 20,
        },
        2,
    );
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;

    let out = r.worker.run_once().await.unwrap();
    assert!(matches!(out, Outcome::Done { .. }), "{out:?}");
    let answered: Vec<String> = llm.requests().into_iter().map(|q| q.answered).collect();
    assert_eq!(answered, vec!["503", "503", "ok"]);
    // Both models were told to come back in 20 s: one wait of 20 s (+ ≤ 10 % jitter),
    // not the 1 s / 2 s exponential backoff of a plain 5xx.
    let sleeps = r.pacer.sleeps();
    assert_eq!(sleeps.len(), 1, "{sleeps:?}");
    assert!(
        sleeps[0] >= Duration::from_secs(20) && sleeps[0] <= Duration::from_secs(22),
        "{sleeps:?}"
    );
}

#[tokio::test]
async fn exhausted_daily_quota_pauses_the_worker_without_spending_attempts() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    llm.answer_for(
        "Bergen",
        json!({"city": "Bergen", "region": null, "country": "Norway", "confidence": 0.8}),
    );
    let day = 7 * 3600;
    for model in [PRIMARY, FALLBACK] {
        llm.fail_next(model, LlmFault::DailyQuotaExhausted { reset_secs: day }, 1);
    }
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    r.resolver.accept("Bergen", 60.39, 5.32, "gazetteer");
    let a = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    let b = llm_row(&db.pool, 2, "Gorgoroth", "Bergen").await;

    // Both models answer "quota exhausted for 7 h": the row is postponed, not failed.
    let out = r.worker.run_once().await.unwrap();
    let Outcome::Paused { location_id, wait } = out else {
        panic!("{out:?}");
    };
    assert_eq!(location_id, Some(a));
    assert_eq!(wait, Duration::from_secs(day));
    assert_eq!(llm.count(), 2);
    assert!(r.pacer.sleeps().is_empty(), "no sleeping inside the row");
    let s = row(&db.pool, a).await;
    assert_eq!((s.geocode_status.as_str(), s.attempts), ("llm_needed", 3));
    assert!(
        s.error.as_deref().unwrap().contains("paused"),
        "{:?}",
        s.error
    );
    assert!(
        (s.retry_in_secs - day as f64).abs() < 60.0,
        "{}",
        s.retry_in_secs
    );

    // While paused, the worker claims nothing and calls nothing.
    let out = r.worker.run_once().await.unwrap();
    assert!(
        matches!(
            out,
            Outcome::Paused {
                location_id: None,
                ..
            }
        ),
        "{out:?}"
    );
    assert_eq!(llm.count(), 2);
    let sb = row(&db.pool, b).await;
    assert_eq!(
        (sb.attempts, sb.error.as_deref()),
        (3, Some(GEOCODER_ERROR))
    );

    // After the reset the worker resumes with the waiting row.
    r.pacer.advance(Duration::from_secs(day + 1));
    let out = r.worker.run_once().await.unwrap();
    assert!(
        matches!(out, Outcome::Done { location_id, .. } if location_id == b),
        "{out:?}"
    );
}
