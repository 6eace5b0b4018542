#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 18, proxy trust against a real server (the test client is the peer 127.0.0.1):
//! the address the lockout records is the right-most untrusted `X-Forwarded-For` entry
//! when the peer is a trusted proxy, and the peer itself otherwise; a spoofed left-most
//! entry never escapes the per-address lockout.

use bandmap_test_support::app::{ADMIN_PASSWORD, ADMIN_USER};
use bandmap_test_support::{TestApp, spawn_app, spawn_app_with};
use serde_json::json;

async fn recorded_ip(app: &TestApp, xff: &str) -> Option<String> {
    let res = app
        .client
        .post(app.url("/admin/auth/login"))
        .header("x-forwarded-for", xff)
        .json(&json!({"username": "nobody", "password": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    let ip: Option<Option<String>> =
        sqlx::query_scalar("SELECT ip FROM admin_login_attempts ORDER BY id DESC LIMIT 1")
            .fetch_optional(&app.db.pool)
            .await
            .unwrap();
    sqlx::query("DELETE FROM admin_login_attempts")
        .execute(&app.db.pool)
        .await
        .unwrap();
    ip.flatten()
}

#[tokio::test]
async fn the_right_most_untrusted_entry_is_recorded() {
    // Default TRUSTED_PROXIES: loopback, so the test client is a trusted proxy.
    let app = spawn_app().await;
    assert_eq!(
        recorded_ip(&app, "6.6.6.6, 203.0.113.5").await.as_deref(),
        Some("203.0.113.5")
    );
    let app = spawn_app_with(&[("TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")], None).await;
    assert_eq!(
        recorded_ip(&app, "6.6.6.6, 203.0.113.6, 10.9.8.7")
            .await
            .as_deref(),
        Some("203.0.113.6")
    );
}

#[tokio::test]
async fn an_untrusted_peer_or_trust_off_records_the_peer() {
    for overrides in [
        &[("TRUSTED_PROXIES", "10.0.0.0/8")][..],
        &[("TRUST_PROXY", "false")][..],
    ] {
        let app = spawn_app_with(overrides, None).await;
        assert_eq!(
            recorded_ip(&app, "203.0.113.7").await.as_deref(),
            Some("127.0.0.1"),
            "{overrides:?}"
        );
    }
}

#[tokio::test]
async fn a_spoofed_left_most_entry_does_not_escape_the_address_lockout() {
    let app = spawn_app().await;
    for i in 0..5 {
        let res = app
            .client
            .post(app.url("/admin/auth/login"))
            .header("x-forwarded-for", format!("192.0.2.{i}, 203.0.113.50"))
            .json(&json!({"username": format!("u{i}"), "password": "x"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 401);
    }
    let res = app
        .client
        .post(app.url("/admin/auth/login"))
        .header("x-forwarded-for", "198.51.100.99, 203.0.113.50")
        .json(&json!({"username": ADMIN_USER, "password": ADMIN_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
}

#[test]
fn a_bad_trusted_proxies_value_stops_start_naming_the_variable() {
    let vars = [(
        "TRUSTED_PROXIES".to_string(),
        "10.0.0.0/8, not-a-net".to_string(),
    )]
    .into_iter()
    .collect();
    let e = bandmap_config::Config::from_map(&vars)
        .unwrap_err()
        .to_string();
    assert!(e.contains("TRUSTED_PROXIES"), "{e}");
    assert!(e.contains("not-a-net"), "{e}");
    for var in ["ADMIN_LOGIN_CONCURRENCY", "IMPORT_TIME_LIMIT_SECS"] {
        let vars = [(var.to_string(), "0".to_string())].into_iter().collect();
        let e = bandmap_config::Config::from_map(&vars)
            .unwrap_err()
            .to_string();
        assert!(e.contains(var), "{e}");
    }
    let c = bandmap_config::Config::from_map(&Default::default()).unwrap();
    assert_eq!(c.server.login_concurrency, 1);
    assert_eq!(c.server.import_time_limit.as_secs(), 600);
    assert_eq!(c.server.trusted_proxies.len(), 2, "loopback v4 and v6");
}
