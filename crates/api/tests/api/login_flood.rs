#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 18, logins that cost almost nothing when abused, against a real server and
//! database: a locked key is refused without writing a row (refusals are written later,
//! one row per locked key and hour with their count), the password-check slots answer 429 when full
//! without counting a failure, a lock recorded by another replica is honoured and then
//! remembered in memory, and a cross-site login is refused.

use bandmap_test_support::app::{ADMIN_PASSWORD, ADMIN_USER};
use bandmap_test_support::{TestApp, spawn_app, spawn_app_with};
use serde_json::{Value, json};

async fn login(app: &TestApp, user: &str, password: &str, ip: &str) -> reqwest::Response {
    app.client
        .post(app.url("/admin/auth/login"))
        .header("x-forwarded-for", ip)
        .json(&json!({"username": user, "password": password}))
        .send()
        .await
        .unwrap()
}

async fn rows(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM admin_login_attempts")
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

async fn code(res: reqwest::Response) -> (u16, String) {
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    (status, body["error"]["code"].as_str().unwrap_or("").into())
}

#[tokio::test]
async fn a_locked_address_is_refused_without_a_row_per_attempt() {
    // Refusals sent at once, so 40 of them take no 40 s (the hold: tests/limits.rs).
    let app = spawn_app_with(&[("HTTP_REFUSAL_DELAY_MS", "0")], None).await;
    for i in 0..5 {
        let res = login(&app, &format!("user{i}"), "wrong", "203.0.113.10").await;
        assert_eq!(res.status(), 401);
    }
    assert_eq!(rows(&app).await, 5);
    for i in 0..40 {
        // Rotating usernames from the locked address, the right password included.
        let user = if i % 2 == 0 { ADMIN_USER } else { "someone" };
        let res = login(&app, user, ADMIN_PASSWORD, "203.0.113.10").await;
        assert_eq!(res.status(), 429);
        // The failures are some seconds old by now (real clock, bcrypt in between).
        let wait: u64 = res.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((800..=900).contains(&wait), "{wait}");
    }
    // The background flush may have run meanwhile: refusals are counted per locked key
    // (here the address), never one row per attempt or per username (issue 31).
    assert!(rows(&app).await <= 6, "refusals are not written one by one");
    bandmap_api::auth::lockout::flush_refused(&app.state.pool, &app.state.guards.login_gate)
        .await
        .unwrap();
    let refused: Vec<(String, i32)> = sqlx::query_as(
        "SELECT lock_key, sum(attempts)::int FROM admin_login_attempts
         WHERE locked_out AND ip = '203.0.113.10' GROUP BY lock_key ORDER BY lock_key",
    )
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        refused,
        vec![("addr:203.0.113.10".to_string(), 40)],
        "every refused attempt is still counted, under the locked key"
    );
    assert_eq!(rows(&app).await, 6, "five failures and one row of refusals");
    // Nothing left to flush.
    let again =
        bandmap_api::auth::lockout::flush_refused(&app.state.pool, &app.state.guards.login_gate)
            .await
            .unwrap();
    assert_eq!(again, 0);
}

#[tokio::test]
async fn full_password_check_slots_answer_429_and_count_no_failure() {
    let app = spawn_app_with(
        &[
            ("ADMIN_LOGIN_CONCURRENCY", "1"),
            ("HTTP_REFUSAL_DELAY_MS", "0"),
        ],
        None,
    )
    .await;
    let slot = app
        .state
        .guards
        .login_gate
        .try_check()
        .expect("the one slot");
    for _ in 0..8 {
        let res = login(&app, ADMIN_USER, "wrong", "198.51.100.30").await;
        assert_eq!(res.status(), 429);
        assert_eq!(res.headers()["retry-after"], "1");
        let (_, c) = code(res).await;
        assert_eq!(c, "rate_limited");
    }
    assert_eq!(rows(&app).await, 0, "no attempt was made, none recorded");
    drop(slot);
    let res = login(&app, ADMIN_USER, ADMIN_PASSWORD, "198.51.100.30").await;
    assert_eq!(res.status(), 200, "the busy answers were not failures");
}

#[tokio::test]
async fn a_lock_recorded_by_another_replica_is_honoured_then_remembered() {
    let app = spawn_app().await;
    // Five failures another replica wrote a minute ago.
    sqlx::query(
        "INSERT INTO admin_login_attempts (username, ip, at, success)
         SELECT 'Admin', '192.0.2.1', now() - interval '1 minute', FALSE FROM generate_series(1, 5)",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let res = login(&app, ADMIN_USER, ADMIN_PASSWORD, "192.0.2.200").await;
    assert_eq!(res.status(), 429);
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((838..=841).contains(&wait), "{wait}");
    // The rows go (pruned, say): this process still knows the lock, from memory.
    sqlx::query("DELETE FROM admin_login_attempts")
        .execute(&app.db.pool)
        .await
        .unwrap();
    let res = login(&app, ADMIN_USER, ADMIN_PASSWORD, "192.0.2.201").await;
    assert_eq!(res.status(), 429);
    assert_eq!(rows(&app).await, 0, "refused from memory, nothing written");
}

#[tokio::test]
async fn parallel_wrong_guesses_never_pass_the_limit() {
    let app = spawn_app().await;
    let guesses = (0..12).map(|i| {
        let app = &app;
        async move { login(app, ADMIN_USER, &format!("guess{i}"), "203.0.113.99").await }
    });
    let answers = futures::future::join_all(guesses).await;
    let checked = answers.iter().filter(|r| r.status() == 401).count();
    assert!(checked <= 5, "{checked} passwords checked for one username");
    assert!(
        answers
            .iter()
            .all(|r| matches!(r.status().as_u16(), 401 | 429))
    );
}

#[tokio::test]
async fn a_cross_site_login_is_refused_before_anything() {
    let app = spawn_app().await;
    for (header, value) in [
        ("sec-fetch-site", "cross-site"),
        ("origin", "https://evil.example"),
    ] {
        let res = app
            .client
            .post(app.url("/admin/auth/login"))
            .header(header, value)
            .json(&json!({"username": ADMIN_USER, "password": ADMIN_PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(code(res).await, (403, "forbidden".to_string()), "{header}");
    }
    assert_eq!(rows(&app).await, 0);
    let res = app
        .client
        .post(app.url("/admin/auth/login"))
        .header("origin", app.base.as_str())
        .header("sec-fetch-site", "same-origin")
        .json(&json!({"username": ADMIN_USER, "password": ADMIN_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn a_minute_of_refused_logins_with_random_usernames_writes_a_bounded_number_of_rows() {
    // Issue 31: refusals were grouped per (username as typed, address), so a locked client
    // varying a 200-character username wrote ~1,000 rows every 5 s.
    let app = spawn_app_with(&[("HTTP_REFUSAL_DELAY_MS", "0")], None).await;
    for i in 0..5 {
        let res = login(&app, &format!("user{i}"), "wrong", "203.0.113.20").await;
        assert_eq!(res.status(), 401);
    }
    // Twelve flush periods (a minute) of 50 refusals each, every username new and long.
    let mut sent = 0;
    for period in 0..12 {
        for i in 0..50 {
            let user = format!("{period}-{i}-{}", "x".repeat(200));
            let res = login(&app, &user, "guess", "203.0.113.20").await;
            assert_eq!(res.status(), 429);
            sent += 1;
        }
        bandmap_api::auth::lockout::flush_refused(&app.state.pool, &app.state.guards.login_gate)
            .await
            .unwrap();
    }
    assert_eq!(
        rows(&app).await,
        6,
        "five failures and one row for the locked address"
    );
    let (counted, longest): (i64, i32) = sqlx::query_as(
        "SELECT sum(attempts)::bigint, max(length(username)) FROM admin_login_attempts",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(counted, 5 + sent, "every attempt is still counted");
    assert!(longest <= 64, "usernames are stored short: {longest}");
}

#[tokio::test]
async fn a_locked_key_is_refused_as_locked_even_when_the_password_slot_is_busy() {
    // Issue 31: the lock is checked before a password-check slot is taken, so a locked key
    // never holds the slot and is told how long it is locked, not "busy, retry in 1 s".
    let app = spawn_app_with(&[("HTTP_REFUSAL_DELAY_MS", "0")], None).await;
    sqlx::query(
        "INSERT INTO admin_login_attempts (username, ip, at, success)
         SELECT 'admin', '192.0.2.1', now() - interval '1 minute', FALSE FROM generate_series(1, 5)",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let _slot = app
        .state
        .guards
        .login_gate
        .try_check()
        .expect("the one slot");
    let res = login(&app, ADMIN_USER, ADMIN_PASSWORD, "192.0.2.77").await;
    assert_eq!(res.status(), 429);
    let wait: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait > 800, "told the lock, not the busy slot: {wait}");
}
