//! `GET /api/clusters` genre families (issue 16 item 3): `breakdown=families` adds each
//! cluster's family counts and each point's family without changing anything else,
//! `family=` filters on the server, bad values are 400s.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::{TestApp, spawn_app};
use serde_json::{Value, json};

/// Two towns: Oslo (3 bands: black, symphonic black, death) and Paris (doom, gothic, an
/// unknown genre and no genre at all), plus Sydney alone (grindcore).
const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year) VALUES
 (1, 'A', 'Black Metal', 'Norway', 'NO', 'Active', 1991),
 (2, 'B', 'Symphonic Black Metal', 'Norway', 'NO', 'Active', 1995),
 (3, 'C', 'Blackened Death Metal', 'Norway', 'NO', 'Active', 2001),
 (4, 'D', 'Doom/Death Metal', 'France', 'FR', 'Active', 1990),
 (5, 'E', 'Gothic Metal', 'France', 'FR', 'Split-up', 1997),
 (6, 'F', 'Industrial', 'France', 'FR', 'Active', 2010),
 (7, 'G', NULL, 'France', 'FR', 'Active', 2012),
 (8, 'H', 'Grindcore', 'Australia', 'AU', 'Active', 2000);
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status) VALUES
 (11, 1, 0, 0, 'Oslo', 59.91, 10.75, 'done'),
 (21, 2, 0, 0, 'Oslo', 59.91, 10.75, 'done'),
 (31, 3, 0, 0, 'Oslo', 59.91, 10.75, 'done'),
 (41, 4, 0, 0, 'Paris', 48.86, 2.35, 'done'),
 (51, 5, 0, 0, 'Paris', 48.86, 2.35, 'done'),
 (61, 6, 0, 0, 'Paris', 48.86, 2.35, 'done'),
 (71, 7, 0, 0, 'Paris', 48.86, 2.35, 'done'),
 (81, 8, 0, 0, 'Sydney', -33.87, 151.2, 'done');
"#;

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

async fn body(app: &TestApp, query: &str) -> Value {
    let res = get(app, query).await;
    assert_eq!(res.status(), 200, "{query}");
    res.json().await.unwrap()
}

/// The features keyed by their rounded position.
fn by_place(fc: &Value) -> Vec<(i64, Value)> {
    fc["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let lat = f["geometry"]["coordinates"][1].as_f64().unwrap();
            (lat.round() as i64, f["properties"].clone())
        })
        .collect()
}

#[tokio::test]
async fn the_breakdown_counts_each_clusters_families() {
    let app = seeded().await;
    let fc = body(&app, "?zoom=5&breakdown=families").await;
    let places = by_place(&fc);
    let oslo = &places.iter().find(|(lat, _)| *lat == 60).unwrap().1;
    assert_eq!(oslo["count"], 3);
    assert_eq!(oslo["families"], json!({"black": 2, "death": 1}));
    let paris = &places.iter().find(|(lat, _)| *lat == 49).unwrap().1;
    assert_eq!(paris["count"], 4);
    assert_eq!(
        paris["families"],
        json!({"doom": 1, "gothic": 1, "other": 2})
    );
    // A single point carries its band's family.
    let sydney = &places.iter().find(|(lat, _)| *lat == -34).unwrap().1;
    assert_eq!(sydney["cluster"], false);
    assert_eq!(sydney["family"], "grind");
    // At zoom ≥ 17 every point carries its family.
    let fc = body(&app, "?zoom=17&bbox=10,59,11,60&breakdown=families").await;
    let fams: Vec<&str> = fc["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["properties"]["family"].as_str().unwrap())
        .collect();
    assert_eq!(fams, ["black", "black", "death"]);
}

#[tokio::test]
async fn without_the_parameter_the_answer_is_unchanged() {
    let app = seeded().await;
    for q in [
        "?zoom=5",
        "?zoom=17&bbox=10,59,11,60",
        "?zoom=0&genre=black",
    ] {
        let plain = get(&app, q).await;
        let etag_plain = plain.headers()["etag"].to_str().unwrap().to_string();
        let plain: Value = plain.json().await.unwrap();
        let text = plain.to_string();
        assert!(!text.contains("famil"), "{q}: {text}");
        let with = get(&app, &format!("{q}&breakdown=families")).await;
        assert_ne!(
            with.headers()["etag"].to_str().unwrap(),
            etag_plain,
            "{q}: the breakdown is another representation"
        );
        // Same features, same positions and counts: only the family members are added.
        let mut with: Value = with.json().await.unwrap();
        for f in with["features"].as_array_mut().unwrap() {
            let p = f["properties"].as_object_mut().unwrap();
            p.remove("families");
            p.remove("family");
        }
        assert_eq!(with, plain, "{q}");
    }
    // Blank means absent.
    assert_eq!(
        body(&app, "?zoom=5&breakdown=").await,
        body(&app, "?zoom=5").await
    );
}

#[tokio::test]
async fn the_family_filter_keeps_only_those_families() {
    let app = seeded().await;
    let total = |fc: &Value| -> u64 {
        fc["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["properties"]["count"].as_u64().unwrap_or(1))
            .sum()
    };
    assert_eq!(total(&body(&app, "?zoom=0").await), 8);
    assert_eq!(total(&body(&app, "?zoom=0&family=black").await), 2);
    assert_eq!(total(&body(&app, "?zoom=0&family=black,doom").await), 3);
    assert_eq!(total(&body(&app, "?zoom=0&family=Other").await), 2);
    assert_eq!(total(&body(&app, "?zoom=0&family=thrash").await), 0);
    // Combined with the other filters (AND).
    assert_eq!(
        total(&body(&app, "?zoom=0&family=black,death&country=NO&year_min=1995").await),
        2
    );
    // The breakdown of a filtered answer counts only the kept families.
    let fc = body(&app, "?zoom=5&family=black,doom&breakdown=families").await;
    let places = by_place(&fc);
    let oslo = &places.iter().find(|(lat, _)| *lat == 60).unwrap().1;
    assert_eq!(oslo["families"], json!({"black": 2}));
    let paris = &places.iter().find(|(lat, _)| *lat == 49).unwrap().1;
    assert_eq!(paris["cluster"], false);
    assert_eq!(paris["family"], "doom");
    // Blank = no filter.
    assert_eq!(total(&body(&app, "?zoom=0&family=").await), 8);
}

#[tokio::test]
async fn bad_family_and_breakdown_values_are_400() {
    let app = spawn_app().await;
    for q in [
        "?family=polka",
        "?family=black,polka",
        "?breakdown=genres",
        "?breakdown=1",
    ] {
        let res = get(&app, q).await;
        assert_eq!(res.status(), 400, "{q}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "bad_request", "{q}");
    }
    let res = get(&app, "?family=polka").await;
    let body: Value = res.json().await.unwrap();
    assert!(
        body["error"]["message"].as_str().unwrap().contains("polka"),
        "{body}"
    );
    let long = format!("?family={}", "black,".repeat(20));
    assert_eq!(get(&app, &long).await.status(), 400);
}

#[tokio::test]
async fn the_openapi_document_describes_both_parameters() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    let params = doc["paths"]["/api/clusters"]["get"]["parameters"]
        .as_array()
        .unwrap();
    for name in ["family", "breakdown"] {
        let p = params.iter().find(|p| p["name"] == name).unwrap();
        assert_eq!(p["in"], "query");
        assert!(
            p["description"].as_str().unwrap().contains("famil"),
            "{name}: {p}"
        );
    }
}
