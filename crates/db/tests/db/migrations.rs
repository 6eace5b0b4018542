//! Migration runner (rule 25): concurrent runners apply each file once, a second run applies
//! nothing, a broken file fails loudly with its name, and the database rules (3, 20) hold.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::DbError;
use bandmap_db::migrate::{MIGRATIONS, Migration, run, run_with};
use bandmap_test_support::TestDb;

#[tokio::test]
async fn two_runners_at_once_apply_each_file_once() {
    let db = TestDb::empty().await;
    let (a, b) = tokio::join!(run(&db.pool), run(&db.pool));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.applied.len() + b.applied.len(), MIGRATIONS.len());
    assert!(
        a.applied.is_empty() || b.applied.is_empty(),
        "one runner did everything: {a:?} {b:?}"
    );
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM schema_migrations")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(count as usize, MIGRATIONS.len());
}

#[tokio::test]
async fn a_second_run_applies_nothing() {
    let db = TestDb::new().await;
    let report = run(&db.pool).await.unwrap();
    assert!(report.applied.is_empty());
    assert_eq!(report.skipped, MIGRATIONS.len());
}

#[tokio::test]
async fn every_file_is_safe_to_replay() {
    let db = TestDb::new().await;
    for m in MIGRATIONS {
        sqlx::raw_sql(m.sql)
            .execute(&db.pool)
            .await
            .unwrap_or_else(|e| panic!("{} replay: {e}", m.file));
    }
}

#[tokio::test]
async fn a_broken_migration_fails_with_its_name_and_applies_nothing_of_it() {
    let db = TestDb::empty().await;
    let broken = [
        Migration {
            file: "001_ok.sql",
            sql: "CREATE TABLE t_ok (id int)",
        },
        Migration {
            file: "002_broken.sql",
            sql: "CREATE TABLE t_half (id int); SELEC nonsense",
        },
    ];
    let err = run_with(&db.pool, &broken).await.unwrap_err();
    match &err {
        DbError::Migration { file, .. } => assert_eq!(file, "002_broken.sql"),
        other => panic!("unexpected error {other:?}"),
    }
    assert!(err.to_string().contains("002_broken.sql"));
    let half: Option<String> = sqlx::query_scalar("SELECT to_regclass('t_half')::text")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(half, None, "the failed file was rolled back");
    let versions: Vec<String> = sqlx::query_scalar("SELECT version FROM schema_migrations")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(versions, vec!["001_ok.sql".to_string()]);
}

#[tokio::test]
async fn a_changed_applied_file_is_refused() {
    let db = TestDb::empty().await;
    run_with(
        &db.pool,
        &[Migration {
            file: "001_a.sql",
            sql: "SELECT 1",
        }],
    )
    .await
    .unwrap();
    let err = run_with(
        &db.pool,
        &[Migration {
            file: "001_a.sql",
            sql: "SELECT 2",
        }],
    )
    .await
    .unwrap_err();
    assert!(matches!(err, DbError::MigrationChanged { .. }), "{err:?}");
}

async fn updated_at(pool: &sqlx::PgPool) -> chrono::DateTime<chrono::Utc> {
    sqlx::query_scalar("SELECT updated_at FROM bands WHERE ma_id = 1")
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn rule_3_updated_at_moves_only_on_a_real_change() {
    let db = TestDb::new().await;
    let p = &db.pool;
    sqlx::query("INSERT INTO bands (ma_id, name, genre, updated_at) VALUES (1, 'A', 'Black Metal', now() - interval '1 day')")
        .execute(p).await.unwrap();
    let t0 = updated_at(p).await;
    // Same values, bookkeeping and derived point: untouched.
    sqlx::query("UPDATE bands SET name = 'A', genre = 'Black Metal', crawled_at = now(), enriched = true,
                 enrich_pending = true, lat = 1, lon = 2, crawler_pending = '{\"genre\": \"x\"}', locked_fields = '{genre}' WHERE ma_id = 1")
        .execute(p).await.unwrap();
    assert_eq!(updated_at(p).await, t0);
    // A catalogue value: moves.
    sqlx::query("UPDATE bands SET genre = 'Death Metal' WHERE ma_id = 1")
        .execute(p)
        .await
        .unwrap();
    assert!(updated_at(p).await > t0);
}

#[tokio::test]
async fn location_rows_updated_at_moves_only_on_a_real_change() {
    let db = TestDb::new().await;
    let p = &db.pool;
    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (1, 'A')")
        .execute(p)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO band_locations (id, ma_id, step_order, parsed_step, location_raw, lat, lon,
                                     geocode_status, updated_at)
         VALUES (7, 1, 0, 0, 'Oslo', 59.91, 10.75, 'done', now() - interval '1 day')",
    )
    .execute(p)
    .await
    .unwrap();
    let at = || async {
        sqlx::query_scalar::<_, chrono::DateTime<chrono::Utc>>(
            "SELECT updated_at FROM band_locations WHERE id = 7",
        )
        .fetch_one(p)
        .await
        .unwrap()
    };
    let t0 = at().await;
    // A located row (its generated geom is set) rewritten with the same values: untouched.
    sqlx::query(
        "UPDATE band_locations SET lat = 59.91, lon = 10.75, geocode_status = 'done' WHERE id = 7",
    )
    .execute(p)
    .await
    .unwrap();
    assert_eq!(at().await, t0);
    sqlx::query("UPDATE band_locations SET lat = 60.0 WHERE id = 7")
        .execute(p)
        .await
        .unwrap();
    assert!(at().await > t0);
}

#[tokio::test]
async fn rule_20_a_changed_location_deletes_the_rows_and_the_point() {
    let db = TestDb::new().await;
    let p = &db.pool;
    sqlx::query("INSERT INTO bands (ma_id, name, location_text, lat, lon) VALUES (1, 'A', 'Oslo', 59.9, 10.7), (2, 'B', 'Bergen', 60.4, 5.3)")
        .execute(p).await.unwrap();
    sqlx::query("INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw) VALUES (1, 0, 0, 'Oslo'), (2, 0, 0, 'Bergen')")
        .execute(p).await.unwrap();
    // Same value: rows stay.
    sqlx::query("UPDATE bands SET location_text = 'Oslo' WHERE ma_id = 1")
        .execute(p)
        .await
        .unwrap();
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM band_locations WHERE ma_id = 1")
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(n, 1);
    // Real change: rows of that band only are removed, and its point cleared.
    sqlx::query("UPDATE bands SET location_text = 'Trondheim' WHERE ma_id = 1")
        .execute(p)
        .await
        .unwrap();
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM band_locations WHERE ma_id = 1")
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(n, 0);
    let other: i64 = sqlx::query_scalar("SELECT count(*) FROM band_locations WHERE ma_id = 2")
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(other, 1);
    let lat: Option<f64> = sqlx::query_scalar("SELECT lat FROM bands WHERE ma_id = 1")
        .fetch_one(p)
        .await
        .unwrap();
    assert_eq!(lat, None);
}

#[tokio::test]
async fn states_are_checked_by_the_database() {
    let db = TestDb::new().await;
    let p = &db.pool;
    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (3500000000, 'Big id')")
        .execute(p)
        .await
        .unwrap();
    let bad = sqlx::query("INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, geocode_status) VALUES (3500000000, 0, 0, 'X', 'queued')")
        .execute(p).await;
    assert!(bad.is_err());
    assert!(
        sqlx::query("INSERT INTO crawl_run (type, status) VALUES ('incremental', 'finished')")
            .execute(p)
            .await
            .is_err()
    );
    assert!(
        sqlx::query("INSERT INTO job_triggers (job_type, status) VALUES ('enrich', 'running')")
            .execute(p)
            .await
            .is_err()
    );
    assert!(
        sqlx::query("INSERT INTO service_health (service, state) VALUES ('crawler', 'fine')")
            .execute(p)
            .await
            .is_err()
    );
    // geom is generated from lat/lon with SRID 4326.
    sqlx::query("INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, lat, lon) VALUES (3500000000, 0, 0, 'Y', 60.0, 5.0)")
        .execute(p).await.unwrap();
    let srid: i32 =
        sqlx::query_scalar("SELECT ST_SRID(geom) FROM band_locations WHERE location_raw = 'Y'")
            .fetch_one(p)
            .await
            .unwrap();
    assert_eq!(srid, 4326);
}
