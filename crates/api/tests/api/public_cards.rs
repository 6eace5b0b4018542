//! `GET /api/bands/{ma_id}` and `GET /api/search` against PostGIS.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::{TestApp, spawn_app};
use serde_json::{Value, json};

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year, lat, lon, data) VALUES
 (1, 'Alpha', 'Black Metal', 'Norway', 'NO', 'Active', 1991, 59.91, 10.75,
     '{"url": "https://www.metal-archives.com/bands/Alpha/1"}'),
 (2, 'Alphabet', 'Death Metal', 'Sweden', 'SE', 'Split-up', 1988, NULL, NULL, '{}'),
 (3, 'The Alp', NULL, NULL, NULL, NULL, NULL, NULL, NULL, '{}'),
 (4, '100%_Noise', 'Noise', NULL, NULL, NULL, NULL, NULL, NULL, '{}');
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) VALUES
 (13, 1, 2, 2, 'last', 'Nowhere', 1.0, 1.0, 'pending'),
 (11, 1, 0, 0, 'origin', 'Oslo', 59.91, 10.75, 'done'),
 (12, 1, 1, 1, 'later', 'Stockholm', 59.33, 18.07, 'country_only');
"#;

async fn seeded() -> TestApp {
    let app = spawn_app().await;
    sqlx::raw_sql(SEED).execute(&app.db.pool).await.unwrap();
    // What the database's notification says a moment later, said now: the search must not
    // answer from a copy loaded before the seed (tests/api/public_search_memory.rs tests the
    // copy itself).
    app.state.read.name_search.changed();
    app
}

async fn get(app: &TestApp, path: &str) -> reqwest::Response {
    app.client.get(app.url(path)).send().await.unwrap()
}

#[tokio::test]
async fn band_card_lists_steps_in_order() {
    let app = seeded().await;
    let res = get(&app, "/api/bands/1").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["cache-control"], "public, max-age=30");
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body,
        json!({"ma_id": 1, "name": "Alpha", "genre": "Black Metal", "country": "Norway",
        "status": "Active", "formed_year": 1991,
        "url": "https://www.metal-archives.com/bands/Alpha/1",
        "steps": [
          {"location_id": 11, "step_order": 0, "step_label": "origin", "location_raw": "Oslo", "lat": 59.91, "lon": 10.75},
          {"location_id": 12, "step_order": 1, "step_label": "later", "location_raw": "Stockholm", "lat": 59.33, "lon": 18.07},
          {"location_id": 13, "step_order": 2, "step_label": "last", "location_raw": "Nowhere", "lat": null, "lon": null}
        ]})
    );
}

#[tokio::test]
async fn band_card_builds_the_url_and_handles_unknown_and_bad_ids() {
    let app = seeded().await;
    let body: Value = get(&app, "/api/bands/2").await.json().await.unwrap();
    assert!(
        body["url"].as_str().unwrap().ends_with("/bands/_/2"),
        "{body}"
    );
    assert_eq!(body["steps"], json!([]));
    let res = get(&app, "/api/bands/999").await;
    assert_eq!(res.status(), 404);
    let e: Value = res.json().await.unwrap();
    assert_eq!(e["error"]["code"], "not_found");
    for bad in ["abc", "1.5", "99999999999999999999"] {
        let res = get(&app, &format!("/api/bands/{bad}")).await;
        assert_eq!(res.status(), 400, "{bad}");
        let e: Value = res.json().await.unwrap();
        assert_eq!(e["error"]["code"], "bad_request");
    }
}

#[tokio::test]
async fn a_manual_override_keeps_the_place_of_its_step() {
    let app = seeded().await;
    // Band 1's middle step corrected by an admin (step_order -1, as PATCH
    // /admin/api/locations/:id leaves it); a lower id than the origin so that neither the
    // id nor step_order can put it at its place by chance.
    sqlx::raw_sql(
        "DELETE FROM band_locations WHERE id = 12;
         INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status)
         VALUES (5, 1, -1, 1, 'later', 'Uppsala', 59.86, 17.64, 'done');",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let body: Value = get(&app, "/api/bands/1").await.json().await.unwrap();
    let steps: Vec<(i64, i64)> = body["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["location_id"].as_i64().unwrap(),
                s["step_order"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(steps, vec![(11, 0), (5, -1), (13, 2)]);
}

#[tokio::test]
async fn card_etag_follows_the_content() {
    let app = seeded().await;
    let etag = get(&app, "/api/bands/1").await.headers()["etag"]
        .to_str()
        .unwrap()
        .to_string();
    sqlx::query("UPDATE bands SET genre = 'Doom Metal' WHERE ma_id = 1")
        .execute(&app.db.pool)
        .await
        .unwrap();
    let after = app
        .client
        .get(app.url("/api/bands/1"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 200);
    assert_ne!(after.headers()["etag"].to_str().unwrap(), etag);
}

#[tokio::test]
async fn card_etag_gives_304() {
    let app = seeded().await;
    let res = get(&app, "/api/bands/1").await;
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let again = app
        .client
        .get(app.url("/api/bands/1"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
}

#[tokio::test]
async fn search_matches_substrings_with_primary_point() {
    let app = seeded().await;
    let body: Value = get(&app, "/api/search?q=ALP").await.json().await.unwrap();
    let items = body["items"].as_array().unwrap();
    let names: Vec<&str> = items.iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Alpha", "Alphabet", "The Alp"]);
    assert_eq!(
        items[0],
        json!({"ma_id": 1, "name": "Alpha", "country": "Norway", "genre": "Black Metal", "lat": 59.91, "lon": 10.75})
    );
    assert_eq!(items[1]["lat"], Value::Null);
    // Exact names first.
    let body: Value = get(&app, "/api/search?q=the%20alp")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["items"][0]["name"], "The Alp");
    // LIKE wildcards are literal.
    let body: Value = get(&app, "/api/search?q=%25_").await.json().await.unwrap();
    assert_eq!(body["items"].as_array().unwrap().len(), 1);
    let body: Value = get(&app, "/api/search?q=_").await.json().await.unwrap();
    assert_eq!(body["items"][0]["name"], "100%_Noise");
    let body: Value = get(&app, "/api/search?q=zzz").await.json().await.unwrap();
    assert_eq!(body["items"], json!([]));
}

#[tokio::test]
async fn search_returns_at_most_20_and_requires_q() {
    let app = seeded().await;
    sqlx::query("INSERT INTO bands (ma_id, name) SELECT 100 + g, 'Echo ' || g FROM generate_series(1, 30) g")
        .execute(&app.db.pool)
        .await
        .unwrap();
    app.state.read.name_search.changed();
    let body: Value = get(&app, "/api/search?q=echo").await.json().await.unwrap();
    assert_eq!(body["items"].as_array().unwrap().len(), 20);
    for q in ["", "?q=", "?q=%20%20", "?q=%01"] {
        let res = get(&app, &format!("/api/search{q}")).await;
        assert_eq!(res.status(), 400, "{q}");
        let e: Value = res.json().await.unwrap();
        assert_eq!(e["error"]["code"], "bad_request");
    }
}

#[tokio::test]
async fn a_step_naming_a_region_alone_says_so_on_the_card() {
    // Issue 30: the geocoder notes a region alone; the card says "région seulement" for it
    // (and only for it) instead of "not located".
    let app = seeded().await;
    sqlx::query(
        "INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, geocode_status, error)
         VALUES (14, 2, 0, 0, 'origin', 'Uusimaa', 'pending',
                 'gazetteer: Uusimaa names a region only (Uusimaa): région seulement'),
                (15, 2, 1, 1, 'later', 'Nowhere', 'pending', 'gazetteer: Nowhere not found')",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let body: Value = get(&app, "/api/bands/2").await.json().await.unwrap();
    let steps = body["steps"].as_array().unwrap();
    assert_eq!(steps[0]["region_only"], true, "{body}");
    assert!(steps[1].get("region_only").is_none(), "{body}");
    let located: Value = get(&app, "/api/bands/1").await.json().await.unwrap();
    assert!(located["steps"][0].get("region_only").is_none());
}
