//! Issue 18, the service under abuse: the public rate limit, body limits per area, the
//! header-read timeout, the connection cap, the public pool's statement timeout (a request
//! that gives up leaves no query running), and a stopped server leaving no background task;
//! issue 31: one client cannot hold the connections (per-address caps, a write-progress
//! deadline, a body deadline).
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
    let names = state.read.name_search.clone();
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
    // The backend marks itself idle just after it sends the error, so the 503 can arrive
    // first: poll until the session is idle. A query the timeout did not end would stay
    // active while the lock is held (until the rollback below), so this still fails then.
    let mut left: i64 = -1;
    for _ in 0..100 {
        left = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND state = 'active' AND query LIKE '%ILIKE%'
               AND pid <> pg_backend_pid()",
        )
        // Outside the blocker's transaction: a transaction keeps its first view of
        // pg_stat_activity, each statement on the pool gets a fresh one.
        .fetch_one(&db.pool)
        .await
        .unwrap();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        left, 0,
        "the search's query is still running 10 s after its 503"
    );
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
    // The map refresh task holds the index while it runs (the server's own copies of the
    // state share one handle, which holds the index once).
    wait_for(
        || Arc::strong_count(&state.read.map) > 1,
        "the refresh task to start",
    )
    .await;
    run.abort();
    let _ = run.await;
    wait_for(
        || Arc::strong_count(&state.read.map) == 1,
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
    assert_eq!(app.state.guards.tarpit.holding(), 0);
    let refused = tokio::spawn({
        let client = app.client.clone();
        async move { client.get(&url).send().await.unwrap().status() }
    });
    tokio::time::timeout(NEVER, async {
        while app.state.guards.tarpit.holding() == 0 {
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
    assert_eq!(
        app.state.guards.tarpit.holding(),
        0,
        "the hold is given back"
    );
}

// ---- Issue 31: slow clients -------------------------------------------------------------

/// How long a probe may take before the service counts as off the air (a liveness bound,
/// far above any answer on a working server; the latencies are measured in
/// bench/slow-clients and written in docs/reliability.md).
const PROBE_BOUND: Duration = Duration::from_secs(5);

/// A connection from `source` (another loopback address than the probes' 127.0.0.1).
async fn connect_from(source: &str, addr: &str) -> Option<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4().ok()?;
    socket.bind(format!("{source}:0").parse().ok()?).ok()?;
    socket.connect(addr.parse().ok()?).await.ok()
}

/// The service still answers its probe and a band card, from another address.
async fn still_answers(base: &str) {
    let client = reqwest::Client::builder()
        .timeout(PROBE_BOUND)
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    for path in ["/healthz", "/api/bands/1"] {
        let res = client
            .get(format!("{base}{path}"))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{path} did not answer: {e}"));
        assert_eq!(res.status(), 200, "{path}");
    }
}

async fn seed_one_band(app: &bandmap_test_support::TestApp) {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, lat, lon, data)
         VALUES (1, 'Alpha', 'Norway', 'NO', 59.9, 10.7, '{}')",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn one_client_with_520_non_reading_connections_cannot_take_the_service_off_the_air() {
    // No proxy in front (the direct exposure the Dockerfile allows): every peer is a client.
    let app = spawn_app_with(&[("TRUST_PROXY", "false")], None).await;
    seed_one_band(&app).await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let pipelined =
        "GET /api/openapi.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n".repeat(30);
    let mut attack = Vec::new();
    for _ in 0..520 {
        if let Some(mut c) = connect_from("127.0.0.2", &addr).await {
            // A connection the server already closed fails here: that is the point.
            let _ = c.write_all(pipelined.as_bytes()).await;
            attack.push(c);
        }
    }
    assert!(attack.len() >= 500, "the attack could not be set up");
    still_answers(&app.base).await;
    drop(attack);
}

#[tokio::test]
async fn one_client_with_600_trickling_logins_cannot_take_the_service_off_the_air() {
    let app = spawn_app_with(&[("TRUST_PROXY", "false")], None).await;
    seed_one_band(&app).await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let head = "POST /admin/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                Content-Length: 200\r\n\r\n{";
    let mut attack = Vec::new();
    for _ in 0..600 {
        if let Some(mut c) = connect_from("127.0.0.2", &addr).await {
            let _ = c.write_all(head.as_bytes()).await;
            attack.push(c);
        }
    }
    assert!(attack.len() >= 580, "the attack could not be set up");
    // One more byte each, as a trickle does, then the probes.
    for c in &mut attack {
        let _ = c.write_all(b" ").await;
    }
    still_answers(&app.base).await;
    drop(attack);
}

#[tokio::test]
async fn a_trickled_body_is_cut_off_with_a_408() {
    let app = spawn_app_with(&[("HTTP_BODY_TIMEOUT_SECS", "1")], None).await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut c = TcpStream::connect(&addr).await.unwrap();
    c.write_all(
        b"POST /admin/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 60\r\n\r\n{\"username\"",
    )
    .await
    .unwrap();
    let mut buf = Vec::new();
    let read = tokio::time::timeout(NEVER, c.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "the trickling connection is still open");
    let text = String::from_utf8_lossy(&buf);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"code\":\"bad_request\""), "{text}");
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM admin_login_attempts")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(rows, 0, "nothing was attempted");
}

#[tokio::test]
async fn a_client_that_stops_reading_is_disconnected_after_the_write_timeout() {
    let app = spawn_app_with(
        &[
            ("HTTP_WRITE_TIMEOUT_SECS", "1"),
            ("HTTP_HEADER_TIMEOUT_SECS", "120"),
        ],
        None,
    )
    .await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut c = TcpStream::connect(&addr).await.unwrap();
    let one = "GET /api/openapi.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n";
    let requests = 200;
    c.write_all(one.repeat(requests).as_bytes()).await.unwrap();
    // Not reading: the socket buffers fill and the server's writes stop progressing.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let mut buf = Vec::new();
    let read = tokio::time::timeout(NEVER, c.read_to_end(&mut buf)).await;
    assert!(
        read.is_ok(),
        "still open: the server waited for the client to read"
    );
    let answered = buf
        .windows(b"HTTP/1.1 200".len())
        .filter(|w| w == b"HTTP/1.1 200")
        .count();
    assert!(
        answered < requests,
        "all {requests} answers were written: the connection was not cut"
    );
}

#[tokio::test]
async fn a_peer_past_its_connection_share_is_closed_at_once_and_others_are_not() {
    let app = spawn_app_with(
        &[
            ("TRUST_PROXY", "false"),
            ("HTTP_MAX_CONNECTIONS_PER_ADDRESS", "3"),
            ("HTTP_HEADER_TIMEOUT_SECS", "60"),
        ],
        None,
    )
    .await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from("127.0.0.3", &addr).await.unwrap());
    }
    // The fourth is accepted and closed before a byte is read: its read ends at once.
    let mut fourth = connect_from("127.0.0.3", &addr).await.unwrap();
    let _ = fourth
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let mut buf = Vec::new();
    let read = tokio::time::timeout(NEVER, fourth.read_to_end(&mut buf)).await;
    assert!(read.is_ok(), "the fourth connection was kept");
    assert!(buf.is_empty(), "{}", String::from_utf8_lossy(&buf));
    // Another address is served, and so is the first one once a connection ends.
    let res = reqwest::get(app.url("/healthz")).await.unwrap();
    assert_eq!(res.status(), 200);
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut again = connect_from("127.0.0.3", &addr).await.unwrap();
    again
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(NEVER, again.read_to_end(&mut buf))
        .await
        .unwrap()
        .unwrap();
    assert!(
        buf.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
}

#[tokio::test]
async fn country_counts_answer_from_memory_with_the_public_pool_taken_and_are_rate_limited() {
    let db = TestDb::new().await;
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, genre, formed_year)
         SELECT i, 'B' || i, 'Norway', 'NO', 'Black Metal', 1990 + i % 20
         FROM generate_series(1, 500) i",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let config = test_config(
        &db.url,
        &[("PUBLIC_RATE_BURST", "20"), ("PUBLIC_RATE_PER_SEC", "1")],
    );
    let public = connect(
        &db.secret_url(),
        PoolSize {
            max_connections: 1,
            statement_timeout: None,
            acquire_timeout: Some(Duration::from_secs(1)),
        },
        RetryPolicy::default(),
    )
    .await
    .unwrap();
    let state = AppState::new(db.pool.clone(), config).with_public_pool(public.clone());
    let names = state.read.name_search.clone();
    let (base, _stop) = start(state).await;
    // The refresh task's first round loads the map, hears the catalogue as a change and
    // loads the copy: wait until the copy is fresh and stays so (nothing changes after).
    wait_for(
        || names.fresh_countries().is_some(),
        "the country copy loaded",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    wait_for(
        || names.fresh_countries().is_some(),
        "the country copy loaded",
    )
    .await;
    // Every public connection is taken (a flood of card requests, say).
    let held = public.acquire().await.unwrap();
    let client = reqwest::Client::new();
    let requests = (0..16).map(|_| {
        let client = client.clone();
        let url = format!("{base}/api/countries?year_min=2000");
        async move { client.get(url).send().await.unwrap() }
    });
    for res in futures::future::join_all(requests).await {
        assert_eq!(res.status(), 200, "answered without the database");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["items"][0]["bands"], 250);
    }
    drop(held);
    // The card answers beside a burst of counts.
    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (900, 'Card')")
        .execute(&db.pool)
        .await
        .unwrap();
    let card = client
        .get(format!("{base}/api/bands/900"))
        .send()
        .await
        .unwrap();
    assert_eq!(card.status(), 200);
    // The counts are under the public rate limit: past the burst, 429.
    let mut refused = 0;
    for _ in 0..10 {
        let res = client
            .get(format!("{base}/api/countries"))
            .send()
            .await
            .unwrap();
        if res.status() == 429 {
            refused += 1;
        }
    }
    assert!(refused > 0, "no country request was refused past the burst");
}

#[tokio::test]
async fn flows_share_the_public_rate_limit_and_the_clusters_do_not() {
    let app = spawn_app_with(
        &[
            ("PUBLIC_RATE_PER_SEC", "1"),
            ("PUBLIC_RATE_BURST", "2"),
            ("HTTP_REFUSAL_DELAY_MS", "0"),
        ],
        None,
    )
    .await;
    let get = |path: &str| app.client.get(app.url(path)).send();
    assert_eq!(get("/api/flows?zoom=3").await.unwrap().status(), 200);
    assert_eq!(
        get("/api/flows/bands?zoom=3&from=1,1&to=2,2")
            .await
            .unwrap()
            .status(),
        200
    );
    let res = get("/api/flows?zoom=6").await.unwrap();
    assert_eq!(res.status(), 429);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limited");
    assert_eq!(get("/api/flows/bands?zoom=3").await.unwrap().status(), 429);
    // The clusters answer from memory in microseconds: never limited.
    for _ in 0..5 {
        assert_eq!(get("/api/clusters?zoom=6").await.unwrap().status(), 200);
    }
    let doc = app.openapi().await;
    for path in ["/api/flows", "/api/flows/bands"] {
        assert!(
            doc["paths"][path]["get"]["responses"]["429"].is_object(),
            "{path}"
        );
    }
}
