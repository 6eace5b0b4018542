//! The wire shapes of the responses built from `crates/db` rows (issue 26, "a thin host"):
//! their OpenAPI schemas and the JSON they answer are pinned by two files recorded before
//! the wire types were made to compose the rows (`wire/schemas.json`, `wire/responses.json`),
//! so a field renamed, reordered, made nullable or dropped fails here. Timestamps are
//! replaced by `<time>` (they move with the clock); everything else, ids included, is
//! compared as is, key order too.
//!
//! `BANDMAP_WIRE_RECORD=1` rewrites the two files from the running code instead of
//! comparing (only when a shape changes on purpose, with CONTRACT.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::admin::*;
use bandmap_db::runs::{JobType, Level, Run};
use bandmap_test_support::{TestApp, spawn_app};
use reqwest::Method;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use sqlx::PgPool;
use std::fmt;
use std::path::PathBuf;

/// The schemas of the wire types made of `db` rows, and of the shapes holding them.
const SCHEMAS: &[&str] = &[
    "RunItem",
    "TriggerItem",
    "HealthItem",
    "Live",
    "CheckpointItem",
    "HistoryItem",
    "LogItem",
    "ActivityItem",
    "Bucket",
    "Stats",
    "QueueItem",
    "Priorities",
    "Queue",
    "ProviderItem",
    "ModelItem",
    "GeocodingOverview",
    "LlmItem",
    "LlmPageItem",
    "GeocodingBucket",
    "GeocodingChart",
    "LlmDayItem",
    "LlmChart",
    "LocationItem",
    "BandItem",
    "BandPage",
    "Band",
    "BandLocationRow",
    "BandLlmCallRow",
    "BandDetailResponse",
    "SearchHit",
    "SearchResults",
    "BandCard",
    "CardStep",
];

/// Endpoints answering those shapes, on the seeded database.
const ADMIN_PATHS: &[&str] = &[
    "/admin/api/live",
    "/admin/api/health",
    "/admin/api/crawl-checkpoints",
    "/admin/api/job-triggers",
    "/admin/api/activity",
    "/admin/api/logs",
    "/admin/api/stats",
    "/admin/api/queue",
    "/admin/api/geocoding",
    "/admin/api/llm",
    "/admin/api/charts/geocoding",
    "/admin/api/charts/llm",
    "/admin/api/locations",
    "/admin/api/bands",
    "/admin/api/bands/101",
    "/admin/api/bands/101/history",
];
const PUBLIC_PATHS: &[&str] = &["/api/search?q=alp", "/api/bands/101", "/api/bands/102"];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/api/wire")
        .join(name)
}

/// Compares `got` with the recorded file, or records it.
fn check(name: &str, got: &Json) {
    let text = serde_json::to_string_pretty(got).unwrap() + "\n";
    let path = fixture(name);
    if std::env::var_os("BANDMAP_WIRE_RECORD").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap();
    if want != text {
        let mismatch = std::env::temp_dir().join(format!("wire-{name}"));
        std::fs::write(&mismatch, &text).unwrap();
        panic!(
            "{name} changed: diff {} {}",
            path.display(),
            mismatch.display()
        );
    }
}

#[tokio::test]
async fn schemas_of_the_row_shapes_are_unchanged() {
    let app = spawn_app().await;
    let doc = served(&app, None, "/api/openapi.json").await;
    let schemas = doc
        .get("components")
        .and_then(|c| c.get("schemas"))
        .unwrap();
    let mut got = Vec::new();
    for name in SCHEMAS {
        let schema = schemas.get(name);
        assert!(schema.is_some(), "schema {name} is missing");
        got.push(((*name).to_string(), schema.unwrap().clone()));
    }
    // The generic pages that hold row shapes, whatever utoipa names them.
    for (name, schema) in schemas.entries() {
        if name.starts_with("ListPage") {
            got.push((name.clone(), schema.clone()));
        }
    }
    // Every path's 200 answer, so a response pointing elsewhere shows too.
    let mut answers = Vec::new();
    for (path, item) in doc.get("paths").unwrap().entries() {
        for (method, op) in item.entries() {
            if let Some(ok) = op.get("responses").and_then(|r| r.get("200")) {
                answers.push((format!("{method} {path}"), ok.clone()));
            }
        }
    }
    got.push(("200 answers".to_string(), Json::Object(answers)));
    check("schemas.json", &Json::Object(got));
}

#[tokio::test]
async fn responses_built_from_rows_are_unchanged() {
    let app = spawn_app().await;
    seed(&app.state.pool).await;
    let cookie = app.login().await;
    // One admin action through the API, so the audit and history rows are real ones.
    let r = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/locations/2",
        Some(json!({"lat": 60.39, "lon": 5.32})),
    )
    .await;
    assert_eq!(r.status(), 200);
    let mut got = Vec::new();
    for path in ADMIN_PATHS {
        let mut body = served(&app, Some(&cookie), path).await;
        body.mask_times();
        got.push(((*path).to_string(), body));
    }
    for path in PUBLIC_PATHS {
        let mut body = served(&app, None, path).await;
        body.mask_times();
        got.push(((*path).to_string(), body));
    }
    check("responses.json", &Json::Object(got));
}

/// The body as served, its keys in the order served.
async fn served(app: &TestApp, cookie: Option<&str>, path: &str) -> Json {
    let r = match cookie {
        Some(c) => send(app, c, Method::GET, path, None).await,
        None => reqwest::get(app.url(path)).await.unwrap(),
    };
    assert_eq!(r.status(), 200, "GET {path}");
    serde_json::from_str(&r.text().await.unwrap()).unwrap()
}

/// JSON that keeps the order of object keys (`serde_json::Value` sorts them in this build).
#[derive(Debug, Clone)]
enum Json {
    Leaf(Value),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        self.entries()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    fn entries(&self) -> &[(String, Json)] {
        match self {
            Json::Object(o) => o,
            _ => &[],
        }
    }

    /// Timestamps move with the clock: each becomes `<time>`.
    fn mask_times(&mut self) {
        match self {
            Json::Leaf(Value::String(s)) if chrono::DateTime::parse_from_rfc3339(s).is_ok() => {
                *s = "<time>".to_string();
            }
            Json::Leaf(_) => {}
            Json::Array(a) => a.iter_mut().for_each(Json::mask_times),
            Json::Object(o) => o.iter_mut().for_each(|(_, v)| v.mask_times()),
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Leaf(v) => v.serialize(s),
            Json::Array(a) => s.collect_seq(a),
            Json::Object(o) => s.collect_map(o.iter().map(|(k, v)| (k, v))),
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Leaf(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Leaf(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Leaf(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Leaf(v.into()))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Leaf(v.into()))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Leaf(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = a.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = a.next_entry()? {
            entries.push(entry);
        }
        Ok(Json::Object(entries))
    }
}

/// One of each row: two bands (one with every field), their location rows (one with NaN
/// coordinates), LLM calls (one with a NaN cost), a run with a log line, a trigger and a
/// heartbeat.
async fn seed(pool: &PgPool) {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text, genre, themes,
             status, formed_year, label, years_active, data, enrich_pending)
         VALUES (101, 'Alpha', 'Norway', 'NO', 'Bergen (early); Oslo (later)', 'Black Metal',
             'Winter', 'Active', 1991, 'Self-released', '1991-present',
             '{\"url\": \"https://www.metal-archives.com/bands/Alpha/101\"}', true),
            (102, 'Alpine', 'Sweden', 'SE', NULL, 'Doom Metal', NULL, 'Split-up', NULL, NULL,
             NULL, '{}', false)",
    )
    .execute(pool)
    .await
    .unwrap();
    let bergen = location(pool, 101, 0, "Bergen", "done", Some((60.39, 5.32))).await;
    let oslo = location(pool, 101, 1, "Oslo", "error", None).await;
    location(pool, 102, 0, "Uppsala", "done", Some((59.86, 17.64))).await;
    assert_eq!((bergen, oslo), (1, 2));
    sqlx::query("UPDATE band_locations SET confidence = 'NaN' WHERE id = 3")
        .execute(pool)
        .await
        .unwrap();
    for (key, raw, city, cost) in [
        ("k1", "Bergen", Some("Bergen"), "0.25"),
        ("k2", "Oslo", None, "NaN"),
    ] {
        sqlx::query(
            "INSERT INTO llm_cache (key, ma_id, location_raw, country, model, extraction,
                 prompt_tokens, completion_tokens, cost_usd, prompt, response)
             VALUES ($1, 101, $2, 'Norway', 'm70', $3, 100, 20, $4::numeric, 'prompt',
                 'response')",
        )
        .bind(key)
        .bind(raw)
        .bind(json!({"city": city, "region": null, "country": "Norway", "confidence": 0.5}))
        .bind(cost)
        .execute(pool)
        .await
        .unwrap();
    }
    let run = Run::start(pool, JobType::Incremental, None, None)
        .await
        .unwrap();
    run.log(Level::Info, "page 1 of 3").await.unwrap();
    run.write_stats(&json!({"total": 3, "processed": 1, "failed": 0}))
        .await
        .unwrap();
    sqlx::query("INSERT INTO job_triggers (job_type, created_by) VALUES ('full_crawl', 'admin')")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO crawl_checkpoint (key, value) VALUES ('wire_check', '2026-01-02')")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO service_health (service, state, checks, instance, last_write_at) VALUES
            ('crawler', 'ok', '{\"database\": true}', 'host:1', now() - interval '3 hours')",
    )
    .execute(pool)
    .await
    .unwrap();
}
