#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 18, sessions that end and writes that stay on this site, against a real server:
//! logout, a changed seed password and a renamed seed account end the tokens issued
//! before; logout needs the JSON content type; admin writes refuse a cross-site `Origin`
//! or `Sec-Fetch-Site`.

use bandmap_config::AdminConfig;
use bandmap_test_support::app::{ADMIN_PASSWORD, ADMIN_USER};
use bandmap_test_support::{TestApp, spawn_app};
use reqwest::Method;
use secrecy::SecretString;
use serde_json::{Value, json};

async fn status_of(app: &TestApp, cookie: &str) -> u16 {
    app.admin(Method::GET, "/admin/auth/me", cookie)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn logout(app: &TestApp, cookie: &str) -> reqwest::Response {
    app.admin(Method::POST, "/admin/auth/logout", cookie)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
}

fn seed(username: &str, password: &str) -> AdminConfig {
    AdminConfig {
        seed_username: Some(username.into()),
        seed_password_hash: None,
        seed_password: Some(SecretString::from(password.to_string())),
        jwt_secret: None,
        unusable: Vec::new(),
    }
}

#[tokio::test]
async fn logout_ends_every_session_of_the_account() {
    let app = spawn_app().await;
    let first = app.login().await;
    let second = app.login().await;
    assert_eq!(status_of(&app, &first).await, 200);
    let res = logout(&app, &first).await;
    assert_eq!(res.status(), 204);
    assert!(
        res.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .ends_with("Max-Age=0")
    );
    assert_eq!(status_of(&app, &first).await, 401, "the token is dead");
    assert_eq!(status_of(&app, &second).await, 401, "so is the other one");
    let res = app
        .admin(Method::GET, "/admin/api/bands", &first)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    // Logging out again with the dead token is still a 204; a new login works.
    assert_eq!(logout(&app, &first).await.status(), 204);
    let fresh = app.login().await;
    assert_eq!(status_of(&app, &fresh).await, 200);
}

#[tokio::test]
async fn logout_without_the_json_content_type_changes_nothing() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    for ct in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let mut req = app
            .admin(Method::POST, "/admin/auth/logout", &cookie)
            .body("{}");
        if let Some(ct) = ct {
            req = req.header("content-type", ct);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 415, "{ct:?}");
        assert!(res.headers().get("set-cookie").is_none());
    }
    let res = app
        .admin(Method::POST, "/admin/auth/logout", &cookie)
        .header("origin", "https://evil.example")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "cross-site logout");
    assert_eq!(status_of(&app, &cookie).await, 200, "still logged in");
}

#[tokio::test]
async fn a_changed_seed_password_ends_old_sessions_and_an_unchanged_one_does_not() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    // A restart with the same seed keeps the sessions.
    bandmap_accounts::seed_admin(&app.db.pool, &seed(ADMIN_USER, ADMIN_PASSWORD))
        .await
        .unwrap();
    assert_eq!(status_of(&app, &cookie).await, 200);
    bandmap_accounts::seed_admin(&app.db.pool, &seed(ADMIN_USER, "a brand new passphrase"))
        .await
        .unwrap();
    assert_eq!(status_of(&app, &cookie).await, 401);
}

#[tokio::test]
async fn a_renamed_seed_account_leaves_the_old_name_unable_to_log_in() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    bandmap_accounts::seed_admin(&app.db.pool, &seed("root", ADMIN_PASSWORD))
        .await
        .unwrap();
    assert_eq!(status_of(&app, &cookie).await, 401, "old session ended");
    let res = app
        .client
        .post(app.url("/admin/auth/login"))
        .json(&json!({"username": ADMIN_USER, "password": ADMIN_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "the old name is gone");
    let users: Vec<String> = sqlx::query_scalar("SELECT username FROM admin_users")
        .fetch_all(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(users, vec!["root".to_string()]);
}

#[tokio::test]
async fn admin_writes_refuse_a_cross_site_origin() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    let host = app.base.trim_start_matches("http://").to_string();
    for (header, value) in [
        ("origin", "https://evil.example".to_string()),
        ("origin", "null".to_string()),
        ("sec-fetch-site", "cross-site".to_string()),
        ("sec-fetch-site", "same-site".to_string()),
    ] {
        for (method, path) in [
            (Method::PATCH, "/admin/api/bands/1"),
            (Method::POST, "/admin/api/job-triggers"),
        ] {
            let res = app
                .admin(method.clone(), path, &cookie)
                .header(header, value.as_str())
                .json(&json!({"job_type": "enrich"}))
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            let body: Value = res.json().await.unwrap();
            assert_eq!(
                (status, body["error"]["code"].as_str()),
                (403, Some("forbidden")),
                "{method} {path} {header}: {value}"
            );
        }
    }
    let triggers: i64 = sqlx::query_scalar("SELECT count(*) FROM job_triggers")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(triggers, 0, "nothing written");
    // The console's own requests pass: same origin, or a same-origin fetch.
    let res = app
        .admin(Method::POST, "/admin/api/job-triggers", &cookie)
        .header("origin", format!("http://{host}"))
        .header("sec-fetch-site", "same-origin")
        .json(&json!({"job_type": "enrich"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    // Reads are not checked (a cross-site GET cannot carry the SameSite cookie anyway).
    let res = app
        .admin(Method::GET, "/admin/api/bands", &cookie)
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn removing_the_seed_settings_ends_the_sessions_of_the_old_account() {
    // Issue 31: the account's row and the signing secret stay; the settings that make it
    // the admin are gone, and so must its sessions be.
    let app = spawn_app().await;
    let cookie = app.login().await;
    assert_eq!(status_of(&app, &cookie).await, 200);
    for removed in [
        &[("ADMIN_SEED_USERNAME", ""), ("ADMIN_SEED_PASSWORD", "")][..],
        &[("ADMIN_SEED_USERNAME", "someone-else")][..],
    ] {
        let config = bandmap_test_support::app::test_config(&app.db.url, removed);
        let state = bandmap_api::AppState::new(app.db.pool.clone(), config);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let stop = tokio_util::sync::CancellationToken::new();
        tokio::spawn(bandmap_api::server::serve_on(listener, state, stop.clone()));
        let client = reqwest::Client::new();
        for path in ["/admin/auth/me", "/admin/api/bands"] {
            let res = client
                .get(format!("{base}{path}"))
                .header("cookie", cookie.as_str())
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 401, "{path} with {removed:?}");
            let body: Value = res.json().await.unwrap();
            assert!(
                !body["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("ADMIN_"),
                "{body}"
            );
        }
        stop.cancel();
    }
    assert_eq!(
        status_of(&app, &cookie).await,
        200,
        "the original server still admits it"
    );
}
