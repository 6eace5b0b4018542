//! `GET /api/clusters` against PostGIS: every parameter, every bad input, the counted
//! statuses, one point per located step, filters, zoom ≥ 17, bounds, caching and refresh.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::{TestApp, spawn_app};
use serde_json::Value;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year, lat, lon) VALUES
 (1, 'Alpha', 'Black Metal', 'Norway', 'NO', 'Active', 1991, 59.91, 10.75),
 (2, 'Beta', 'Death Metal', 'Sweden', 'SE', 'Split-up', 1988, 59.33, 18.07),
 (3, 'Gamma', 'Heavy/Power Metal', 'France', 'FR', 'Active', 2005, 48.86, 2.35),
 (4, 'Delta 100%_', 'Grind 100%', NULL, NULL, NULL, NULL, -33.87, 151.2);
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) VALUES
 (11, 1, 0, 0, 'origin', 'Oslo', 59.91, 10.75, 'done'),
 (12, 1, 1, 1, 'later', 'Stockholm', 59.33, 18.07, 'done'),
 (21, 2, 0, 0, NULL, 'Sweden', 59.33, 18.07, 'country_only'),
 (31, 3, 0, 0, 'origin', 'Paris', 48.86, 2.35, 'done'),
 (32, 3, 1, 1, 'later', 'Berlin', 52.5, 13.4, 'pending'),
 (33, 3, 2, 2, 'last', 'Madrid', 40.4, -3.7, 'error'),
 (34, 3, 3, 3, NULL, 'Rome', 41.9, 12.5, 'manual'),
 (41, 4, 0, 0, NULL, 'Sydney', -33.87, 151.2, 'done');
"#;

/// Brings the app's index up to the committed data. The app's own refresher may already
/// have rebuilt it on the change notification, so whether *this* call rebuilds is a race;
/// what must hold is that afterwards the snapshot is at least the data version.
async fn catch_up(app: &TestApp) {
    let target = bandmap_index::map::data_version(&app.db.pool)
        .await
        .unwrap();
    app.state.read.map.refresh(&app.state.pool).await.unwrap();
    assert!(
        app.state.read.map.current().version >= target,
        "the index did not reach data version {target}"
    );
}

/// The app with the seed loaded into its index. An unconditional reload: these tests are
/// about the answers, and whether a refresh racing the app's own refresher sees the change
/// is the subject of `crates/index/tests/refresh.rs` (under load one run here once found
/// the index empty after `refresh`; see the stop-21 closing note).
async fn seeded() -> TestApp {
    let app = spawn_app().await;
    sqlx::raw_sql(SEED).execute(&app.db.pool).await.unwrap();
    app.state.read.map.reload(&app.state.pool).await.unwrap();
    app
}

async fn get(app: &TestApp, query: &str) -> reqwest::Response {
    app.client
        .get(app.url(&format!("/api/clusters{query}")))
        .send()
        .await
        .unwrap()
}

async fn features(app: &TestApp, query: &str) -> Vec<Value> {
    let res = get(app, query).await;
    assert_eq!(res.status(), 200, "{query}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["type"], "FeatureCollection");
    body["features"].as_array().unwrap().clone()
}

fn total(features: &[Value]) -> u64 {
    features
        .iter()
        .map(|f| {
            let p = &f["properties"];
            if p["cluster"] == true {
                p["count"].as_u64().unwrap()
            } else {
                1
            }
        })
        .sum()
}

async fn count(app: &TestApp, query: &str) -> u64 {
    total(&features(app, query).await)
}

#[tokio::test]
async fn bad_inputs_answer_json_400() {
    let app = spawn_app().await;
    for q in [
        "?bbox=1,2,3",
        "?bbox=1,2,3,4,5",
        "?bbox=a,b,c,d",
        "?bbox=1,,3,4",
        "?bbox=NaN,0,1,1",
        "?bbox=-inf,0,1,1",
        "?bbox=-181,0,0,1",
        "?bbox=0,-91,1,1",
        "?bbox=0,0,181,1",
        "?bbox=0,0,1,91",
        "?bbox=5,0,4,1",
        "?bbox=0,5,1,4",
        "?zoom=21",
        "?zoom=-1",
        "?zoom=abc",
        "?zoom=3.5",
        "?year_min=x",
        "?year_max=1990.5",
        "?year_min=99999999999",
        format!("?genre={}", "g".repeat(101)).as_str(),
        format!("?country={}", "é".repeat(101)).as_str(),
        format!("?status={}", "s".repeat(101)).as_str(),
    ] {
        let res = get(&app, q).await;
        assert_eq!(res.status(), 400, "{q}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "bad_request", "{q}");
        assert!(body["error"]["message"].as_str().unwrap().len() > 5);
    }
}

#[tokio::test]
async fn only_done_and_country_only_rows_count_one_point_per_step() {
    let app = seeded().await;
    // Oslo + Stockholm (band 1, two steps), Sweden (band 2), Paris, Sydney.
    assert_eq!(count(&app, "").await, 5);
    assert_eq!(count(&app, "?zoom=0").await, 5);
    assert_eq!(count(&app, "?zoom=20&bbox=-10,35,30,70").await, 4);
    // Band 1 has two located steps: two points.
    let f = features(&app, "?zoom=17&bbox=10,59,19,60").await;
    let ids: Vec<i64> = f
        .iter()
        .map(|f| f["properties"]["location_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![11, 12, 21]);
}

#[tokio::test]
async fn default_answer_shape_and_headers() {
    let app = seeded().await;
    let res = get(&app, "?zoom=0").await;
    assert_eq!(res.status(), 200);
    let h = res.headers();
    assert_eq!(h["content-type"], "application/geo+json");
    assert_eq!(h["cache-control"], "public, max-age=30");
    assert!(h["etag"].to_str().unwrap().starts_with("W/\"m"));
    let body: Value = res.json().await.unwrap();
    let f = body["features"].as_array().unwrap();
    // Zoom 0: the four European points share a cell (they split at zoom 2); Sydney is alone.
    assert_eq!(f.len(), 2);
    let cluster = f
        .iter()
        .find(|f| f["properties"]["cluster"] == true)
        .unwrap();
    assert_eq!(cluster["type"], "Feature");
    assert_eq!(cluster["geometry"]["type"], "Point");
    assert_eq!(cluster["properties"]["count"], 4);
    assert_eq!(cluster["properties"]["expansion_zoom"], 2);
    let lon = cluster["geometry"]["coordinates"][0].as_f64().unwrap();
    assert!((lon - (10.75 + 18.07 + 18.07 + 2.35) / 4.0).abs() < 1e-9);
    assert_eq!(
        cluster["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec!["cluster", "count", "expansion_zoom"]
    );
    // Zoom 3 (the default): Oslo and Stockholm fall apart, the two Stockholm points merge.
    let f = features(&app, "").await;
    assert_eq!(f.len(), 4);
    let pair = f
        .iter()
        .find(|f| f["properties"]["cluster"] == true)
        .unwrap();
    assert_eq!(pair["properties"]["count"], 2);
    assert_eq!(pair["properties"]["expansion_zoom"], 17);
}

#[tokio::test]
async fn single_point_carries_band_and_step_fields() {
    let app = seeded().await;
    let f = features(&app, "?zoom=12&bbox=2,48,3,49").await;
    assert_eq!(f.len(), 1);
    assert_eq!(
        f[0]["geometry"]["coordinates"],
        serde_json::json!([2.35, 48.86])
    );
    assert_eq!(
        f[0]["properties"],
        serde_json::json!({"cluster": false, "ma_id": 3, "name": "Gamma",
            "genre": "Heavy/Power Metal", "country": "France", "status": "Active",
            "formed_year": 2005, "location_id": 31, "location_raw": "Paris",
            "step_label": "origin", "step_order": 0})
    );
    let f = features(&app, "?zoom=12&bbox=150,-34,152,-33").await;
    assert_eq!(f[0]["properties"]["genre"], "Grind 100%");
    assert_eq!(f[0]["properties"]["country"], Value::Null);
    assert_eq!(f[0]["properties"]["formed_year"], Value::Null);
    assert_eq!(f[0]["properties"]["step_label"], Value::Null);
}

#[tokio::test]
async fn identical_points_merge_up_to_16_and_split_from_17() {
    let app = seeded().await;
    let bbox = "bbox=18,59,18.1,59.4";
    let f = features(&app, &format!("?zoom=16&{bbox}")).await;
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["properties"]["cluster"], true);
    assert_eq!(f[0]["properties"]["count"], 2);
    assert_eq!(f[0]["properties"]["expansion_zoom"], 17);
    for zoom in [17, 18, 20] {
        let f = features(&app, &format!("?zoom={zoom}&{bbox}")).await;
        assert_eq!(f.len(), 2, "zoom {zoom}");
        assert!(f.iter().all(|f| f["properties"]["cluster"] == false));
        assert_eq!(f[0]["geometry"], f[1]["geometry"]);
    }
}

#[tokio::test]
async fn every_filter_applies_at_query_time() {
    let app = seeded().await;
    let cases = [
        ("genre=black", 2),
        ("genre=METAL", 4),
        ("genre=%25", 1),
        ("genre=_", 0),
        ("genre=%20%20", 5),
        ("country=no", 2),
        ("country=Sweden", 1),
        ("country=sweden&genre=black", 0),
        ("country=FR", 1),
        ("status=active", 3),
        ("status=SPLIT-UP", 1),
        ("status=split", 0),
        ("year_min=1990", 3),
        ("year_max=1990", 1),
        ("year_min=1990&year_max=2000", 2),
        ("year_min=2006", 0),
        ("bbox=2,48,3,49", 1),
        ("bbox=-180,-90,0,0", 0),
        ("bbox=10.75,59.91,10.75,59.91", 1),
    ];
    for (q, want) in cases {
        for zoom in [0, 3, 10, 17] {
            let got = count(&app, &format!("?zoom={zoom}&{q}")).await;
            assert_eq!(got, want, "{q} at zoom {zoom}");
        }
    }
}

#[tokio::test]
async fn response_size_is_bounded() {
    let app = spawn_app().await;
    sqlx::raw_sql(
        "INSERT INTO bands (ma_id, name) SELECT g, 'B' || g FROM generate_series(1, 12000) g;
         INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status)
         SELECT g, 0, 0, 'x', -60 + (g % 120), -179 + (g * 7 % 358) + (g % 13) / 10.0, 'done'
         FROM generate_series(1, 6000) g;
         INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status)
         SELECT g, 0, 0, 'town', 50.0, 5.0, 'done' FROM generate_series(6001, 12000) g;",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    app.state.read.map.refresh(&app.state.pool).await.unwrap();
    for zoom in [0, 3, 8, 12, 16] {
        let f = features(&app, &format!("?zoom={zoom}")).await;
        assert!(f.len() <= 4096, "zoom {zoom}: {}", f.len());
        assert_eq!(total(&f), 12000, "zoom {zoom}");
    }
    for zoom in [17, 20] {
        let res = get(&app, &format!("?zoom={zoom}")).await;
        let body: Value = res.json().await.unwrap();
        let f = body["features"].as_array().unwrap();
        assert_eq!(f.len(), 5000, "zoom {zoom}");
        assert!(f.iter().all(|f| f["properties"]["cluster"] == false));
        assert_eq!(body["truncated"], true);
    }
    let f = features(&app, "?zoom=17&bbox=-180,-90,0,90").await;
    assert!(f.len() < 5000);
    // One town with 6,000 bands at zoom 17: every point on its own, capped at 5,000.
    let res = get(&app, "?zoom=17&bbox=4.99,49.99,5.01,50.01").await;
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["features"].as_array().unwrap().len(), 5000);
    assert_eq!(body["truncated"], true);
}

#[tokio::test]
async fn etag_gives_304_until_the_data_changes() {
    let app = seeded().await;
    let res = get(&app, "?zoom=5").await;
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let again = app
        .client
        .get(app.url("/api/clusters?zoom=5"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    let other = get(&app, "?zoom=6").await;
    assert_ne!(other.headers()["etag"].to_str().unwrap(), etag);

    sqlx::query("UPDATE bands SET genre = 'Black Metal' WHERE ma_id = 2")
        .execute(&app.db.pool)
        .await
        .unwrap();
    catch_up(&app).await;
    let after = app
        .client
        .get(app.url("/api/clusters?zoom=5"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), 200);
    assert_ne!(after.headers()["etag"].to_str().unwrap(), etag);
}

#[tokio::test]
async fn filters_of_100_characters_are_accepted() {
    let app = seeded().await;
    for name in ["genre", "country", "status"] {
        assert_eq!(
            count(&app, &format!("?{name}={}", "é".repeat(100))).await,
            0
        );
    }
}

async fn etag_of(app: &TestApp, query: &str) -> String {
    let res = get(app, query).await;
    assert_eq!(res.status(), 200);
    res.headers()["etag"].to_str().unwrap().to_string()
}

#[tokio::test]
async fn etag_follows_the_served_content_not_the_counter() {
    let app = seeded().await;
    let before = etag_of(&app, "?zoom=5").await;
    // Same content rebuilt (another replica, or a reload): the same validator.
    app.state.read.map.reload(&app.state.pool).await.unwrap();
    assert_eq!(etag_of(&app, "?zoom=5").await, before);

    // New rows committed without moving the counter, as when a writer that was in flight
    // at load time commits afterwards: the triggers are skipped for this transaction.
    let version = app.state.read.map.current().version;
    sqlx::raw_sql(
        "BEGIN; SET LOCAL session_replication_role = replica;
         UPDATE bands SET name = 'Alpha Renamed' WHERE ma_id = 1; COMMIT;",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        bandmap_index::map::data_version(&app.db.pool)
            .await
            .unwrap(),
        version
    );
    app.state.read.map.reload(&app.state.pool).await.unwrap();
    assert_eq!(app.state.read.map.current().version, version);
    let res = app
        .client
        .get(app.url("/api/clusters?zoom=5"))
        .header("if-none-match", &before)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "new content must not be answered 304");
    assert_ne!(res.headers()["etag"].to_str().unwrap(), before);
}

async fn encoded(app: &TestApp, query: &str, encoding: &str) -> reqwest::Response {
    app.client
        .get(app.url(&format!("/api/clusters{query}")))
        .header("accept-encoding", encoding)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn answers_are_compressed_when_the_client_accepts_it() {
    let app = seeded().await;
    // Big enough to be worth compressing: every point on its own.
    let q = "?zoom=17";
    let plain = encoded(&app, q, "identity").await;
    assert_eq!(plain.status(), 200);
    assert!(plain.headers().get("content-encoding").is_none());
    let etag = plain.headers()["etag"].clone();
    let plain = plain.bytes().await.unwrap();
    assert_eq!(plain[0], b'{');
    for (accept, want) in [
        ("gzip", "gzip"),
        ("br", "br"),
        ("br;q=1.0, gzip;q=0.5", "br"),
        ("gzip, deflate, br, zstd", "br"),
        ("br;q=0.2, gzip;q=0.9", "gzip"),
    ] {
        let res = encoded(&app, q, accept).await;
        assert_eq!(res.status(), 200, "{accept}");
        let h = res.headers();
        assert_eq!(h["content-encoding"], want, "{accept}");
        assert_eq!(h["content-type"], "application/geo+json");
        assert_eq!(h["etag"], etag, "{accept}: one answer, one ETag");
        let vary = h["vary"].to_str().unwrap().to_ascii_lowercase();
        assert!(vary.contains("accept-encoding"), "{accept}: {vary}");
        let body = res.bytes().await.unwrap();
        assert!(
            body.len() < plain.len(),
            "{accept}: {} ≥ {}",
            body.len(),
            plain.len()
        );
        assert_eq!(decode(&body, want), plain.to_vec(), "{accept}: round trip");
    }
    // Compressed once per coding, then answered from what was kept.
    let kept = app.state.read.encoded.len();
    assert!(kept >= 2, "{kept} compressed answers kept");
    let again = encoded(&app, q, "br").await.bytes().await.unwrap();
    assert_eq!(decode(&again, "br"), plain.to_vec());
    assert_eq!(
        app.state.read.encoded.len(),
        kept,
        "the repeat compressed again"
    );
    // A coding refused or unknown: the body as written.
    for accept in ["br;q=0, gzip;q=0", "zstd", "deflate"] {
        let res = encoded(&app, q, accept).await;
        assert!(res.headers().get("content-encoding").is_none(), "{accept}");
        assert_eq!(res.bytes().await.unwrap(), plain, "{accept}");
    }
}

/// Decompresses a body in `coding` (`gzip` or `br`).
fn decode(data: &[u8], coding: &str) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    match coding {
        "gzip" => flate2::read::GzDecoder::new(data).read_to_end(&mut out),
        "br" => brotli::Decompressor::new(data, 4096).read_to_end(&mut out),
        other => panic!("no decoder for {other}"),
    }
    .unwrap();
    out
}

#[tokio::test]
async fn refresh_sees_inserts_updates_and_deletes() {
    let app = seeded().await;
    assert!(
        !app.state.read.map.refresh(&app.state.pool).await.unwrap(),
        "no change, no rebuild"
    );
    sqlx::raw_sql(
        "INSERT INTO bands (ma_id, name, genre) VALUES (5, 'Epsilon', 'Black Metal');
         INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status)
         VALUES (5, 0, 0, 'Bergen', 60.39, 5.32, 'done');",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    catch_up(&app).await;
    assert_eq!(count(&app, "?genre=black").await, 3);
    sqlx::query("UPDATE band_locations SET geocode_status = 'pending' WHERE id = 31")
        .execute(&app.db.pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM bands WHERE ma_id = 4")
        .execute(&app.db.pool)
        .await
        .unwrap();
    app.state.read.map.refresh(&app.state.pool).await.unwrap();
    assert_eq!(count(&app, "").await, 4);
}

#[tokio::test]
async fn background_task_picks_up_changes() {
    let app = seeded().await;
    sqlx::raw_sql(
        "INSERT INTO bands (ma_id, name) VALUES (6, 'Zeta');
         INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status)
         VALUES (6, 0, 0, 'Turku', 60.45, 22.27, 'done');",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let target = bandmap_index::map::data_version(&app.db.pool)
        .await
        .unwrap();
    // Wait on the version (LISTEN/NOTIFY or the poll), not on a fixed delay.
    let mut waited = 0;
    while app.state.read.map.current().version < target {
        assert!(waited < 600, "the refresh task never caught up");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        waited += 1;
    }
    assert_eq!(count(&app, "").await, 6);
}

#[tokio::test]
async fn routes_are_in_the_openapi_document() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    for path in ["/api/clusters", "/api/bands/{ma_id}", "/api/search"] {
        assert!(doc["paths"][path]["get"].is_object(), "{path}");
    }
    let params: Vec<&str> = doc["paths"]["/api/clusters"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        params,
        [
            "bbox",
            "zoom",
            "country",
            "status",
            "genre",
            "year_min",
            "year_max",
            "family",
            "breakdown"
        ]
    );
}

/// The query strings answered lately are remembered parsed (`clusters::memo`): a string
/// asked again answers what it answered, another spelling of the same view answers the same
/// bytes under the same ETag, and a refused string is refused every time.
#[tokio::test]
async fn a_remembered_query_answers_as_a_parsed_one() {
    let app = seeded().await;
    let first = get(&app, "?zoom=5&genre=black&bbox=-10,40,30,60").await;
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    let body = first.bytes().await.unwrap();
    for query in [
        "?zoom=5&genre=black&bbox=-10,40,30,60",
        "?bbox=-10,40,30,60&genre=black&zoom=5",
        "?bbox=-10.0,40,30,60.000&genre=black&zoom=5",
    ] {
        let again = get(&app, query).await;
        assert_eq!(again.status(), 200, "{query}");
        assert_eq!(again.headers()["etag"].to_str().unwrap(), etag, "{query}");
        assert_eq!(again.bytes().await.unwrap(), body, "{query}");
    }
    assert!(app.state.read.cluster_views.len() >= 3);
    for _ in 0..2 {
        let refused = get(&app, "?zoom=5&bbox=1,2,3").await;
        assert_eq!(refused.status(), 400);
    }
}
