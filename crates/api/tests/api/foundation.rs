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
    assert_eq!(r.status(), 503, "unavailable, not a server bug");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "internal");
    assert_eq!(
        body["error"]["message"], "database unreachable",
        "no internals leak"
    );
}

#[tokio::test]
async fn openapi_document_is_served() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(doc["paths"]["/healthz"].is_object());
    assert!(doc["paths"]["/readyz"].is_object());
    // The search's `q` is documented as the handler checks it: required, not blank.
    let q = &doc["paths"]["/api/search"]["get"]["parameters"][0];
    assert_eq!(
        (q["name"].as_str(), q["required"].as_bool()),
        (Some("q"), Some(true))
    );
    assert_eq!(q["schema"]["minLength"], 1);
    assert_eq!(q["schema"]["pattern"], "\\S");
    // The band PATCH body: `name` optional but never null or blank; any number of keys.
    let patch = &doc["components"]["schemas"]["BandPatchRequest"];
    assert!(patch.get("maxProperties").is_none(), "{patch}");
    assert_eq!(patch["properties"]["name"]["type"], "string");
    assert_eq!(patch["properties"]["name"]["pattern"], "\\S");
    let required = patch["required"].as_array().map_or(0, Vec::len);
    assert_eq!(required, 0, "{patch}");
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

#[tokio::test]
async fn a_wrong_method_is_a_json_405() {
    let app = spawn_app().await;
    for (method, path) in [
        (reqwest::Method::POST, "/healthz"),
        (reqwest::Method::DELETE, "/api/clusters"),
        (reqwest::Method::PUT, "/admin/auth/login"),
    ] {
        let r = app
            .client
            .request(method.clone(), app.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 405, "{method} {path}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"]["code"], "bad_request", "{method} {path}");
    }
}

#[tokio::test]
async fn body_rejections_keep_their_own_4xx() {
    let app = spawn_app().await;
    let login = app.url("/admin/auth/login");
    let r = app
        .client
        .post(&login)
        .header("content-type", "text/plain")
        .body(r#"{"username":"a","password":"b"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 415);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "bad_request");

    // Over axum's default 2 MB body limit.
    let huge = format!(r#"{{"username":"{}","password":"b"}}"#, "x".repeat(3 << 20));
    let r = app
        .client
        .post(&login)
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "bad_request");

    let r = app
        .client
        .post(&login)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

#[tokio::test]
async fn the_map_page_carries_the_configured_tile_url() {
    let app = bandmap_test_support::spawn_app_with(&[("MAP_TILE_URL", "none")], None).await;
    let page = app.get_text("/").await;
    assert!(
        page.contains(r#"<meta name="bandmap-tiles" content="none">"#),
        "{page}"
    );
    let app = spawn_app().await;
    let page = app.get_text("/").await;
    let default = format!(
        r#"<meta name="bandmap-tiles" content="{}">"#,
        bandmap_config::DEFAULT_TILE_URL
    );
    assert!(page.contains(&default), "{page}");
}
