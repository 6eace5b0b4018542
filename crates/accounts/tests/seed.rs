//! The admin seed (`ADMIN_SEED_*`): only a bcrypt hash is stored, a restart with the same
//! password leaves the row alone, a new password or hash replaces it, and without the
//! variables nothing is written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_accounts::{SeedOutcome, seed_admin};
use bandmap_config::AdminConfig;
use bandmap_test_support::TestDb;
use secrecy::SecretString;
use sqlx::PgPool;

const PLAIN: &str = "correct horse battery staple";

fn admin(password: Option<&str>, hash: Option<&str>) -> AdminConfig {
    AdminConfig {
        seed_username: Some("root".to_string()),
        seed_password_hash: hash.map(|h| SecretString::from(h.to_string())),
        seed_password: password.map(|p| SecretString::from(p.to_string())),
        jwt_secret: None,
        unusable: Vec::new(),
    }
}

async fn stored(pool: &PgPool) -> Option<(String, chrono::DateTime<chrono::Utc>)> {
    sqlx::query_as("SELECT password_hash, updated_at FROM admin_users WHERE username = 'root'")
        .fetch_optional(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_plaintext_seed_stores_only_a_bcrypt_hash_and_a_restart_keeps_it() {
    let db = TestDb::new().await;
    let outcome = seed_admin(&db.pool, &admin(Some(PLAIN), None))
        .await
        .unwrap();
    assert_eq!(outcome, SeedOutcome::Seeded("root".to_string()));
    let (hash, at) = stored(&db.pool).await.unwrap();
    assert!(hash.starts_with("$2") && hash.len() == 60, "{hash}");
    assert!(bcrypt::verify(PLAIN, &hash).unwrap());
    // The plaintext is nowhere in the database's admin tables.
    let leaks: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM admin_users WHERE row_to_json(admin_users)::text LIKE '%' || $1 || '%'",
    )
    .bind(PLAIN)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(leaks, 0);

    seed_admin(&db.pool, &admin(Some(PLAIN), None))
        .await
        .unwrap();
    assert_eq!(
        stored(&db.pool).await.unwrap(),
        (hash, at),
        "same password again: row untouched"
    );
}

#[tokio::test]
async fn a_new_password_or_a_given_hash_replaces_the_stored_one() {
    let db = TestDb::new().await;
    seed_admin(&db.pool, &admin(Some(PLAIN), None))
        .await
        .unwrap();
    let (first, _) = stored(&db.pool).await.unwrap();

    seed_admin(&db.pool, &admin(Some("another password"), None))
        .await
        .unwrap();
    let (second, _) = stored(&db.pool).await.unwrap();
    assert_ne!(first, second);
    assert!(bcrypt::verify("another password", &second).unwrap());

    let given = bcrypt::hash("from the hash variable", 4).unwrap();
    seed_admin(&db.pool, &admin(Some(PLAIN), Some(&given)))
        .await
        .unwrap();
    assert_eq!(
        stored(&db.pool).await.unwrap().0,
        given,
        "the hash variable wins and is stored as given"
    );
}

#[tokio::test]
async fn without_seed_variables_nothing_is_written() {
    let db = TestDb::new().await;
    let none = AdminConfig {
        seed_username: None,
        seed_password_hash: None,
        seed_password: Some(SecretString::from(PLAIN.to_string())),
        jwt_secret: None,
        unusable: Vec::new(),
    };
    assert_eq!(
        seed_admin(&db.pool, &none).await.unwrap(),
        SeedOutcome::NotConfigured
    );
    assert_eq!(
        seed_admin(&db.pool, &admin(None, None)).await.unwrap(),
        SeedOutcome::NotConfigured
    );
    let users: i64 = sqlx::query_scalar("SELECT count(*) FROM admin_users")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(users, 0);
}
