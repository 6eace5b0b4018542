#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Admin band endpoints against a real server and database: every list filter and its
//! validation, sorting and paging, the detail view, PATCH (locks, arbitrated conflicts,
//! audit) and conflict resolution (keep, accept, cast, 409, 400).

use bandmap_test_support::{TestApp, spawn_app};
use reqwest::Method;
use serde_json::{Value, json};

async fn insert_band(app: &TestApp, band: Value) {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text, genre, themes,
                            status, formed_year, lat, lon, locked_fields, crawler_pending, data)
         SELECT ma_id, name, country, country_code, location_text, genre, themes, status,
                formed_year, lat, lon, coalesce(locked_fields, '{}'),
                coalesce(crawler_pending, '{}'), coalesce(data, '{}')
         FROM jsonb_populate_record(NULL::bands, $1)",
    )
    .bind(band)
    .execute(&app.db.pool)
    .await
    .unwrap();
}

async fn fixture(app: &TestApp) {
    for b in [
        json!({"ma_id": 1, "name": "Mayhem", "country": "Norway", "country_code": "NO",
               "location_text": "Oslo", "genre": "Black Metal", "themes": "Death, Satanism",
               "status": "Active", "formed_year": 1984, "lat": 59.9, "lon": 10.7,
               "data": {"url": "https://www.metal-archives.com/bands/Mayhem/1"}}),
        json!({"ma_id": 2, "name": "Darkthrone", "country": "Norway", "country_code": "NO",
               "location_text": "Kolbotn, Viken", "genre": "Black/Death Metal",
               "themes": "Misanthropy", "status": "Active", "formed_year": 1986}),
        json!({"ma_id": 3, "name": "100% Fake_Band", "country": "Sweden", "country_code": "SE",
               "location_text": "", "genre": "Doom Metal", "status": "Split-up",
               "formed_year": 1990, "locked_fields": ["genre"],
               "crawler_pending": {"genre": "Sludge", "status": "Active"}}),
        json!({"ma_id": 4, "name": "bathory", "country": "Sweden", "country_code": "SE",
               "genre": "Black/Viking Metal", "status": "Split-up"}),
        json!({"ma_id": 666, "name": "Trident", "country": "Finland", "country_code": "FI",
               "location_text": "Helsinki", "genre": "Heavy Metal", "status": "On hold",
               "formed_year": 2001}),
        json!({"ma_id": 5, "name": "Band 666", "country": "Finland", "country_code": "FI",
               "location_text": "Turku", "genre": "Thrash Metal", "status": "Active",
               "formed_year": 1999}),
    ] {
        insert_band(app, b).await;
    }
}

async fn setup() -> (TestApp, String) {
    let app = spawn_app().await;
    fixture(&app).await;
    let cookie = app.login().await;
    (app, cookie)
}

async fn get(app: &TestApp, cookie: &str, path: &str) -> (u16, Value) {
    let res = app.admin(Method::GET, path, cookie).send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

async fn ids(app: &TestApp, cookie: &str, query: &str) -> Vec<i64> {
    let (status, body) = get(app, cookie, &format!("/admin/api/bands?{query}")).await;
    assert_eq!(status, 200, "{query}: {body}");
    let items = body["items"].as_array().unwrap();
    assert_eq!(
        body["total"].as_u64().unwrap() as usize,
        items.len(),
        "{query}"
    );
    items.iter().map(|i| i["ma_id"].as_i64().unwrap()).collect()
}

async fn send(
    app: &TestApp,
    cookie: &str,
    method: Method,
    path: &str,
    body: Value,
) -> (u16, Value) {
    let res = app
        .admin(method, path, cookie)
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

#[tokio::test]
async fn list_items_have_the_contract_shape_and_default_to_name_order() {
    let (app, cookie) = setup().await;
    let (status, body) = get(&app, &cookie, "/admin/api/bands").await;
    assert_eq!(status, 200);
    assert_eq!(body["total"], 6);
    assert_eq!(body["limit"], 50);
    assert_eq!(body["offset"], 0);
    let names: Vec<&str> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "100% Fake_Band",
            "Band 666",
            "bathory",
            "Darkthrone",
            "Mayhem",
            "Trident"
        ]
    );
    let mayhem = &body["items"][4];
    let mut keys: Vec<&str> = mayhem
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let mut expected = vec![
        "ma_id",
        "name",
        "country",
        "location_text",
        "genre",
        "themes",
        "status",
        "formed_year",
        "lat",
        "lon",
        "enriched",
        "enrich_pending",
        "locked_fields",
        "locked",
        "has_conflict",
        "updated_at",
        "crawled_at",
        "url",
    ];
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert_eq!(
        mayhem["url"],
        "https://www.metal-archives.com/bands/Mayhem/1"
    );
    assert_eq!(mayhem["lat"], 59.9);
    assert_eq!(mayhem["locked"], false);
    let fake = &body["items"][0];
    assert_eq!(fake["locked"], true);
    assert_eq!(fake["has_conflict"], true);
    assert_eq!(fake["locked_fields"], json!(["genre"]));
}

#[tokio::test]
async fn each_filter_selects_what_it_says() {
    let (app, cookie) = setup().await;
    let cases: &[(&str, &[i64])] = &[
        ("q=MAY", &[1]),
        ("q=%25", &[3]),
        ("q=_", &[3]),
        ("q=666", &[5, 666]),
        ("q=%20%20", &[3, 5, 4, 2, 1, 666]),
        ("location_q=oslo", &[1]),
        ("location_q=viken", &[2]),
        ("themes_q=MISAN", &[2]),
        ("genre=black", &[4, 2, 1]),
        ("genre=BLACK/death", &[2]),
        ("country=norway", &[2, 1]),
        ("country=no", &[2, 1]),
        ("country=Se", &[3, 4]),
        ("country=Swe", &[]),
        ("status=split-up", &[3, 4]),
        ("status=split", &[]),
        ("has_lat=true", &[1]),
        ("has_lat=0", &[3, 5, 4, 2, 666]),
        ("has_location=1", &[5, 2, 1, 666]),
        ("has_location=false", &[3, 4]),
        ("has_conflict=true", &[3]),
        ("has_conflict=0", &[5, 4, 2, 1, 666]),
        ("genre=metal&country=fi&status=active", &[5]),
        ("q=", &[3, 5, 4, 2, 1, 666]),
    ];
    for (query, expected) in cases {
        assert_eq!(ids(&app, &cookie, query).await, *expected, "{query}");
    }
}

#[tokio::test]
async fn sorting_is_validated_and_stable() {
    let (app, cookie) = setup().await;
    assert_eq!(ids(&app, &cookie, "sort=ma_id").await, [1, 2, 3, 4, 5, 666]);
    assert_eq!(
        ids(&app, &cookie, "sort=-ma_id").await,
        [666, 5, 4, 3, 2, 1]
    );
    // NULL years last either way.
    assert_eq!(
        ids(&app, &cookie, "sort=formed_year").await,
        [1, 2, 3, 5, 666, 4]
    );
    assert_eq!(
        ids(&app, &cookie, "sort=-formed_year").await,
        [666, 5, 3, 2, 1, 4]
    );
    assert_eq!(
        ids(&app, &cookie, "sort=country").await,
        [5, 666, 1, 2, 3, 4]
    );
    assert_eq!(ids(&app, &cookie, "sort=-name").await, [666, 1, 2, 4, 5, 3]);
    assert_eq!(ids(&app, &cookie, "sort=updated_at").await.len(), 6);
}

#[tokio::test]
async fn paging_keeps_the_total_and_clamps_the_limit() {
    let (app, cookie) = setup().await;
    let (status, body) = get(
        &app,
        &cookie,
        "/admin/api/bands?sort=ma_id&limit=2&offset=1",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["total"], 6);
    assert_eq!(body["limit"], 2);
    assert_eq!(body["offset"], 1);
    let got: Vec<i64> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["ma_id"].as_i64().unwrap())
        .collect();
    assert_eq!(got, [2, 3]);
    let (_, body) = get(&app, &cookie, "/admin/api/bands?limit=9999&offset=10").await;
    assert_eq!(body["limit"], 500);
    assert_eq!(body["total"], 6);
    assert_eq!(body["items"], json!([]));
    // A selective filter (counted inside its page query): a page past the end still
    // reports the total, and a filter matching nothing reports 0.
    let (_, all) = get(&app, &cookie, "/admin/api/bands?has_conflict=false").await;
    let matching = all["total"].as_i64().unwrap();
    assert!(matching > 1, "{all}");
    let (_, body) = get(
        &app,
        &cookie,
        &format!("/admin/api/bands?has_conflict=false&offset={matching}"),
    )
    .await;
    assert_eq!(body["total"], matching);
    assert_eq!(body["items"], json!([]));
    let (_, body) = get(
        &app,
        &cookie,
        &format!(
            "/admin/api/bands?has_conflict=false&limit=1&offset={}",
            matching - 1
        ),
    )
    .await;
    assert_eq!(body["total"], matching);
    assert_eq!(body["items"].as_array().unwrap().len(), 1);
    let (_, body) = get(&app, &cookie, "/admin/api/bands?q=no-such-band-anywhere").await;
    assert_eq!(body["total"], 0);
    assert_eq!(body["items"], json!([]));
}

#[tokio::test]
async fn invalid_list_parameters_are_400() {
    let (app, cookie) = setup().await;
    let long = "x".repeat(101);
    for query in [
        "limit=abc".to_string(),
        "limit=1.5".to_string(),
        "offset=-1".to_string(),
        "has_lat=yes".to_string(),
        "has_location=TRUE".to_string(),
        "has_conflict=2".to_string(),
        "sort=bogus".to_string(),
        "sort=--name".to_string(),
        format!("country={long}"),
        format!("genre={long}"),
        format!("status={long}"),
    ] {
        let (status, body) = get(&app, &cookie, &format!("/admin/api/bands?{query}")).await;
        assert_eq!(status, 400, "{query}");
        assert_eq!(body["error"]["code"], "bad_request", "{query}");
    }
    // 100 characters is still fine.
    assert_eq!(
        ids(&app, &cookie, &format!("country={}", "x".repeat(100))).await,
        Vec::<i64>::new()
    );
}

#[tokio::test]
async fn text_searches_are_cut_to_100_characters() {
    let app = spawn_app().await;
    insert_band(
        &app,
        json!({"ma_id": 9, "name": "a".repeat(120),
        "location_text": "b".repeat(120), "themes": "c".repeat(120)}),
    )
    .await;
    let cookie = app.login().await;
    for key in ["q", "location_q", "themes_q"] {
        let letter = match key {
            "q" => "a",
            "location_q" => "b",
            _ => "c",
        };
        // Without the cut, 100 letters followed by "ZZZ" would match nothing.
        let query = format!("{key}={}ZZZ", letter.repeat(100));
        assert_eq!(ids(&app, &cookie, &query).await, [9], "{key}");
        let query = format!("{key}={}ZZZ", letter.repeat(99));
        assert_eq!(ids(&app, &cookie, &query).await, Vec::<i64>::new(), "{key}");
    }
}

#[tokio::test]
async fn detail_has_every_column_locations_and_llm_calls_without_nan() {
    let (app, cookie) = setup().await;
    sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, step_label, location_raw,
             country, lat, lon, geocode_status, geocode_granularity, provider, confidence,
             attempts, error, query)
         VALUES (1, 0, 0, 'origin', 'Oslo', 'Norway', 59.9, 10.7, 'done', 'city', 'gazetteer',
                 'NaN', 1, NULL, 'Oslo, Norway'),
                (1, 1, 1, 'later', 'Bergen', 'Norway', NULL, NULL, 'error', NULL, 'geoapify',
                 NULL, 2, 'HTTP 401', 'Bergen, Norway')",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO llm_cache (key, ma_id, location_raw, country, model, extraction,
             prompt_tokens, completion_tokens, cost_usd, prompt, response)
         VALUES ('k1', 1, 'Oslo', 'Norway', 'llama-3.3-70b-versatile',
                 '{\"city\": \"Oslo\", \"region\": null, \"country\": \"Norway\", \"confidence\": 0.9}',
                 100, 20, 'NaN', 'prompt text', 'response text'),
                ('k2', 1, 'Oslo', 'Norway', 'llama-3.1-8b-instant', NULL, 10, 2, 0.00012, 'p', 'r'),
                ('k3', 2, 'Kolbotn', 'Norway', 'm', NULL, 1, 1, 1, 'p', 'r')",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let (status, body) = get(&app, &cookie, "/admin/api/bands/1").await;
    assert_eq!(status, 200, "{body}");
    let band = &body["band"];
    for key in [
        "ma_id",
        "name",
        "country",
        "country_code",
        "location_text",
        "genre",
        "themes",
        "status",
        "formed_year",
        "label",
        "years_active",
        "lat",
        "lon",
        "geocode_status",
        "geocode_provider",
        "geocode_confidence",
        "geocode_location_id",
        "geocode_updated_at",
        "enriched",
        "enrich_pending",
        "locked_fields",
        "crawler_pending",
        "data",
        "band_page",
        "updated_at",
        "crawled_at",
        "crawled_hash",
        "ma_created_at",
        "ma_modified_at",
        "ma_modified_text",
        "first_seen_at",
        "url",
        "locked",
        "has_conflict",
    ] {
        assert!(band.get(key).is_some(), "band.{key} missing");
    }
    assert_eq!(band["crawler_pending"], json!({}));
    assert_eq!(band["url"], "https://www.metal-archives.com/bands/Mayhem/1");
    let locs = body["locations"].as_array().unwrap();
    assert_eq!(locs.len(), 2);
    assert_eq!(locs[0]["location_raw"], "Oslo");
    assert_eq!(locs[0]["status"], "done");
    assert_eq!(locs[0]["granularity"], "city");
    assert_eq!(locs[0]["confidence"], Value::Null, "NaN → null");
    assert_eq!(locs[1]["error"], "HTTP 401");
    assert_eq!(locs[1]["attempts"], 2);
    let mut keys: Vec<&str> = locs[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "attempts",
            "confidence",
            "country",
            "error",
            "granularity",
            "id",
            "lat",
            "location_raw",
            "lon",
            "provider",
            "query",
            "status",
            "step_label",
            "step_order"
        ]
    );
    let calls = body["llm_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "only this band's calls");
    assert_eq!(body["llm_calls_total"], 2, "the cap of 200 is never silent");
    let nan_call = calls
        .iter()
        .find(|c| c["model"] == "llama-3.3-70b-versatile")
        .unwrap();
    assert_eq!(nan_call["cost_usd"], Value::Null);
    assert_eq!(nan_call["extraction"]["city"], "Oslo");
    assert_eq!(nan_call["prompt"], "prompt text");
    assert_eq!(nan_call["response"], "response text");
    assert_eq!(nan_call["prompt_tokens"], 100);
    let cheap = calls
        .iter()
        .find(|c| c["model"] == "llama-3.1-8b-instant")
        .unwrap();
    assert_eq!(cheap["cost_usd"], 0.00012);

    let (status, body) = get(&app, &cookie, "/admin/api/bands/424242").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let (status, _) = get(&app, &cookie, "/admin/api/bands/abc").await;
    assert_eq!(status, 400);
    let (status, _) = get(&app, &cookie, "/admin/api/bands/99999999999999999999").await;
    assert_eq!(status, 400);
}

async fn audit_rows(app: &TestApp) -> Vec<(String, String, String, Value, Value)> {
    sqlx::query_as(
        "SELECT username, action, target, before, after FROM admin_audit_log ORDER BY id",
    )
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn patch_locks_edited_fields_and_clears_only_their_conflicts() {
    let (app, cookie) = setup().await;
    let (status, band) = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/bands/3",
        json!({"status": "Active\u{7}", "formed_year": 1991}),
    )
    .await;
    assert_eq!(status, 200, "{band}");
    assert_eq!(band["ma_id"], 3);
    assert_eq!(band["status"], "Active", "control character removed");
    assert_eq!(band["formed_year"], 1991);
    assert_eq!(band["genre"], "Doom Metal");
    assert_eq!(
        band["locked_fields"],
        json!(["genre", "status", "formed_year"])
    );
    assert_eq!(
        band["crawler_pending"],
        json!({"genre": "Sludge"}),
        "the untouched field keeps its conflict"
    );
    let audit = audit_rows(&app).await;
    assert_eq!(audit.len(), 1);
    let (user, action, target, before, after) = &audit[0];
    assert_eq!(
        (user.as_str(), action.as_str(), target.as_str()),
        ("admin", "band.patch", "band:3")
    );
    assert_eq!(*before, json!({"status": "Split-up", "formed_year": 1990}));
    assert_eq!(*after, json!({"status": "Active", "formed_year": 1991}));
    let log: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM crawl_log WHERE message LIKE '%band.patch%band:3%'",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(log, 1);

    // Clearing a field with null, and a lock already held is not duplicated.
    let (status, band) = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/bands/3",
        json!({"themes": "War\nDeath", "status": null}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(band["status"], Value::Null);
    assert_eq!(band["themes"], "War\nDeath");
    assert_eq!(
        band["locked_fields"],
        json!(["genre", "status", "formed_year", "themes"])
    );
}

#[tokio::test]
async fn a_new_country_moves_the_country_code_for_patch_and_accept() {
    let (app, cookie) = setup().await;
    let (status, band) = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/bands/1",
        json!({"country": "Sweden"}),
    )
    .await;
    assert_eq!(status, 200, "{band}");
    assert_eq!(band["country_code"], "SE");
    assert!(ids(&app, &cookie, "country=SE").await.contains(&1));
    assert!(!ids(&app, &cookie, "country=NO").await.contains(&1));

    // An upstream value accepted through a conflict moves the code the same way.
    sqlx::query("UPDATE bands SET crawler_pending = '{\"country\": \"Finland\"}' WHERE ma_id = 1")
        .execute(&app.db.pool)
        .await
        .unwrap();
    let (status, band) = resolve(&app, &cookie, 1, "country", "accept").await;
    assert_eq!(status, 200, "{band}");
    assert_eq!(
        (band["country"].as_str(), band["country_code"].as_str()),
        (Some("Finland"), Some("FI"))
    );
    assert!(ids(&app, &cookie, "country=fi").await.contains(&1));
}

#[tokio::test]
async fn patch_of_location_text_drops_the_old_location_rows() {
    let (app, cookie) = setup().await;
    sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw)
         VALUES (2, 0, 0, 'Kolbotn')",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let (status, band) = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/bands/2",
        json!({"location_text": "Oslo"}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(band["location_text"], "Oslo");
    let (_, detail) = get(&app, &cookie, "/admin/api/bands/2").await;
    assert_eq!(
        detail["locations"],
        json!([]),
        "rule 20 re-enqueues the band"
    );
}

#[tokio::test]
async fn invalid_patches_are_refused_and_write_nothing() {
    let (app, cookie) = setup().await;
    for body in [
        json!({}),
        json!({"label": "x"}),
        json!({"genre": "x", "crawler_pending": {}}),
        json!({"formed_year": "1990"}),
        json!({"formed_year": 19.5}),
        json!({"formed_year": 1850}),
        json!({"formed_year": 99999}),
        json!({"name": null}),
        json!({"name": "  \u{1}  "}),
        json!({"genre": 7}),
        json!({"genre": "x".repeat(301)}),
        json!(["genre"]),
        json!("genre"),
    ] {
        let (status, res) = send(
            &app,
            &cookie,
            Method::PATCH,
            "/admin/api/bands/3",
            body.clone(),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(res["error"]["code"], "bad_request");
    }
    let (status, _) = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/bands/77",
        json!({"genre": "x"}),
    )
    .await;
    assert_eq!(status, 404);
    assert!(audit_rows(&app).await.is_empty());
    let (_, d) = get(&app, &cookie, "/admin/api/bands/3").await;
    assert_eq!(d["band"]["locked_fields"], json!(["genre"]));
}

async fn resolve(
    app: &TestApp,
    cookie: &str,
    ma_id: i64,
    field: &str,
    action: &str,
) -> (u16, Value) {
    send(
        app,
        cookie,
        Method::POST,
        &format!("/admin/api/bands/{ma_id}/resolve-conflict"),
        json!({"field": field, "action": action}),
    )
    .await
}

#[tokio::test]
async fn accept_writes_the_upstream_value_and_unlocks() {
    let (app, cookie) = setup().await;
    let (status, band) = resolve(&app, &cookie, 3, "genre", "accept").await;
    assert_eq!(status, 200, "{band}");
    assert_eq!(band["genre"], "Sludge");
    assert_eq!(band["locked_fields"], json!([]));
    assert_eq!(band["crawler_pending"], json!({"status": "Active"}));
    assert_eq!(band["status"], "Split-up", "other conflicts untouched");
    let audit = audit_rows(&app).await;
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].1, "band.resolve_conflict.accept");
    assert_eq!(audit[0].3["genre"], "Doom Metal");
    assert_eq!(audit[0].4["genre"], "Sludge");
    // Resolved: a second resolution has nothing to resolve.
    let (status, body) = resolve(&app, &cookie, 3, "genre", "accept").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("conflict"))
    );
}

#[tokio::test]
async fn keep_keeps_the_admin_value_locked() {
    let (app, cookie) = setup().await;
    let (status, band) = resolve(&app, &cookie, 3, "genre", "keep").await;
    assert_eq!(status, 200);
    assert_eq!(band["genre"], "Doom Metal");
    assert_eq!(band["locked_fields"], json!(["genre"]));
    assert_eq!(band["crawler_pending"], json!({"status": "Active"}));
    // A conflict on a field that was not locked: keep locks it.
    let (status, band) = resolve(&app, &cookie, 3, "status", "keep").await;
    assert_eq!(status, 200);
    assert_eq!(band["locked_fields"], json!(["genre", "status"]));
    assert_eq!(band["crawler_pending"], json!({}));
    assert_eq!(band["has_conflict"], false);
    let actions: Vec<String> = audit_rows(&app).await.into_iter().map(|r| r.1).collect();
    assert_eq!(
        actions,
        ["band.resolve_conflict.keep", "band.resolve_conflict.keep"]
    );
}

#[tokio::test]
async fn resolve_validates_field_action_band_and_cast() {
    let (app, cookie) = setup().await;
    for (field, action) in [
        ("label", "keep"),
        ("crawler_pending", "accept"),
        ("genre", "maybe"),
        ("", "keep"),
    ] {
        let (status, _) = resolve(&app, &cookie, 3, field, action).await;
        assert_eq!(status, 400, "{field} {action}");
    }
    let (status, _) = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/bands/3/resolve-conflict",
        json!({"field": "genre", "action": "keep", "extra": 1}),
    )
    .await;
    assert_eq!(status, 400);
    let (status, _) = resolve(&app, &cookie, 3, "name", "keep").await;
    assert_eq!(status, 409, "no conflict on name");
    let (status, _) = resolve(&app, &cookie, 404404, "genre", "keep").await;
    assert_eq!(status, 404);

    sqlx::query("UPDATE bands SET crawler_pending = '{\"formed_year\": \"1995\"}', locked_fields = '{formed_year}' WHERE ma_id = 1")
        .execute(&app.db.pool).await.unwrap();
    let (status, band) = resolve(&app, &cookie, 1, "formed_year", "accept").await;
    assert_eq!(status, 200);
    assert_eq!(band["formed_year"], 1995, "cast to integer");

    sqlx::query(
        "UPDATE bands SET crawler_pending = '{\"formed_year\": \"early 90s\"}' WHERE ma_id = 2",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let (status, body) = resolve(&app, &cookie, 2, "formed_year", "accept").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("bad_request"))
    );
    let (_, d) = get(&app, &cookie, "/admin/api/bands/2").await;
    assert_eq!(
        d["band"]["crawler_pending"],
        json!({"formed_year": "early 90s"}),
        "nothing written"
    );
    assert_eq!(d["band"]["formed_year"], 1986);
    // keep is always possible.
    let (status, _) = resolve(&app, &cookie, 2, "formed_year", "keep").await;
    assert_eq!(status, 200);
}
