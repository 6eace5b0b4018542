//! Helpers shared by the admin API integration tests: seeding rows with SQL, sending
//! authenticated requests, and checking JSON error bodies and audit rows.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::TestApp;
use reqwest::{Method, Response};
use serde_json::Value;
use sqlx::PgPool;

/// Inserts a band.
pub async fn band(pool: &PgPool, ma_id: i64, name: &str) {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code) VALUES ($1, $2, 'Norway', 'NO')",
    )
    .bind(ma_id)
    .bind(name)
    .execute(pool)
    .await
    .unwrap();
}

/// Inserts a band_locations row; returns its id.
pub async fn location(
    pool: &PgPool,
    ma_id: i64,
    step: i32,
    raw: &str,
    status: &str,
    point: Option<(f64, f64)>,
) -> i64 {
    sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, country,
             country_code, geocode_status, lat, lon, provider, confidence, attempts, error,
             geocode_granularity)
         VALUES ($1, $2, $2, $3, 'Norway', 'NO', $4, $5, $6,
             CASE WHEN $5::float8 IS NULL THEN NULL ELSE 'gazetteer' END,
             CASE WHEN $5::float8 IS NULL THEN NULL ELSE 0.9 END, 2,
             CASE WHEN $4 = 'error' THEN 'boom' END, 'city')
         RETURNING id",
    )
    .bind(ma_id)
    .bind(step)
    .bind(raw)
    .bind(status)
    .bind(point.map(|p| p.0))
    .bind(point.map(|p| p.1))
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Sends an authenticated request; writes carry `Content-Type: application/json` and
/// `body` (or `{}`).
pub async fn send(
    app: &TestApp,
    cookie: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Response {
    let mut req = app.admin(method.clone(), path, cookie);
    if method != Method::GET {
        req = req.header("content-type", "application/json").body(
            body.unwrap_or(Value::Object(Default::default()))
                .to_string(),
        );
    }
    req.send().await.unwrap()
}

/// GET with the session; asserts 200 and returns the JSON body.
pub async fn get_ok(app: &TestApp, cookie: &str, path: &str) -> Value {
    let r = send(app, cookie, Method::GET, path, None).await;
    assert_eq!(r.status(), 200, "GET {path}");
    r.json().await.unwrap()
}

/// Asserts a JSON error answer with this status and code.
pub async fn assert_error(r: Response, status: u16, code: &str) {
    let got = r.status();
    let url = r.url().to_string();
    let text = r.text().await.unwrap();
    assert_eq!(got, status, "{url}: {text}");
    let body: Value =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{url}: not JSON: {text}"));
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"].is_string());
}

/// Asserts that a request without the session cookie is a JSON 401.
pub async fn assert_needs_session(app: &TestApp, method: Method, path: &str) {
    // A fresh client: the app's client keeps the session in its cookie jar.
    let mut req = reqwest::Client::new().request(method.clone(), app.url(path));
    if method != Method::GET {
        req = req.header("content-type", "application/json").body("{}");
    }
    assert_error(req.send().await.unwrap(), 401, "unauthorized").await;
}

/// The audit rows of one action: (target, before, after, username).
pub async fn audit_rows(
    pool: &PgPool,
    action: &str,
) -> Vec<(Option<String>, Option<Value>, Option<Value>, String)> {
    sqlx::query_as(
        "SELECT target, before, after, username FROM admin_audit_log WHERE action = $1 ORDER BY id",
    )
    .bind(action)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// crawl_log lines mentioning an action.
pub async fn log_lines_for(pool: &PgPool, action: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM crawl_log WHERE message LIKE '%' || $1 || '%'")
        .bind(action)
        .fetch_one(pool)
        .await
        .unwrap()
}
