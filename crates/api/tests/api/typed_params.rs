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
    if let Some(alts) = s["oneOf"].as_array() {
        if let Some(real) = alts.iter().find(|a| a["type"] != "null") {
            return schema_of(real);
        }
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
