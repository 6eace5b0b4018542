//! `/admin/api/geocoding`, `/admin/api/llm` (NaN costs tolerated) and the purge of the
//! legacy provider's cache.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::admin::*;
use bandmap_test_support::spawn_app;
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;

async fn llm_call(
    pool: &PgPool,
    key: &str,
    ma_id: i64,
    raw: &str,
    model: &str,
    city: Option<&str>,
    cost: &str,
) {
    sqlx::query(
        "INSERT INTO llm_cache (key, ma_id, location_raw, country, model, extraction,
             prompt_tokens, completion_tokens, cost_usd, prompt, response)
         VALUES ($1, $2, $3, 'Norway', $4, $5, 100, 20, $6::numeric, 'prompt', 'response')",
    )
    .bind(key)
    .bind(ma_id)
    .bind(raw)
    .bind(model)
    .bind(json!({"city": city, "region": null, "country": "Norway", "confidence": 0.5}))
    .bind(cost)
    .execute(pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn geocoding_counters_cover_every_state_and_tolerate_nan() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Enslaved").await;
    location(pool, 1, 0, "Haugesund", "done", Some((59.4, 5.3))).await;
    location(pool, 1, 1, "Bergen", "error", None).await;
    sqlx::query("UPDATE band_locations SET confidence = 'NaN' WHERE location_raw = 'Bergen'")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("UPDATE band_locations SET provider = 'gazetteer' WHERE location_raw = 'Bergen'")
        .execute(pool)
        .await
        .unwrap();
    llm_call(pool, "k1", 1, "Bergen", "m70", None, "NaN").await;
    llm_call(pool, "k2", 1, "Haugesund", "m70", Some("Haugesund"), "0.25").await;
    sqlx::query(
        "INSERT INTO geocode_cache (key, provider, query, raw) VALUES ('a', 'geoapify', 'x', '{}')",
    )
    .execute(pool)
    .await
    .unwrap();
    let cookie = app.login().await;

    let body = get_ok(&app, &cookie, "/admin/api/geocoding").await;
    let by_status = body["by_status"].as_object().unwrap();
    assert_eq!(by_status.len(), 7);
    assert_eq!(body["by_status"]["done"], 1);
    assert_eq!(body["by_status"]["error"], 1);
    assert_eq!(body["by_status"]["manual"], 0);
    assert_eq!(
        body["providers"],
        json!([{"provider": "gazetteer", "count": 2, "avg_confidence": 0.9}])
    );
    let m = &body["llm_models"][0];
    assert_eq!(m["model"], "m70");
    assert_eq!(m["calls"], 2);
    assert_eq!(m["city_null"], 1);
    assert_eq!(m["cost_usd"], 0.25, "NaN ignored in the sum");
    assert_eq!(m["prompt_tokens"], 200);
    assert_eq!(m["completion_tokens"], 40);
    assert_eq!(body["cache"]["entries"], 1);
    assert_needs_session(&app, Method::GET, "/admin/api/geocoding").await;
}

#[tokio::test]
async fn malformed_llm_replies_are_errors_counted_apart_from_city_null() {
    // Issue 19 point 9: a malformed reply (no extraction) is not "city null".
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Enslaved").await;
    llm_call(pool, "k1", 1, "Bergen", "m70", None, "0.25").await;
    llm_call(pool, "k2", 1, "Haugesund", "m70", Some("Haugesund"), "0.25").await;
    llm_call(pool, "k3", 1, "Garbage", "m70", None, "0.25").await;
    sqlx::query("UPDATE llm_cache SET extraction = NULL WHERE key = 'k3'")
        .execute(pool)
        .await
        .unwrap();
    let cookie = app.login().await;
    let body = get_ok(&app, &cookie, "/admin/api/geocoding").await;
    let m = &body["llm_models"][0];
    assert_eq!(
        (m["calls"].clone(), m["city_null"].clone()),
        (json!(3), json!(1))
    );
    assert_eq!(m["malformed"], 1);
    let total = |v: Value| v["total"].as_i64().unwrap();
    let get = |q: &'static str| {
        let (app, cookie) = (&app, &cookie);
        async move { total(get_ok(app, cookie, &format!("/admin/api/llm?{q}")).await) }
    };
    assert_eq!(get("city_null=true").await, 1);
    assert_eq!(get("city_null=false").await, 1);
    assert_eq!(get("malformed=true").await, 1);
    assert_eq!(get("malformed=false").await, 2);
}

#[tokio::test]
async fn llm_list_filters_totals_and_nan() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Enslaved").await;
    band(pool, 2, "Borknagar").await;
    llm_call(pool, "k1", 1, "Bergen 50%", "m70", None, "NaN").await;
    llm_call(pool, "k2", 1, "Haugesund", "m70", Some("Haugesund"), "0.25").await;
    llm_call(pool, "k3", 2, "Oslo", "m8", Some("Oslo"), "0.5").await;
    let cookie = app.login().await;

    let all = get_ok(&app, &cookie, "/admin/api/llm").await;
    assert_eq!(all["total"], 3);
    assert_eq!(all["totals"], json!({"calls": 3, "cost_usd": 0.75}));
    let nan_row = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["location_raw"] == "Bergen 50%")
        .unwrap();
    assert_eq!(nan_row["cost_usd"], Value::Null);
    assert_eq!(nan_row["band_name"], "Enslaved");
    for key in [
        "id",
        "created_at",
        "ma_id",
        "band_name",
        "location_raw",
        "country",
        "model",
        "extraction",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "prompt",
        "response",
    ] {
        assert!(nan_row.get(key).is_some(), "missing {key}");
    }

    let total = |v: Value| {
        (
            v["total"].as_i64().unwrap(),
            v["totals"]["cost_usd"].clone(),
        )
    };
    assert_eq!(
        total(get_ok(&app, &cookie, "/admin/api/llm?model=m8").await),
        (1, json!(0.5))
    );
    assert_eq!(
        total(get_ok(&app, &cookie, "/admin/api/llm?ma_id=1").await),
        (2, json!(0.25))
    );
    assert_eq!(
        total(get_ok(&app, &cookie, "/admin/api/llm?city_null=true").await),
        (1, json!(0.0))
    );
    assert_eq!(
        total(get_ok(&app, &cookie, "/admin/api/llm?city_null=0").await).0,
        2
    );
    assert_eq!(
        total(get_ok(&app, &cookie, "/admin/api/llm?q=50%25").await).0,
        1
    );
    assert_eq!(
        total(get_ok(&app, &cookie, "/admin/api/llm?q=%25").await).0,
        1,
        "wildcard literal"
    );
    for bad in ["city_null=yes", "ma_id=abc", "limit=x", "offset=-5"] {
        let r = send(
            &app,
            &cookie,
            Method::GET,
            &format!("/admin/api/llm?{bad}"),
            None,
        )
        .await;
        assert_error(r, 400, "bad_request").await;
    }
    assert_needs_session(&app, Method::GET, "/admin/api/llm").await;
}

#[tokio::test]
async fn purge_legacy_provider_deletes_only_nominatim_and_is_audited() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    for (key, provider) in [("a", "nominatim"), ("b", "Nominatim"), ("c", "geoapify")] {
        sqlx::query(
            "INSERT INTO geocode_cache (key, provider, query, raw) VALUES ($1, $2, 'q', '{}')",
        )
        .bind(key)
        .bind(provider)
        .execute(pool)
        .await
        .unwrap();
    }
    let cookie = app.login().await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/geocode-cache/purge-legacy-provider",
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"deleted": 2}));
    let left: Vec<String> = sqlx::query_scalar("SELECT provider FROM geocode_cache")
        .fetch_all(pool)
        .await
        .unwrap();
    assert_eq!(left, ["geoapify"]);
    let audit = audit_rows(pool, "geocode_cache.purge_legacy_provider").await;
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].2.as_ref().unwrap()["deleted"], 2);
    assert_eq!(
        log_lines_for(pool, "geocode_cache.purge_legacy_provider").await,
        1
    );
    assert_needs_session(
        &app,
        Method::POST,
        "/admin/api/geocode-cache/purge-legacy-provider",
    )
    .await;
}

#[tokio::test]
async fn costs_beyond_float_range_read_as_null_not_500() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Enslaved").await;
    llm_call(pool, "huge", 1, "Bergen", "m70", Some("Bergen"), "1e400").await;
    llm_call(pool, "small", 1, "Oslo", "m70", Some("Oslo"), "0.5").await;
    let cookie = app.login().await;
    let list = get_ok(&app, &cookie, "/admin/api/llm").await;
    assert_eq!(list["totals"]["cost_usd"], 0.5);
    let huge = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["location_raw"] == "Bergen")
        .unwrap();
    assert_eq!(huge["cost_usd"], Value::Null);
    let geo = get_ok(&app, &cookie, "/admin/api/geocoding").await;
    assert_eq!(geo["llm_models"][0]["cost_usd"], 0.5);
    let detail = get_ok(&app, &cookie, "/admin/api/bands/1").await;
    assert_eq!(detail["llm_calls"].as_array().unwrap().len(), 2);
}
