//! The migration runner (rule 25, Versioning): the numbered files of `migrations/`, applied
//! in file-name order, each in its own transaction, recorded in `schema_migrations`, all
//! under one exclusive advisory lock so simultaneous replicas never apply a file twice.
//! A file that fails stops start-up with its name and the database error.

use crate::{DbError, Result};
use sha2::{Digest, Sha256};
use sqlx::{Connection, PgConnection, PgPool};

/// One migration file.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// File name, e.g. `001_extensions.sql`; the order key.
    pub file: &'static str,
    /// SQL text (several statements).
    pub sql: &'static str,
}

macro_rules! migrations {
    ($($file:literal),* $(,)?) => {
        &[$(Migration { file: $file, sql: include_str!(concat!("../../../migrations/", $file)) }),*]
    };
}

/// Every migration shipped with the binary, in order. A test checks that this list and the
/// `migrations/` folder agree.
pub const MIGRATIONS: &[Migration] = migrations![
    "001_extensions.sql",
    "002_bands.sql",
    "003_band_locations.sql",
    "004_caches.sql",
    "005_runs.sql",
    "006_admin.sql",
    "007_service_health.sql",
    "008_band_rules.sql",
    "009_band_indexes.sql",
    "010_change_notify.sql",
    "011_login_attempt_lockout.sql",
    "012_enrich_claims.sql",
    "013_row_triggers.sql",
    "014_map_notify.sql",
    "015_crawler.sql",
    "016_llm.sql",
    "017_geocoder.sql",
    "018_band_search.sql",
    "019_h1_provider_pacing.sql",
    "020_login_flood_sessions.sql",
    "021_lease_tokens_and_retention.sql",
    "022_activity_counters.sql",
    "023_pipeline_plans.sql",
    "024_search_notify.sql",
    "025_refused_logins_bounded.sql",
];

/// Key of the advisory lock held while migrating ("bandmap" in ASCII).
pub const ADVISORY_LOCK_KEY: i64 = 0x62_61_6e_64_6d_61_70;

/// What a run did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Files applied by this run.
    pub applied: Vec<String>,
    /// Files found already applied.
    pub skipped: usize,
}

/// Applies the shipped migrations.
pub async fn run(pool: &PgPool) -> Result<Report> {
    run_with(pool, MIGRATIONS).await
}

/// Applies `migrations` (sorted by file name) under the advisory lock.
pub async fn run_with(pool: &PgPool, migrations: &[Migration]) -> Result<Report> {
    let mut conn = pool.acquire().await?;
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(ADVISORY_LOCK_KEY)
        .execute(&mut *conn)
        .await?;
    let result = apply_all(&mut conn, migrations).await;
    // Unlock even after a failure; if this fails the session end releases the lock.
    let _ = sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(ADVISORY_LOCK_KEY)
        .execute(&mut *conn)
        .await;
    result
}

fn checksum(sql: &str) -> String {
    hex::encode(Sha256::digest(sql.as_bytes()))
}

async fn apply_all(conn: &mut PgConnection, migrations: &[Migration]) -> Result<Report> {
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
            version    TEXT PRIMARY KEY,
            checksum   TEXT NOT NULL,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )",
    )
    .execute(&mut *conn)
    .await?;
    let mut sorted: Vec<&Migration> = migrations.iter().collect();
    sorted.sort_by_key(|m| m.file);
    let mut report = Report::default();
    for m in sorted {
        let applied: Option<String> =
            sqlx::query_scalar("SELECT checksum FROM schema_migrations WHERE version = $1")
                .bind(m.file)
                .fetch_optional(&mut *conn)
                .await?;
        match applied {
            Some(sum) if sum == checksum(m.sql) => report.skipped += 1,
            Some(_) => {
                return Err(DbError::MigrationChanged {
                    file: m.file.to_string(),
                });
            }
            None => {
                apply_one(conn, m).await?;
                tracing::info!(file = m.file, "migration applied");
                report.applied.push(m.file.to_string());
            }
        }
    }
    Ok(report)
}

async fn apply_one(conn: &mut PgConnection, m: &Migration) -> Result<()> {
    let fail = |source| DbError::Migration {
        file: m.file.to_string(),
        source,
    };
    let mut tx = conn.begin().await.map_err(fail)?;
    sqlx::raw_sql(m.sql).execute(&mut *tx).await.map_err(fail)?;
    sqlx::query("INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)")
        .bind(m.file)
        .bind(checksum(m.sql))
        .execute(&mut *tx)
        .await
        .map_err(fail)?;
    tx.commit().await.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_matches_the_folder() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".sql"))
            .collect();
        files.sort();
        let listed: Vec<&str> = MIGRATIONS.iter().map(|m| m.file).collect();
        assert_eq!(files, listed);
    }

    #[test]
    fn files_are_numbered_in_order() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert!(m.file.starts_with(&format!("{:03}_", i + 1)), "{}", m.file);
        }
    }
}
