//! The typed query parameters (issue 26 "typed edges"), through the server: the OpenAPI
//! document still describes the parameters it described when they were parsed by hand
//! (a fixture taken from that document), enum values are accepted in any case, unknown
//! parameters are still ignored, and a bad value is still CONTRACT's JSON 400 naming it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::spawn_app;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// What a client reads of a query parameter: where, whether required, and the schema's
/// type, bounds and values.
fn described(doc: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for p in op["parameters"].as_array().into_iter().flatten() {
                if p["in"] != "query" {
                    continue;
                }
                let s = schema_of(&p["schema"]);
                let key = format!("{method} {path} {}", p["name"].as_str().unwrap());
                out.insert(
                    key,
                    json!({
                        "required": p["required"].as_bool().unwrap_or(false),
                        "type": s["type"],
                        "enum": s["enum"],
                        "minimum": s["minimum"],
                        "maximum": s["maximum"],
                        "pattern": s["pattern"],
                        "maxLength": s["maxLength"],
                        "minLength": s["minLength"],
                    }),
                );
            }
        }
    }
    out
}

/// The schema with an optional value's `null` alternative removed, and `type` reduced to
/// the non-null type.
fn schema_of(s: &Value) -> Value {
    if let Some(alts) = s["oneOf"].as_array()
        && let Some(real) = alts.iter().find(|a| a["type"] != "null")
    {
        return schema_of(real);
    }
    let mut s = s.clone();
    if let Some(types) = s["type"].as_array() {
        let real: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if let [one] = real[..] {
            s["type"] = one.clone();
        }
    }
    s
}

const FIXTURE: &str = "tests/api/fixtures/query_parameters.json";

#[tokio::test]
async fn the_query_parameters_are_described_as_before() {
    let app = spawn_app().await;
    let now = described(&app.openapi().await);
    if std::env::var_os("BANDMAP_WRITE_PARAM_FIXTURE").is_some() {
        std::fs::write(FIXTURE, serde_json::to_string_pretty(&now).unwrap()).unwrap();
    }
    let before: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    assert_eq!(now, before);
}

/// `GET path` (with the admin session when `cookie` is given): status and JSON body.
async fn get(
    app: &bandmap_test_support::app::TestApp,
    cookie: Option<&str>,
    path: &str,
) -> (u16, Value) {
    let req = match cookie {
        Some(c) => app.admin(reqwest::Method::GET, path, c),
        None => app.client.get(app.url(path)),
    };
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn a_bad_value_is_a_json_400_naming_the_parameter() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    for (path, admin, message) in [
        (
            "/api/clusters?zoom=21",
            false,
            "zoom must be an integer from 0 to 20",
        ),
        (
            "/api/clusters?bbox=1,2,3",
            false,
            "bbox must be minLon,minLat,maxLon,maxLat (four numbers)",
        ),
        (
            "/api/flows?year_min=199x",
            false,
            "year_min must be an integer",
        ),
        (
            "/api/flows?limit=0",
            false,
            "limit must be an integer from 1 to 200",
        ),
        (
            "/admin/api/bands?has_conflict=yes",
            true,
            "has_conflict must be true, false, 1 or 0",
        ),
        (
            "/admin/api/health?limit=abc",
            true,
            "limit must be a non-negative integer",
        ),
        (
            "/admin/api/logs?level=loud",
            true,
            "level must be one of: debug, info, warn, error",
        ),
        (
            "/admin/api/charts/llm?days=x",
            true,
            "days must be an integer",
        ),
    ] {
        let (status, body) = get(&app, admin.then_some(cookie.as_str()), path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(
            body,
            json!({"error": {"code": "bad_request", "message": message}}),
            "{path}"
        );
    }
    // The family's message lists the known names; another parameter's failure keeps the
    // extractor's own message.
    let (_, body) = get(&app, None, "/api/countries?family=polka").await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("family: unknown genre family \"polka\"")
    );
    let (status, body) = get(&app, None, "/api/clusters?zoom=1&zoom=2").await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "invalid query: Failed to deserialize query string: duplicate field `zoom`"
    );
}

#[tokio::test]
async fn enum_values_are_read_in_any_case() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    let (status, lower) = get(&app, None, "/api/clusters?breakdown=families").await;
    assert_eq!(status, 200);
    assert_eq!(
        get(&app, None, "/api/clusters?breakdown=FAMILIES").await,
        (200, lower)
    );
    for path in [
        "/admin/api/logs?level=WARN",
        "/admin/api/job-triggers?status=Pending",
        "/admin/api/locations?status=DONE",
        "/admin/api/activity?kind=Run",
        "/admin/api/charts/geocoding?range=30D",
    ] {
        let (status, body) = get(&app, Some(&cookie), path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let (_, body) = get(&app, Some(&cookie), "/admin/api/charts/geocoding?range=30D").await;
    assert_eq!(body["range"], "30d", "answered in the stored spelling");
}

#[tokio::test]
async fn unknown_parameters_are_ignored_and_blank_ones_absent() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    let plain = get(&app, None, "/api/clusters").await;
    assert_eq!(plain.0, 200);
    assert_eq!(
        get(&app, None, "/api/clusters?colour=red&limit=x").await,
        plain
    );
    assert_eq!(
        get(&app, None, "/api/clusters?zoom=&bbox=%20&genre=").await,
        plain
    );
    let bands = get(&app, Some(&cookie), "/admin/api/bands").await;
    assert_eq!(bands.0, 200);
    assert_eq!(
        get(&app, Some(&cookie), "/admin/api/bands?has_lat=&sort=&foo=1").await,
        bands
    );
}
