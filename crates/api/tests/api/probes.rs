//! Probes with the database gone: `/readyz` answers 503 on its own short timeout (not the
//! pool's 10 s) whether PostgreSQL refuses or never answers, and 200 again once it is back;
//! `/healthz` never touches the database. The app reaches PostgreSQL through a loopback proxy
//! the test switches off and on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::db_proxy::{DbProxy, Mode};
use bandmap_api::AppState;
use bandmap_api::probes::READY_TIMEOUT;
use bandmap_db::connect::{PoolSize, RetryPolicy, connect};
use bandmap_test_support::TestDb;
use bandmap_test_support::app::test_config;
use secrecy::SecretString;
use sqlx::postgres::PgConnectOptions;
use std::time::Duration;
use tokio_util::sync::{CancellationToken, DropGuard};

/// A liveness bound for one probe answer (the test must not hang on the pool's 10 s
/// acquire timeout), not a performance assertion.
const NO_HANG: Duration = Duration::from_secs(5);

struct App {
    base: String,
    client: reqwest::Client,
    proxy: DbProxy,
    _stop: DropGuard,
    _db: TestDb,
}

/// The server on a pool built as production builds it, through the proxy.
async fn spawn_behind_proxy() -> App {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let db = TestDb::new().await;
    let opts: PgConnectOptions = db.url.parse().unwrap();
    let target = format!("{}:{}", opts.get_host(), opts.get_port());
    let proxy = DbProxy::start(target.clone()).await;
    let url = db
        .url
        .replacen(&target, &format!("127.0.0.1:{}", proxy.port), 1);
    assert_ne!(url, db.url, "the app must go through the proxy");
    let pool = connect(
        &SecretString::from(url.clone()),
        PoolSize::default(),
        RetryPolicy::default(),
    )
    .await
    .unwrap();
    let state = AppState::new(pool, test_config(&url, &[]));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone().drop_guard();
    tokio::spawn(bandmap_api::server::serve_on(listener, state, shutdown));
    App {
        base,
        client: reqwest::Client::new(),
        proxy,
        _stop: stop,
        _db: db,
    }
}

impl App {
    /// Status of `GET path`, failing the test if no answer comes within [`NO_HANG`].
    async fn status(&self, path: &str) -> u16 {
        let request = self.client.get(format!("{}{path}", self.base)).send();
        let response = tokio::time::timeout(NO_HANG, request)
            .await
            .unwrap_or_else(|_| panic!("{path} did not answer"))
            .unwrap();
        response.status().as_u16()
    }
}

#[test]
fn the_readiness_check_waits_at_most_a_second() {
    assert!(READY_TIMEOUT <= Duration::from_secs(1), "{READY_TIMEOUT:?}");
    assert!(
        READY_TIMEOUT < RetryPolicy::default().attempt_timeout,
        "shorter than the pool's own acquire timeout"
    );
}

#[tokio::test]
async fn readyz_follows_the_database_and_healthz_ignores_it() {
    let app = spawn_behind_proxy().await;
    assert_eq!(app.status("/readyz").await, 200);

    app.proxy.set(Mode::Refuse);
    assert_eq!(app.status("/readyz").await, 503, "refused");
    assert_eq!(
        app.status("/healthz").await,
        200,
        "liveness ignores the database"
    );

    app.proxy.set(Mode::BlackHole);
    assert_eq!(app.status("/readyz").await, 503, "never answers");
    assert_eq!(app.status("/healthz").await, 200);

    app.proxy.set(Mode::Forward);
    assert_eq!(
        app.status("/readyz").await,
        200,
        "ready again once it is back"
    );
    assert_eq!(app.status("/healthz").await, 200);
}
