//! `GET /api/countries`: bands per country and per 100,000 inhabitants under the map's
//! filters (genre families included), populations from `countries.tsv` beside
//! `GAZETTEER_PATH`.
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
    // What the database's notification says a moment later, said now: no answer from a copy
    // loaded before the seed ([`items`] asks both the SQL and the copy).
    app.state.read.name_search.changed();
    app
}

/// The answer of the SQL path and of the in-memory copy (issue 31), which must agree.
async fn both_paths(app: &TestApp, query: &str) -> Value {
    let get = || async {
        let res = app
            .client
            .get(app.url(&format!("/api/countries{query}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{query}");
        assert_eq!(res.headers()["cache-control"], "public, max-age=30");
        res.json::<Value>().await.unwrap()
    };
    app.state.read.name_search.changed();
    assert!(app.state.read.name_search.fresh_countries().is_none());
    let sql = get().await;
    // The refresh task may hear a change of its own meanwhile (its first load): load again
    // until the copy is fresh.
    for _ in 0..100 {
        app.state
            .read
            .name_search
            .catch_up(&app.state.pool)
            .await
            .unwrap();
        if app.state.read.name_search.fresh_countries().is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(app.state.read.name_search.fresh_countries().is_some());
    let memory = get().await;
    assert_eq!(
        memory, sql,
        "the copy answers what the SQL answers: {query}"
    );
    memory
}

async fn items(app: &TestApp, query: &str) -> Vec<Value> {
    let body = both_paths(app, query).await;
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
        [
            "country", "status", "genre", "year_min", "year_max", "family"
        ]
    );
    let family = &doc["paths"]["/api/countries"]["get"]["parameters"][5];
    assert_eq!(family["in"], "query");
    assert_eq!(family["schema"]["type"], "string");
    assert!(
        family["description"].as_str().unwrap().contains("`black`"),
        "{family}"
    );
    assert!(doc["components"]["schemas"]["CountryDensity"].is_object());
}

/// Bands added to [`SEED`] for the family tests: Norway gets a heavy band under another
/// name, a band without a genre and an industrial one; Sweden an industrial one.
const FAMILY_SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year) VALUES
 (8, 'H', 'Heavy Metal', 'Noreg', 'NO', 'Active', 1985),
 (9, 'I', NULL, 'Norway', 'NO', 'Active', 1995),
 (10, 'J', 'Industrial Metal', 'Sweden', 'SE', 'Split-up', 1999),
 (11, 'K', 'Blackened Death Metal', 'Sweden', 'SE', 'Active', 2003);
"#;

async fn family_app(name: &str) -> (TestApp, PathBuf) {
    let g = populations_dir(name);
    let app = seeded(Some(g.to_str().unwrap())).await;
    sqlx::raw_sql(FAMILY_SEED)
        .execute(&app.db.pool)
        .await
        .unwrap();
    app.state.read.name_search.changed();
    (app, g)
}

/// (code, country, bands, per_100k) of each item.
fn rows(items: &[Value]) -> Vec<(String, Option<String>, i64, Option<f64>)> {
    items
        .iter()
        .map(|i| {
            (
                i["country_code"].as_str().unwrap().to_string(),
                i["country"].as_str().map(str::to_string),
                i["bands"].as_i64().unwrap(),
                i["per_100k"].as_f64(),
            )
        })
        .collect()
}

fn row(
    cc: &str,
    country: &str,
    bands: i64,
    per_100k: Option<f64>,
) -> (String, Option<String>, i64, Option<f64>) {
    (cc.into(), Some(country.into()), bands, per_100k)
}

async fn get(app: &TestApp, query: &str) -> reqwest::Response {
    app.client
        .get(app.url(&format!("/api/countries{query}")))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_family_keeps_only_its_bands() {
    let (app, g) = family_app("family").await;
    // Without a family: every band. Norway (5,000,000): A black, B death, C black
    // (Black/Death), H heavy ("Noreg", first in sort order), I no genre; Sweden
    // (10,000,000): D doom, J industrial, K death (Blackened Death).
    let all = items(&app, "").await;
    assert_eq!(
        rows(&all),
        [
            row("AQ", "Atlantis", 1, None),
            row("NO", "Noreg", 5, Some(0.1)),
            row("SE", "Sweden", 3, Some(0.03)),
            row("XK", "Kosovo", 1, Some(0.0556)),
        ]
    );

    // black: Norway keeps A and C (H, B, I dropped: 2 of 5, and the name of the kept
    // bands), Sweden none (Blackened Death Metal is death), Kosovo's '100%_Black'.
    assert_eq!(
        rows(&items(&app, "?family=black").await),
        [
            row("AQ", "Atlantis", 1, None),
            row("NO", "Norway", 2, Some(0.04)),
            row("XK", "Kosovo", 1, Some(0.0556)),
        ]
    );
    // death: B in Norway, K in Sweden.
    assert_eq!(
        rows(&items(&app, "?family=death").await),
        [
            row("NO", "Norway", 1, Some(0.02)),
            row("SE", "Sweden", 1, Some(0.01)),
        ]
    );
    // heavy: H alone, under its own name.
    assert_eq!(
        rows(&items(&app, "?family=heavy").await),
        [row("NO", "Noreg", 1, Some(0.02))]
    );
    // other: a band without a genre and an industrial one.
    assert_eq!(
        rows(&items(&app, "?family=other").await),
        [
            row("NO", "Norway", 1, Some(0.02)),
            row("SE", "Sweden", 1, Some(0.01)),
        ]
    );
    assert!(items(&app, "?family=gothic").await.is_empty());

    // Two families add up; order, case and blanks do not matter.
    let two = rows(&items(&app, "?family=death,doom").await);
    assert_eq!(
        two,
        [
            row("NO", "Norway", 1, Some(0.02)),
            row("SE", "Sweden", 2, Some(0.02)),
        ]
    );
    assert_eq!(rows(&items(&app, "?family=%20Doom%20,,DEATH").await), two);
    assert_eq!(
        rows(&items(&app, "?family=black,heavy").await),
        [
            row("AQ", "Atlantis", 1, None),
            row("NO", "Noreg", 3, Some(0.06)),
            row("XK", "Kosovo", 1, Some(0.0556)),
        ]
    );

    // With the other filters (AND).
    assert_eq!(
        rows(&items(&app, "?family=black,death&status=active").await),
        [
            row("AQ", "Atlantis", 1, None),
            row("NO", "Norway", 2, Some(0.04)),
            row("SE", "Sweden", 1, Some(0.01)),
            row("XK", "Kosovo", 1, Some(0.0556)),
        ]
    );
    assert_eq!(
        rows(&items(&app, "?family=black&year_min=1990&country=no").await),
        [row("NO", "Norway", 1, Some(0.02))]
    );
    assert_eq!(
        rows(&items(&app, "?family=death&genre=black").await),
        [row("SE", "Sweden", 1, Some(0.01))],
        "Blackened Death Metal: genre substring black, family death"
    );
    std::fs::remove_dir_all(g.parent().unwrap()).ok();
}

#[tokio::test]
async fn no_family_is_the_answer_of_before() {
    let (app, g) = family_app("nofamily").await;
    let plain = get(&app, "").await;
    let etag = plain.headers()["etag"].to_str().unwrap().to_string();
    let plain = plain.text().await.unwrap();
    for q in ["?family=", "?family=%20", "?family=,,"] {
        let res = get(&app, q).await;
        assert_eq!(res.status(), 200, "{q}");
        assert_eq!(res.headers()["etag"].to_str().unwrap(), etag, "{q}");
        assert_eq!(res.text().await.unwrap(), plain, "{q}: blank is no family");
    }
    // Every family: every band is of one, so the folded answer is the plain one, byte
    // for byte (names included).
    let every = get(
        &app,
        "?family=black,death,doom,thrash,heavy,progressive,folk,gothic,grind,other",
    )
    .await;
    assert_eq!(every.status(), 200);
    assert_eq!(every.text().await.unwrap(), plain);
    let filtered = get(&app, "?family=black").await.text().await.unwrap();
    assert_ne!(filtered, plain);
    std::fs::remove_dir_all(g.parent().unwrap()).ok();
}

#[tokio::test]
async fn an_unknown_family_is_a_400_like_the_clusters() {
    let (app, g) = family_app("badfamily").await;
    let before = get(&app, "").await.text().await.unwrap();
    let known = "black, death, doom, thrash, heavy, progressive, folk, gothic, grind, other";
    for (q, bad) in [
        ("?family=polka", "polka"),
        ("?family=black,polka", "polka"),
        ("?family=black,pol%20ka,doom", "pol ka"),
    ] {
        let res = get(&app, q).await;
        assert_eq!(res.status(), 400, "{q}");
        let e: Value = res.json().await.unwrap();
        assert_eq!(e["error"]["code"], "bad_request", "{q}");
        let message = e["error"]["message"].as_str().unwrap().to_string();
        assert_eq!(
            message,
            format!("family: unknown genre family \"{bad}\" (known: {known})"),
            "{q}"
        );
        // The same text as /api/clusters: one parser.
        let clusters: Value = app
            .client
            .get(app.url(&format!("/api/clusters{q}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            clusters["error"]["message"].as_str().unwrap(),
            message,
            "{q}"
        );
    }
    let long = format!("?family={}", "black,".repeat(17)); // 102 characters
    let res = get(&app, &long).await;
    assert_eq!(res.status(), 400);
    let e: Value = res.json().await.unwrap();
    assert_eq!(
        e["error"]["message"],
        "family must be at most 100 characters"
    );
    // A 400 changes nothing: the plain answer is the same as before.
    assert_eq!(get(&app, "").await.text().await.unwrap(), before);
    std::fs::remove_dir_all(g.parent().unwrap()).ok();
}
