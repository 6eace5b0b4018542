//! `GET /api/search` from the in-memory copy (issue 18): with the public pool unable to
//! reach the database, a loaded copy still answers — the same answers the SQL search gives
//! in tests/public_cards.rs — and any write through the admin API or the import sets the
//! copy aside until it is reloaded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use bandmap_api::{AppState, build_router};
use bandmap_test_support::TestDb;
use bandmap_test_support::app::test_config;
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

async fn call(state: &AppState, method: &str, path: &str) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from("{}"))
        .unwrap();
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
    let (status, _) = call(&state, "GET", "/api/search?q=alp").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);

    assert!(state.name_search.catch_up(&state.pool).await.unwrap());
    let (status, body) = call(&state, "GET", "/api/search?q=ALP").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(names(&body), ["Alpha", "Alphabet", "The Alp"]);
    assert_eq!(
        body["items"][0],
        json!({"ma_id": 1, "name": "Alpha", "country": "Norway", "genre": "Black Metal", "lat": 59.91, "lon": 10.75})
    );
    assert_eq!(body["items"][1]["lat"], Value::Null);
    let (_, body) = call(&state, "GET", "/api/search?q=the%20alp").await;
    assert_eq!(names(&body)[0], "The Alp", "exact names first");
    let (_, body) = call(&state, "GET", "/api/search?q=_").await;
    assert_eq!(names(&body), ["100%_Noise"], "wildcards are literal");
    let (_, body) = call(&state, "GET", "/api/search?q=zzz").await;
    assert_eq!(body["items"], json!([]));
    let (status, _) = call(&state, "GET", "/api/search?q=%20").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // The card still needs the database: the copy is what answered above.
    let (status, _) = call(&state, "GET", "/api/bands/1").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn a_write_through_this_process_sets_the_copy_aside() {
    for (method, path) in [
        ("POST", "/admin/api/job-triggers"),
        ("PATCH", "/admin/api/bands/1"),
        ("POST", "/api/import/bands"),
    ] {
        let (_db, state) = state_without_public_database().await;
        state.name_search.catch_up(&state.pool).await.unwrap();
        assert!(state.name_search.fresh().is_some());
        // Refused (no session, no token) or not: a write may have stored something.
        let _ = call(&state, method, path).await;
        assert!(state.name_search.fresh().is_none(), "{method} {path}");
        let (status, _) = call(&state, "GET", "/api/search?q=alp").await;
        assert_eq!(
            status,
            StatusCode::SERVICE_UNAVAILABLE,
            "SQL answers: {method} {path}"
        );
    }
    // Reads do not.
    let (_db, state) = state_without_public_database().await;
    state.name_search.catch_up(&state.pool).await.unwrap();
    let _ = call(&state, "GET", "/admin/api/bands").await;
    assert!(state.name_search.fresh().is_some());
}
