//! `GET /api/search` from the in-memory copy (issue 18): with the public pool unable to
//! reach the database, a loaded copy still answers — the same answers the SQL search gives
//! in tests/api/public_cards.rs — and an accepted write through the admin API or the import
//! sets the copy aside until it is reloaded, while a refused one does not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use bandmap_api::{AppState, build_router};
use bandmap_test_support::TestDb;
use bandmap_test_support::app::{IMPORT_TOKEN, test_config};
use serde_json::{Value, json};
use sqlx::postgres::PgPoolOptions;
use std::time::Duration;
use tower::ServiceExt;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, lat, lon) VALUES
 (1, 'Alpha', 'Black Metal', 'Norway', 'NO', 59.91, 10.75),
 (2, 'Alphabet', 'Death Metal', 'Sweden', 'SE', NULL, NULL),
 (3, 'The Alp', NULL, NULL, NULL, NULL, NULL),
 (4, '100%_Noise', 'Noise', 'Finland', 'FI', NULL, NULL);
"#;

/// State whose public pool points at a port where no database listens.
async fn state_without_public_database() -> (TestDb, AppState) {
    let db = TestDb::new().await;
    sqlx::raw_sql(SEED).execute(&db.pool).await.unwrap();
    let config = test_config(&db.url, &[]);
    let dead = PgPoolOptions::new()
        .acquire_timeout(Duration::from_secs(2))
        .connect_lazy("postgres://nobody@127.0.0.1:9/none")
        .unwrap();
    let state = AppState::new(db.pool.clone(), config).with_public_pool(dead);
    (db, state)
}

async fn call(
    state: &AppState,
    method: &str,
    path: &str,
    authorization: Option<&str>,
    body: &str,
) -> (StatusCode, Value) {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json");
    if let Some(a) = authorization {
        req = req.header("authorization", a);
    }
    let req = req.body(Body::from(body.to_string())).unwrap();
    let res = build_router(state.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn names(body: &Value) -> Vec<&str> {
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_loaded_copy_answers_without_the_database() {
    let (_db, state) = state_without_public_database().await;
    // Not loaded yet: the search needs the (unreachable) database.
    let (status, _) = call(&state, "GET", "/api/search?q=alp", None, "").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);

    assert!(state.read.name_search.catch_up(&state.pool).await.unwrap());
    let (status, body) = call(&state, "GET", "/api/search?q=ALP", None, "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(names(&body), ["Alpha", "Alphabet", "The Alp"]);
    assert_eq!(
        body["items"][0],
        json!({"ma_id": 1, "name": "Alpha", "country": "Norway", "genre": "Black Metal", "lat": 59.91, "lon": 10.75})
    );
    assert_eq!(body["items"][1]["lat"], Value::Null);
    let (_, body) = call(&state, "GET", "/api/search?q=the%20alp", None, "").await;
    assert_eq!(names(&body)[0], "The Alp", "exact names first");
    let (_, body) = call(&state, "GET", "/api/search?q=_", None, "").await;
    assert_eq!(names(&body), ["100%_Noise"], "wildcards are literal");
    let (_, body) = call(&state, "GET", "/api/search?q=zzz", None, "").await;
    assert_eq!(body["items"], json!([]));
    let (status, _) = call(&state, "GET", "/api/search?q=%20", None, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // The card still needs the database: the copy is what answered above.
    let (status, _) = call(&state, "GET", "/api/bands/1", None, "").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn an_accepted_write_through_this_process_sets_the_copy_aside() {
    let (_db, state) = state_without_public_database().await;
    state.read.name_search.catch_up(&state.pool).await.unwrap();
    // Refused writes wrote nothing and do not count: no session, no token.
    for (method, path) in [
        ("POST", "/admin/api/job-triggers"),
        ("PATCH", "/admin/api/bands/1"),
        ("POST", "/api/import/bands"),
    ] {
        let (status, _) = call(&state, method, path, None, "{}").await;
        assert!(status.is_client_error(), "{method} {path}: {status}");
        assert!(state.read.name_search.fresh().is_some(), "{method} {path}");
    }
    // Reads do not count either.
    let (status, _) = call(&state, "GET", "/admin/api/bands", None, "").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(state.read.name_search.fresh().is_some());
    // An import with the token does: the copy is set aside, the search runs in SQL (here:
    // the unreachable database, 503) until the copy is reloaded — with the new band.
    let bearer = format!("Bearer {IMPORT_TOKEN}");
    let (status, body) = call(
        &state,
        "POST",
        "/api/import/bands",
        Some(&bearer),
        r#"[{"ma_id": 50, "name": "Alpenglow", "country_code": "NO"}]"#,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(state.read.name_search.fresh().is_none());
    let (status, _) = call(&state, "GET", "/api/search?q=alp", None, "").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(state.read.name_search.catch_up(&state.pool).await.unwrap());
    let (status, body) = call(&state, "GET", "/api/search?q=alpen", None, "").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(names(&body), ["Alpenglow"]);
}
