//! Rule 25: the connection is retried with a fresh client per attempt, then fails loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::DbError;
use bandmap_db::connect::{PoolSize, RetryPolicy, connect};
use secrecy::SecretString;
use std::time::Duration;

#[tokio::test]
async fn an_unreachable_database_is_retried_then_reported() {
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let url = SecretString::from(format!("postgres://postgres@127.0.0.1:{port}/none"));
    let policy = RetryPolicy {
        attempts: 3,
        step: Duration::from_millis(1),
        max_wait: Duration::from_millis(5),
        attempt_timeout: Duration::from_millis(300),
    };
    match connect(&url, PoolSize::default(), policy).await {
        Err(DbError::Unreachable { attempts, .. }) => assert_eq!(attempts, 3),
        other => panic!("expected Unreachable, got {:?}", other.map(|_| ())),
    }
}

#[tokio::test]
async fn a_reachable_database_connects_first_time() {
    let db = bandmap_test_support::TestDb::new().await;
    let policy = RetryPolicy {
        attempts: 1,
        ..RetryPolicy::default()
    };
    let pool = connect(
        &SecretString::from(db.url.clone()),
        PoolSize::default(),
        policy,
    )
    .await
    .unwrap();
    let one: i32 = sqlx::query_scalar("SELECT 1")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(one, 1);
}

#[tokio::test]
async fn a_pool_with_a_statement_timeout_cancels_long_queries_on_the_server() {
    let db = bandmap_test_support::TestDb::new().await;
    let size = PoolSize {
        max_connections: 1,
        statement_timeout: Some(Duration::from_millis(200)),
        acquire_timeout: None,
    };
    let pool = connect(&db.secret_url(), size, RetryPolicy::default())
        .await
        .unwrap();
    let setting: String = sqlx::query_scalar("SHOW statement_timeout")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(setting, "200ms");
    let err = sqlx::query("SELECT pg_sleep(30)")
        .execute(&pool)
        .await
        .unwrap_err();
    let code = err.as_database_error().and_then(|d| d.code());
    assert_eq!(code.as_deref(), Some("57014"), "{err}");
    // The server cancelled it: nothing is left running.
    let running: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity
         WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(30)%'",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(running, 0);
    // Without a budget's timeout, the server default (none) stays.
    let plain: String = sqlx::query_scalar("SHOW statement_timeout")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(plain, "0");
}
