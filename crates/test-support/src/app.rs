//! `spawn_app()`: a fresh database plus the real server on 127.0.0.1:0, and an HTTP client
//! with a cookie jar (zero-to-production's pattern).

use crate::TestDb;
use bandmap_api::AppState;
use bandmap_config::Config;
use std::collections::HashMap;
use std::sync::Arc;
use tokio_util::sync::{CancellationToken, DropGuard};

/// Admin credentials of every spawned app.
pub const ADMIN_USER: &str = "admin";
/// Plaintext password of the spawned app's admin.
pub const ADMIN_PASSWORD: &str = "correct horse battery staple";
/// Import token of the spawned app.
pub const IMPORT_TOKEN: &str = "import-token-for-tests-0123456789";
/// JWT secret of the spawned app.
pub const JWT_SECRET: &str = "test-jwt-secret-0123456789abcdef0123456789";

/// A running app.
pub struct TestApp {
    /// Its database (dropped after the server).
    pub db: TestDb,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Client with a cookie jar, not logged in.
    pub client: reqwest::Client,
    /// The state the server runs with (pool, config, clock).
    pub state: AppState,
    /// Stops the server when the app is dropped.
    _stop: DropGuard,
}

/// Configuration of spawned apps: admin seed, secrets, and `overrides` on top.
pub fn test_config(db_url: &str, overrides: &[(&str, &str)]) -> Config {
    let mut vars: HashMap<String, String> = [
        ("DATABASE_URL", db_url),
        ("ADMIN_SEED_USERNAME", ADMIN_USER),
        ("ADMIN_SEED_PASSWORD", ADMIN_PASSWORD),
        ("ADMIN_JWT_SECRET", JWT_SECRET),
        ("BANDMAP_IMPORT_TOKEN", IMPORT_TOKEN),
        ("GEOCODER_PROVIDER", "none"),
        // Tests fire requests faster than any visitor: the public rate limit has its own
        // tests (crates/api/tests/api/limits.rs), which set it low.
        ("PUBLIC_RATE_PER_SEC", "100000"),
        ("PUBLIC_RATE_BURST", "100000"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (k, v) in overrides {
        vars.insert(k.to_string(), v.to_string());
    }
    Config::from_map(&vars).expect("test configuration")
}

/// Spawns the app with default test configuration.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[], None).await
}

/// Spawns the app with configuration overrides and an optional clock.
pub async fn spawn_app_with(
    overrides: &[(&str, &str)],
    clock: Option<Arc<dyn bandmap_api::Clock>>,
) -> TestApp {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let db = TestDb::new().await;
    let config = test_config(&db.url, overrides);
    // A cheap bcrypt cost would be nicer, but seeding runs once per test; keep the real path.
    bandmap_accounts::seed_admin(&db.pool, &config.admin)
        .await
        .expect("seed admin");
    let mut state = AppState::new(db.pool.clone(), config);
    if let Some(c) = clock {
        state = state.with_clock(c);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone().drop_guard();
    tokio::spawn(bandmap_api::server::serve_on(
        listener,
        state.clone(),
        shutdown,
    ));
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .expect("client");
    TestApp {
        db,
        base,
        client,
        state,
        _stop: stop,
    }
}

impl TestApp {
    /// Full URL of a path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Logs the client in as the seeded admin. The cookie is `Secure`; reqwest's jar only
    /// sends secure cookies over https, so the cookie is also returned for manual use.
    pub async fn login(&self) -> String {
        let res = self
            .client
            .post(self.url("/admin/auth/login"))
            .json(&serde_json::json!({"username": ADMIN_USER, "password": ADMIN_PASSWORD}))
            .send()
            .await
            .expect("login request");
        assert_eq!(res.status(), 200, "login failed");
        res.headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with("bandmap_session="))
            .expect("session cookie")
            .split(';')
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// The body of `GET path` as text, whatever its status.
    pub async fn get_text(&self, path: &str) -> String {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request")
            .text()
            .await
            .expect("body")
    }

    /// The served OpenAPI document.
    pub async fn openapi(&self) -> serde_json::Value {
        serde_json::from_str(&self.get_text("/api/openapi.json").await).expect("OpenAPI JSON")
    }

    /// A request builder carrying the admin session cookie.
    pub fn admin(
        &self,
        method: reqwest::Method,
        path: &str,
        cookie: &str,
    ) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .header("cookie", cookie)
    }
}
