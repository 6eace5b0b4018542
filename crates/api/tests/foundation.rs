//! The server foundation: probes, the OpenAPI document, JSON errors, static files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::spawn_app;
use serde_json::Value;

#[tokio::test]
async fn probes_answer() {
    let app = spawn_app().await;
    let r = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn readyz_fails_when_the_database_is_gone() {
    let app = spawn_app().await;
    app.state.pool.close().await;
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), 500);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "internal");
    assert_eq!(
        body["error"]["message"], "internal error",
        "no internals leak"
    );
}

#[tokio::test]
async fn openapi_document_is_served() {
    let app = spawn_app().await;
    let doc: Value = app
        .client
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(doc["paths"]["/healthz"].is_object());
    assert!(doc["paths"]["/readyz"].is_object());
}

#[tokio::test]
async fn unknown_paths_are_json_404s() {
    let app = spawn_app().await;
    for path in [
        "/api/nope",
        "/admin/api/audit-log",
        "/admin/api/conflicts",
        "/nothing/here",
    ] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 404, "{path}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "not_found", "{path}");
    }
}

#[tokio::test]
async fn front_end_pages_are_served_same_origin() {
    let app = spawn_app().await;
    let r = app.client.get(app.url("/")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let r = app.client.get(app.url("/admin/")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = app
        .client
        .get(app.url("/admin/app.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    let r = app
        .client
        .get(app.url("/map/%2e%2e/%2e%2e/Cargo.toml"))
        .send()
        .await
        .unwrap();
    assert_ne!(r.status(), 200);
}
