//! Per-test databases cloned from a migrated template.

use bandmap_db::migrate::{MIGRATIONS, run};
use secrecy::SecretString;
use sha2::{Digest, Sha256};
use sqlx::postgres::PgPoolOptions;
use sqlx::{Connection, PgConnection, PgPool};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// URL of the server's maintenance database.
pub fn admin_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

fn url_for(db: &str) -> String {
    let base = admin_url();
    match base.rfind('/') {
        Some(i) => format!("{}/{db}", &base[..i]),
        None => format!("{base}/{db}"),
    }
}

fn template_name() -> String {
    let mut h = Sha256::new();
    for m in MIGRATIONS {
        h.update(m.file.as_bytes());
        h.update(m.sql.as_bytes());
    }
    format!("bandmap_tpl_{}", &hex::encode(h.finalize())[..16])
}

/// A fresh database for one test; dropped (with its connections) when this value drops.
pub struct TestDb {
    /// Pool on the test database.
    pub pool: PgPool,
    /// Database name.
    pub name: String,
    /// Full connection URL.
    pub url: String,
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

async fn admin_conn() -> PgConnection {
    PgConnection::connect(&admin_url())
        .await
        .expect("connect to the test PostgreSQL server (TEST_DATABASE_URL)")
}

/// Creates the migrated template once per migration set; an advisory lock serialises test
/// processes that race to create it.
async fn ensure_template() -> String {
    let name = template_name();
    let mut conn = admin_conn().await;
    sqlx::query("SELECT pg_advisory_lock(727274)")
        .execute(&mut conn)
        .await
        .expect("lock");
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut conn)
            .await
            .expect("query pg_database");
    if !exists {
        let building = format!("{name}_building");
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)"
        )))
        .execute(&mut conn)
        .await
        .expect("drop partial template");
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE \"{building}\""
        )))
        .execute(&mut conn)
        .await
        .expect("create template");
        {
            let pool = PgPoolOptions::new()
                .max_connections(1)
                .connect(&url_for(&building))
                .await
                .expect("connect template");
            run(&pool).await.expect("migrate template");
            pool.close().await;
        }
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "ALTER DATABASE \"{building}\" RENAME TO \"{name}\""
        )))
        .execute(&mut conn)
        .await
        .expect("rename template");
    }
    sqlx::query("SELECT pg_advisory_unlock(727274)")
        .execute(&mut conn)
        .await
        .expect("unlock");
    name
}

impl TestDb {
    /// A fresh, migrated database.
    pub async fn new() -> TestDb {
        let template = ensure_template().await;
        Self::create(Some(&template)).await
    }

    /// A fresh, EMPTY database (no migrations, but PostGIS available), for migration tests.
    pub async fn empty() -> TestDb {
        Self::create(None).await
    }

    async fn create(template: Option<&str>) -> TestDb {
        let name = format!(
            "bandmap_test_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0)
        );
        let mut conn = admin_conn().await;
        let sql = match template {
            Some(t) => format!("CREATE DATABASE \"{name}\" TEMPLATE \"{t}\""),
            None => format!("CREATE DATABASE \"{name}\""),
        };
        // Two clones of one template at the same instant can collide; retry briefly.
        let mut attempt = 0;
        loop {
            match sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
                .execute(&mut conn)
                .await
            {
                Ok(_) => break,
                Err(e) if attempt < 20 => {
                    attempt += 1;
                    eprintln!("create test database, retrying: {e}");
                    tokio::time::sleep(Duration::from_millis(100 * attempt)).await;
                }
                Err(e) => panic!("create test database: {e}"),
            }
        }
        let url = url_for(&name);
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .connect(&url)
            .await
            .expect("connect test database");
        TestDb { pool, name, url }
    }

    /// The URL as the services' configuration expects it.
    pub fn secret_url(&self) -> SecretString {
        SecretString::from(self.url.clone())
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop from a separate thread with its own runtime: Drop cannot await, and the
        // test's runtime may be shutting down.
        let handle = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Ok(mut conn) = PgConnection::connect(&admin_url()).await {
                    let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                    )))
                    .execute(&mut conn)
                    .await;
                }
            });
        });
        let _ = handle.join();
    }
}
