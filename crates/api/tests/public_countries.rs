//! `GET /api/countries`: bands per country and per 100,000 inhabitants under the map's
//! filters, populations from `countries.tsv` beside `GAZETTEER_PATH`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::{TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};
use std::path::PathBuf;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year) VALUES
 (1, 'A', 'Black Metal', 'Norway', 'NO', 'Active', 1991),
 (2, 'B', 'Death Metal', 'Norway', 'no', 'Split-up', 1988),
 (3, 'C', 'Black/Death Metal', 'Norway', 'NO', 'Active', NULL),
 (4, 'D', 'Doom Metal', 'Sweden', 'SE', 'Active', 2001),
 (5, 'E', '100%_Black', 'Kosovo', 'XK', 'Active', 2010),
 (6, 'F', 'Black Metal', 'Atlantis', 'AQ', 'Active', 2000),
 (7, 'G', 'Black Metal', 'International', NULL, 'Active', 2000);
"#;

const COUNTRIES: &str = "# test populations\nNO\t578\t5000000\tNorway\nSE\t752\t10000000\tSweden\nXK\t0\t1800000\tKosovo\n";

/// A folder holding `countries.tsv`, and the gazetteer path beside it.
fn populations_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bandmap-countries-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("countries.tsv"), COUNTRIES).unwrap();
    dir.join("europe.tsv")
}

async fn seeded(gazetteer: Option<&str>) -> TestApp {
    let app = match gazetteer {
        Some(g) => spawn_app_with(&[("GAZETTEER_PATH", g)], None).await,
        None => spawn_app().await,
    };
    sqlx::raw_sql(SEED).execute(&app.db.pool).await.unwrap();
    app
}

async fn items(app: &TestApp, query: &str) -> Vec<Value> {
    let res = app
        .client
        .get(app.url(&format!("/api/countries{query}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{query}");
    assert_eq!(res.headers()["cache-control"], "public, max-age=30");
    let body: Value = res.json().await.unwrap();
    body["items"].as_array().unwrap().clone()
}

fn counts(items: &[Value]) -> Vec<(String, i64)> {
    items
        .iter()
        .map(|i| {
            (
                i["country_code"].as_str().unwrap().to_string(),
                i["bands"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn densities_with_populations_and_filters() {
    let g = populations_dir("filters");
    let app = seeded(Some(g.to_str().unwrap())).await;
    let all = items(&app, "").await;
    assert_eq!(
        all[1],
        json!({"country_code": "NO", "country": "Norway", "iso_numeric": 578, "bands": 3,
               "population": 5_000_000, "per_100k": 0.06})
    );
    assert_eq!(
        counts(&all),
        [
            ("AQ".into(), 1),
            ("NO".into(), 3),
            ("SE".into(), 1),
            ("XK".into(), 1)
        ],
        "by code, lower-case codes folded; a band without a code is left out"
    );
    let aq = &all[0];
    assert_eq!(
        aq["population"],
        Value::Null,
        "no population → null density"
    );
    assert_eq!(aq["per_100k"], Value::Null);
    let xk = all.iter().find(|i| i["country_code"] == "XK").unwrap();
    assert_eq!(xk["iso_numeric"], Value::Null, "GeoNames' 0 is no code");
    assert_eq!(xk["per_100k"], json!(0.0556));

    // The filters of /api/clusters.
    assert_eq!(
        counts(&items(&app, "?genre=death").await),
        [("NO".into(), 2)]
    );
    assert_eq!(
        counts(&items(&app, "?genre=0%25_b").await),
        [("XK".into(), 1)],
        "wildcards literal"
    );
    assert_eq!(
        counts(&items(&app, "?country=sweden").await),
        [("SE".into(), 1)]
    );
    assert_eq!(
        counts(&items(&app, "?country=no").await),
        [("NO".into(), 3)]
    );
    assert_eq!(
        counts(&items(&app, "?status=split-up").await),
        [("NO".into(), 1)]
    );
    assert_eq!(
        counts(&items(&app, "?year_min=1990&year_max=2005").await),
        [("AQ".into(), 1), ("NO".into(), 1), ("SE".into(), 1)]
    );
    assert!(items(&app, "?genre=jazz").await.is_empty());
    std::fs::remove_dir_all(g.parent().unwrap()).ok();
}

#[tokio::test]
async fn bad_parameters_and_missing_populations() {
    let app = seeded(Some("/nonexistent/europe.tsv")).await;
    let all = items(&app, "").await;
    assert!(
        all.iter()
            .all(|i| i["population"].is_null() && i["per_100k"].is_null())
    );
    let long = "x".repeat(101);
    for q in [
        format!("?genre={long}"),
        format!("?country={long}"),
        "?year_min=19x0".to_string(),
        "?year_max=1.5".to_string(),
    ] {
        let res = app
            .client
            .get(app.url(&format!("/api/countries{q}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{q}");
        let e: Value = res.json().await.unwrap();
        assert_eq!(e["error"]["code"], "bad_request");
    }
}

#[tokio::test]
async fn etag_and_openapi() {
    let app = seeded(None).await;
    let res = app
        .client
        .get(app.url("/api/countries"))
        .send()
        .await
        .unwrap();
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let res = app
        .client
        .get(app.url("/api/countries"))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
    let doc = app.openapi().await;
    let params: Vec<&str> = doc["paths"]["/api/countries"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        params,
        ["country", "status", "genre", "year_min", "year_max"]
    );
    assert!(doc["components"]["schemas"]["CountryDensity"].is_object());
}
