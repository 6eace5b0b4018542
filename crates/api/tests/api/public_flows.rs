//! `GET /api/flows` and `GET /api/flows/bands` through the server on the real database: the
//! issue's fixture (three bands Bergen → Oslo, one Oslo → Berlin) at a town zoom and a
//! country zoom, the limit and `other`, the bands of a flow, the filters, the JSON 400s.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::{TestApp, spawn_app};
use serde_json::Value;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year) VALUES
 (1, 'Alpha', 'Black Metal', 'Norway', 'NO', 'Active', 1991),
 (2, 'Beta', 'Death Metal', 'Norway', 'NO', 'Split-up', 1988),
 (3, 'Gamma', 'Black Metal', 'Norway', 'NO', 'Active', 2005),
 (4, 'Delta', 'Doom Metal', 'Norway', 'NO', 'Active', 1999);
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status) VALUES
 (11, 1, 0, 0, 'Bergen, Vestland', 60.3913, 5.3221, 'done'),
 (12, 1, 1, 1, 'Oslo', 59.9139, 10.7522, 'done'),
 (21, 2, 0, 0, 'Bergen', 60.3913, 5.3221, 'done'),
 (22, 2, 1, 1, 'Somewhere', NULL, NULL, 'pending'),
 (23, 2, 2, 2, 'Oslo', 59.9139, 10.7522, 'done'),
 (31, 3, 0, 0, 'Bergen', 60.3913, 5.3221, 'done'),
 (32, 3, -1, 1, 'Oslo', 59.9139, 10.7522, 'done'),
 (41, 4, 0, 0, 'Oslo', 59.9139, 10.7522, 'done'),
 (42, 4, 1, 1, 'Berlin', 52.52, 13.405, 'done');
"#;

async fn seeded() -> TestApp {
    let app = spawn_app().await;
    sqlx::raw_sql(SEED).execute(&app.db.pool).await.unwrap();
    app.state.read.map.reload(&app.state.pool).await.unwrap();
    app
}

async fn get(app: &TestApp, path: &str) -> reqwest::Response {
    app.client.get(app.url(path)).send().await.unwrap()
}

async fn json(app: &TestApp, path: &str) -> Value {
    let res = get(app, path).await;
    assert_eq!(res.status(), 200, "{path}");
    assert_eq!(res.headers()["content-type"], "application/json");
    res.json().await.unwrap()
}

/// `(from label, to label, count)` of the listed flows.
fn named(body: &Value) -> Vec<(String, String, u64)> {
    let places = body["places"].as_array().unwrap();
    let label = |i: &Value| {
        places[i.as_u64().unwrap() as usize]["label"]
            .as_str()
            .unwrap_or("-")
            .to_string()
    };
    body["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                label(&f["from"]),
                label(&f["to"]),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn bergen_to_oslo_at_a_town_zoom_and_merged_at_a_country_zoom() {
    let app = seeded().await;
    let z8 = json(&app, "/api/flows?zoom=8").await;
    assert_eq!(
        named(&z8),
        vec![
            ("Bergen".into(), "Oslo".into(), 3),
            ("Oslo".into(), "Berlin".into(), 1)
        ]
    );
    assert_eq!(z8["total"], 4, "one pair per consecutive placed steps");
    assert_eq!(z8["other"], serde_json::json!({"flows": 0, "count": 0}));
    assert_eq!(
        z8["flows"][0]["families"],
        serde_json::json!({"black": 2, "death": 1})
    );
    let oslo = z8["places"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["label"] == "Oslo")
        .unwrap();
    assert_eq!(
        (oslo["incoming"].as_u64(), oslo["outgoing"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(
        (oslo["lon"].as_f64(), oslo["lat"].as_f64()),
        (Some(10.7522), Some(59.9139))
    );

    // Zoom 3: Bergen and Oslo are one cell; only its flow to Berlin is left.
    let z3 = json(&app, "/api/flows?zoom=3").await;
    assert_eq!(z3["flows"].as_array().unwrap().len(), 1);
    assert_eq!(z3["flows"][0]["count"], 1);
    assert_eq!(z3["places"][0]["label"], Value::Null, "two towns");
    assert_eq!(z3["places"][0]["main"], "Oslo");
}

#[tokio::test]
async fn limit_other_filters_and_the_bands_of_a_flow() {
    let app = seeded().await;
    let one = json(&app, "/api/flows?zoom=8&limit=1").await;
    assert_eq!(named(&one), vec![("Bergen".into(), "Oslo".into(), 3)]);
    assert_eq!(one["other"], serde_json::json!({"flows": 1, "count": 1}));
    assert_eq!(one["total"], 4);

    let black = json(&app, "/api/flows?zoom=8&family=black").await;
    assert_eq!(named(&black), vec![("Bergen".into(), "Oslo".into(), 2)]);
    let since = json(&app, "/api/flows?zoom=8&year_min=1995").await;
    // Ties are ordered by start cell (Morton code): Bergen's comes first.
    assert_eq!(
        named(&since),
        vec![
            ("Bergen".into(), "Oslo".into(), 1),
            ("Oslo".into(), "Berlin".into(), 1)
        ]
    );
    // A view around Berlin: the Oslo → Berlin flow has an end inside, Bergen → Oslo none.
    let berlin = json(&app, "/api/flows?zoom=8&bbox=12,51,15,54").await;
    assert_eq!(named(&berlin), vec![("Oslo".into(), "Berlin".into(), 1)]);

    let places = one["places"].as_array().unwrap();
    let cell = |i: usize| format!("{},{}", places[i]["cell"][0], places[i]["cell"][1]);
    let (from, to) = (cell(0), cell(1));
    let bands = json(
        &app,
        &format!("/api/flows/bands?zoom=8&from={from}&to={to}"),
    )
    .await;
    assert_eq!(bands["count"], 3);
    assert_eq!(bands["bands"], 3);
    let names: Vec<&str> = bands["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Alpha", "Beta", "Gamma"]);
    assert_eq!(bands["items"][0]["ma_id"], 1);
    assert_eq!(bands["items"][0]["family"], "black");
    let black = json(
        &app,
        &format!("/api/flows/bands?zoom=8&from={from}&to={to}&family=black"),
    )
    .await;
    assert_eq!(black["bands"], 2);
}

#[tokio::test]
async fn repeated_views_are_cached_and_validated() {
    let app = seeded().await;
    let first = get(&app, "/api/flows?zoom=8").await;
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    let body = first.bytes().await.unwrap();
    let again = get(&app, "/api/flows?zoom=8").await;
    assert_eq!(again.bytes().await.unwrap(), body);
    let res = app
        .client
        .get(app.url("/api/flows?zoom=8"))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
}

#[tokio::test]
async fn a_browser_gets_the_answers_compressed_once() {
    let app = seeded().await;
    let plain = get(&app, "/api/flows?zoom=8").await.bytes().await.unwrap();
    let one = json(&app, "/api/flows?zoom=8&limit=1").await;
    let places = one["places"].as_array().unwrap();
    let cell = |i: usize| format!("{},{}", places[i]["cell"][0], places[i]["cell"][1]);
    let bands_path = format!("/api/flows/bands?zoom=8&from={}&to={}", cell(0), cell(1));
    let plain_bands = json(&app, &bands_path).await;
    assert_eq!(plain_bands["count"], 3, "the flow Bergen → Oslo");
    let plain_bands = get(&app, &bands_path).await.bytes().await.unwrap();
    for (path, plain) in [
        ("/api/flows?zoom=8", &plain),
        (bands_path.as_str(), &plain_bands),
    ] {
        for _ in 0..2 {
            let res = app
                .client
                .get(app.url(path))
                .header("accept-encoding", "gzip, deflate, br, zstd")
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200, "{path}");
            assert_eq!(res.headers()["content-encoding"], "br", "{path}");
            assert_eq!(res.headers()["content-type"], "application/json");
            let vary = res.headers()["vary"].to_str().unwrap().to_ascii_lowercase();
            assert!(vary.contains("accept-encoding"), "{path}: {vary}");
            let mut out = Vec::new();
            let body = res.bytes().await.unwrap();
            std::io::Read::read_to_end(&mut brotli::Decompressor::new(&body[..], 4096), &mut out)
                .unwrap();
            assert_eq!(out, plain.to_vec(), "{path}: round trip");
        }
    }
    assert!(
        !app.state.read.encoded.is_empty(),
        "the compressed answers were not kept"
    );
}

#[tokio::test]
async fn bad_inputs_answer_json_400() {
    let app = spawn_app().await;
    for q in [
        "/api/flows?bbox=1,2,3",
        "/api/flows?bbox=5,0,4,1",
        "/api/flows?zoom=21",
        "/api/flows?zoom=x",
        "/api/flows?year_min=x",
        "/api/flows?family=polka",
        "/api/flows?limit=0",
        "/api/flows?limit=201",
        "/api/flows?limit=ten",
        &format!("/api/flows?genre={}", "g".repeat(101)),
        "/api/flows/bands?zoom=8",
        "/api/flows/bands?zoom=8&from=1,2",
        "/api/flows/bands?zoom=8&from=1,2&to=1",
        "/api/flows/bands?zoom=3&from=1,2&to=1,99",
        "/api/flows/bands?zoom=8&from=1,2&to=3,4&family=polka",
    ] {
        let res = get(&app, q).await;
        assert_eq!(res.status(), 400, "{q}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "bad_request", "{q}");
        assert!(body["error"]["message"].as_str().unwrap().len() > 5, "{q}");
    }
}

#[tokio::test]
async fn documented_in_openapi() {
    let app = spawn_app().await;
    let doc = json(&app, "/api/openapi.json").await;
    for path in ["/api/flows", "/api/flows/bands"] {
        assert!(doc["paths"][path]["get"].is_object(), "{path} missing");
    }
    let params: Vec<&str> = doc["paths"]["/api/flows"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for p in [
        "bbox", "zoom", "genre", "country", "status", "year_min", "year_max", "family", "limit",
    ] {
        assert!(params.contains(&p), "{p}");
    }
}
