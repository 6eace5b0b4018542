//! Issue 18, the service under abuse: the public rate limit, body limits per area, the
//! header-read timeout, the connection cap, the public pool's statement timeout (a request
//! that gives up leaves no query running), and a stopped server leaving no background task.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_api::AppState;
use bandmap_db::connect::{PoolSize, RetryPolicy, connect};
use bandmap_test_support::app::test_config;
use bandmap_test_support::{TestDb, spawn_app_with};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

/// A bound that only a broken server reaches (not a speed assertion).
const NEVER: Duration = Duration::from_secs(30);

async fn start(state: AppState) -> (String, CancellationToken) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    tokio::spawn(bandmap_api::server::serve_on(
        listener,
        state,
        shutdown.clone(),
    ));
    (base, shutdown)
}

#[tokio::test]
async fn public_database_endpoints_are_rate_limited_per_client_and_the_map_is_not() {
    // Refusals sent at once: a held 429 would give the bucket time to refill (the hold has
    // its own test below).
    let app = spawn_app_with(
        &[
            ("PUBLIC_RATE_PER_SEC", "1"),
            ("PUBLIC_RATE_BURST", "3"),
            ("HTTP_REFUSAL_DELAY_MS", "0"),
        ],
        None,
    )
    .await;
    for _ in 0..3 {
        let res = app
            .client
            .get(app.url("/api/search?q=abc"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
    // The card shares the client's bucket.
    let res = app
        .client
        .get(app.url("/api/bands/1"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limited");
    let res = app
        .client
        .get(app.url("/api/search?q=abc"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
    // The map answers from memory: not limited.
    let res = app
        .client
        .get(app.url("/api/clusters"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    // 429 is in the OpenAPI document of both limited endpoints.
    let doc = app.openapi().await;
    for path in ["/api/search", "/api/bands/{ma_id}"] {
        assert!(
            doc["paths"][path]["get"]["responses"]["429"].is_object(),
            "{path}"
        );
    }
}

#[tokio::test]
async fn oversized_bodies_are_refused_with_a_json_413() {
    let app = spawn_app_with(&[], None).await;
    let big = format!(
        r#"{{"username": "admin", "password": "{}"}}"#,
        "x".repeat(20_000)
    );
    let res = app
        .client
        .post(app.url("/admin/auth/login"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "bad_request");
}

#[tokio::test]
async fn a_client_that_does_not_finish_its_headers_is_disconnected() {
    let app = spawn_app_with(&[("HTTP_HEADER_TIMEOUT_SECS", "1")], None).await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut slow = TcpStream::connect(&addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    // The server ends the connection (possibly after a 408); without a header timeout the
    // read would wait forever.
    let read = tokio::time::timeout(NEVER, slow.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "the slow connection is still open");
    assert!(
        buf.is_empty() || buf.starts_with(b"HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    // An idle keep-alive connection is closed the same way.
    let mut idle = TcpStream::connect(&addr).await.unwrap();
    let read = tokio::time::timeout(NEVER, idle.read_to_end(&mut Vec::new())).await;
    assert!(read.is_ok(), "the idle connection is still open");
}

#[tokio::test]
async fn connections_past_the_cap_wait_until_one_ends() {
    let app = spawn_app_with(
        &[
            ("HTTP_MAX_CONNECTIONS", "2"),
            ("HTTP_HEADER_TIMEOUT_SECS", "60"),
        ],
        None,
    )
    .await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let first = TcpStream::connect(&addr).await.unwrap();
    let _second = TcpStream::connect(&addr).await.unwrap();
    let url = app.url("/healthz");
    let waiting = tokio::spawn(async move { reqwest::get(url).await.map(|r| r.status()) });
    // Both slots are held: the request cannot be answered (a wait, not a speed bound: a
    // correct server never answers here, however fast or slow the machine is).
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!waiting.is_finished(), "answered past the connection cap");
    drop(first);
    let status = tokio::time::timeout(NEVER, waiting)
        .await
        .expect("answered once a slot is free")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_public_query_past_its_statement_timeout_is_a_503_and_leaves_nothing_running() {
    let db = TestDb::new().await;
    let config = test_config(&db.url, &[]);
    let public = connect(
        &db.secret_url(),
        PoolSize {
            max_connections: 2,
            statement_timeout: Some(Duration::from_millis(300)),
            acquire_timeout: None,
        },
        RetryPolicy::default(),
    )
    .await
    .unwrap();
    let state = AppState::new(db.pool.clone(), config).with_public_pool(public);
    let names = state.name_search.clone();
    let (base, _stop) = start(state).await;
    // Another session holds the table: the search waits on the lock until its timeout.
    let mut blocker = db.pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE bands IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *blocker)
        .await
        .unwrap();
    // The in-memory copy, if it loaded before the lock, is set aside (its reload waits on the
    // lock too): the search runs in SQL.
    names.changed();
    let res = tokio::time::timeout(NEVER, reqwest::get(format!("{base}/api/search?q=alpha")))
        .await
        .expect("the statement timeout ended the wait")
        .unwrap();
    assert_eq!(res.status(), 503);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "internal");
    let left: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity
         WHERE datname = current_database() AND state = 'active' AND query LIKE '%ILIKE%'
           AND pid <> pg_backend_pid()",
    )
    .fetch_one(&mut *blocker)
    .await
    .unwrap();
    assert_eq!(left, 0, "the search's query is still running");
    blocker.rollback().await.unwrap();
    // The admin pool was never involved: the probe answers.
    let ready = reqwest::get(format!("{base}/readyz")).await.unwrap();
    assert_eq!(ready.status(), 200);
}

#[tokio::test]
async fn a_stopped_server_leaves_no_background_task_behind() {
    let db = TestDb::new().await;
    let state = AppState::new(db.pool.clone(), test_config(&db.url, &[]));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    // The process keeps running (its shutdown token never fires), as under `bandmap all`
    // when the supervisor restarts `serve`.
    let process = CancellationToken::new();
    let run = tokio::spawn(bandmap_api::server::serve_on(
        listener,
        state.clone(),
        process.clone(),
    ));
    // The map refresh task holds the index while it runs.
    wait_for(
        || Arc::strong_count(&state.map) > 2,
        "the refresh task to start",
    )
    .await;
    run.abort();
    let _ = run.await;
    wait_for(
        || Arc::strong_count(&state.map) == 1,
        "the refresh task of the stopped server to end",
    )
    .await;
    assert!(!process.is_cancelled());
}

async fn wait_for(cond: impl Fn() -> bool, what: &str) {
    let deadline = tokio::time::Instant::now() + NEVER;
    while !cond() {
        assert!(tokio::time::Instant::now() < deadline, "waited for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A refusal is held before it is sent (`HTTP_REFUSAL_DELAY_MS`): while the client waits,
/// the tarpit counts it and no answer has arrived; then the 429 comes.
#[tokio::test]
async fn a_refused_client_gets_its_429_only_after_the_hold() {
    let app = spawn_app_with(
        &[
            ("PUBLIC_RATE_PER_SEC", "1"),
            ("PUBLIC_RATE_BURST", "1"),
            ("HTTP_REFUSAL_DELAY_MS", "5000"),
        ],
        None,
    )
    .await;
    let url = app.url("/api/search?q=abc");
    assert_eq!(app.client.get(&url).send().await.unwrap().status(), 200);
    assert_eq!(app.state.tarpit.holding(), 0);
    let refused = tokio::spawn({
        let client = app.client.clone();
        async move { client.get(&url).send().await.unwrap().status() }
    });
    tokio::time::timeout(NEVER, async {
        while app.state.tarpit.holding() == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the refusal is held");
    assert!(
        !refused.is_finished(),
        "the 429 was sent before its hold ended"
    );
    let status = tokio::time::timeout(NEVER, refused).await.unwrap().unwrap();
    assert_eq!(status, 429);
    assert_eq!(app.state.tarpit.holding(), 0, "the hold is given back");
}
