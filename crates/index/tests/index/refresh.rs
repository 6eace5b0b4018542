//! The map index against PostGIS: which writes move the data version (migrations 014 and
//! 024), and a failed snapshot build keeping the previous snapshot.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_index::map::{MapIndex, Snapshot, data_version};
use bandmap_test_support::TestDb;
use sqlx::PgPool;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year) VALUES
 (1, 'Alpha', 'Black Metal', 'Norway', 'NO', 'Active', 1991),
 (2, 'Beta', 'Death Metal', 'Sweden', 'SE', 'Split-up', 1988);
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) VALUES
 (11, 1, 0, 0, 'origin', 'Oslo', 59.91, 10.75, 'done'),
 (12, 1, 1, 1, 'later', 'Bergen', NULL, NULL, 'pending'),
 (21, 2, 0, 0, NULL, 'Stockholm', 59.33, 18.07, 'done');
"#;

/// A snapshot builder that panics, as a bug in the build would.
fn failing_build(_: i64, _: bandmap_index::map::snapshot::Staged) -> Snapshot {
    panic!("injected build failure")
}

async fn seeded() -> TestDb {
    let db = TestDb::new().await;
    sqlx::raw_sql(SEED).execute(&db.pool).await.unwrap();
    db
}

async fn moves(pool: &PgPool, sql: &str) -> bool {
    let before = data_version(pool).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(pool)
        .await
        .unwrap();
    data_version(pool).await.unwrap() != before
}

#[tokio::test]
async fn pipeline_bookkeeping_does_not_move_the_version() {
    let db = seeded().await;
    let pool = &db.pool;
    for sql in [
        // Geocoder claim, then its release.
        "UPDATE band_locations SET geocode_status = 'processing', claimed_at = now(), \
         attempts = attempts + 1 WHERE id = 12",
        "UPDATE band_locations SET geocode_status = 'pending', claimed_at = NULL, \
         next_attempt_at = now() + interval '30 seconds', error = 'timeout' WHERE id = 12",
        // Crawler and enrichment bookkeeping on bands.
        "UPDATE bands SET crawled_at = now(), crawled_hash = 'h', enriched = true, \
         enrich_pending = false WHERE ma_id = 1",
        "UPDATE bands SET themes = 'War', label = 'L', updated_at = now() WHERE ma_id = 2",
        // A mapped row: columns the map does not show.
        "UPDATE band_locations SET updated_at = now(), confidence = 0.5, provider = 'x', \
         city = 'Oslo' WHERE id = 11",
        // done ↔ country_only: mapped either way.
        "UPDATE band_locations SET geocode_status = 'country_only' WHERE id = 11",
        // Rows that are not mapped.
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, geocode_status) \
         VALUES (2, 1, 1, 'Uppsala', 'pending')",
        "DELETE FROM band_locations WHERE location_raw = 'Uppsala'",
        // An UPDATE that changes nothing.
        "UPDATE bands SET name = name, genre = genre",
    ] {
        assert!(!moves(pool, sql).await, "moved the version: {sql}");
    }
}

#[tokio::test]
async fn changes_the_map_shows_move_the_version() {
    let db = seeded().await;
    let pool = &db.pool;
    for sql in [
        "UPDATE band_locations SET geocode_status = 'done', lat = 60.39, lon = 5.32 WHERE id = 12",
        "UPDATE band_locations SET lat = 60.4 WHERE id = 12",
        "UPDATE band_locations SET step_label = 'x' WHERE id = 12",
        "UPDATE band_locations SET location_raw = 'Bergen, NO' WHERE id = 12",
        "UPDATE band_locations SET step_order = -1 WHERE id = 12",
        "UPDATE band_locations SET geocode_status = 'pending' WHERE id = 12",
        "UPDATE bands SET genre = 'Doom Metal' WHERE ma_id = 1",
        "UPDATE bands SET name = 'Alpha II' WHERE ma_id = 1",
        "UPDATE bands SET country = 'Denmark', country_code = 'DK' WHERE ma_id = 1",
        "UPDATE bands SET status = 'On hold' WHERE ma_id = 1",
        "UPDATE bands SET formed_year = NULL WHERE ma_id = 1",
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status) \
         VALUES (2, 1, 1, 'Uppsala', 59.86, 17.64, 'done')",
        "DELETE FROM band_locations WHERE location_raw = 'Uppsala'",
        "DELETE FROM bands WHERE ma_id = 2",
        "TRUNCATE band_locations",
        // What the public name search shows beyond the map (migration 024): a new band,
        // which has no point yet, and a moved primary point.
        "INSERT INTO bands (ma_id, name) VALUES (3, 'Gamma')",
        "UPDATE bands SET lat = 59.9, lon = 10.7 WHERE ma_id = 1",
        "UPDATE bands SET lat = NULL, lon = NULL WHERE ma_id = 1",
    ] {
        assert!(moves(pool, sql).await, "did not move the version: {sql}");
    }
}

#[tokio::test]
async fn a_bulk_statement_moves_the_version_once() {
    let db = seeded().await;
    let pool = &db.pool;
    let before = data_version(pool).await.unwrap();
    sqlx::raw_sql(
        "INSERT INTO bands (ma_id, name) SELECT g, 'B' || g FROM generate_series(100, 1099) g;
         INSERT INTO band_locations (id, ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status)
         SELECT g, g, 0, 0, 'x', 50, 5, 'done' FROM generate_series(100, 1099) g;",
    )
    .execute(pool)
    .await
    .unwrap();
    // One implicit transaction per statement here: the INSERT of 1,000 mapped rows bumps once.
    assert_eq!(data_version(pool).await.unwrap(), before + 1);
}

#[tokio::test]
async fn a_failed_build_keeps_the_previous_snapshot_and_is_retried() {
    let db = seeded().await;
    let pool = &db.pool;
    let index = MapIndex::new();
    assert!(index.refresh(pool).await.unwrap());
    let first = index.current();
    assert_eq!(first.len(), 2);

    let err = index.reload_with(pool, failing_build).await.unwrap_err();
    assert!(err.to_string().contains("injected build failure"), "{err}");
    let kept = index.current();
    assert_eq!(kept.len(), 2, "the previous snapshot stays in use");
    assert_eq!(kept.fingerprint, first.fingerprint);

    // Nothing changed in the database, yet the next refresh rebuilds: the failure marked
    // the index stale.
    assert!(index.refresh(pool).await.unwrap());
    assert_eq!(index.current().len(), 2);
    assert!(!index.refresh(pool).await.unwrap(), "then up to date");
}

#[tokio::test]
async fn fingerprint_follows_content_not_version() {
    let db = seeded().await;
    let pool = &db.pool;
    let a = bandmap_index::map::load(pool).await.unwrap();
    let b = bandmap_index::map::load(pool).await.unwrap();
    assert_eq!(a.fingerprint, b.fingerprint, "same rows, same fingerprint");
    // A change that skips the triggers: same counter, other content.
    sqlx::raw_sql(
        "BEGIN; SET LOCAL session_replication_role = replica;
         UPDATE band_locations SET location_raw = 'Oslo, Norway' WHERE id = 11; COMMIT;",
    )
    .execute(pool)
    .await
    .unwrap();
    let c = bandmap_index::map::load(pool).await.unwrap();
    assert_eq!(c.version, a.version);
    assert_ne!(c.fingerprint, a.fingerprint);
}

/// A query over the whole world, optionally filtered on a genre.
fn world(genre: Option<&str>) -> bandmap_index::map::ClusterQuery {
    bandmap_index::map::ClusterQuery {
        bbox: bandmap_index::map::Bbox::WORLD,
        zoom: 3,
        filter: bandmap_index::map::Filter::new(genre, None, None, None, None),
    }
}

#[tokio::test]
async fn a_rebuild_empties_the_old_snapshots_caches_and_a_failed_one_keeps_them() {
    let db = seeded().await;
    let pool = &db.pool;
    let index = MapIndex::new();
    assert!(index.refresh(pool).await.unwrap());
    let old = index.current();
    let black = world(Some("black"));
    old.filter_index(&black.filter);
    old.geojson(&black);
    assert_eq!((old.filters.len(), old.bodies.len()), (1, 1));

    // A successful rebuild: the replaced snapshot drops its caches and keeps no new ones
    // (a request still holding it is answered, uncached).
    index.reload(pool).await.unwrap();
    assert_eq!((old.filters.len(), old.bodies.len()), (0, 0));
    let answer = old.geojson(&black);
    old.filter_index(&black.filter);
    assert!(!answer.is_empty());
    assert_eq!((old.filters.len(), old.bodies.len()), (0, 0));
    let new = index.current();
    assert!(new.keeps_caches());
    new.geojson(&black);
    assert_eq!(new.bodies.len(), 1, "the new snapshot keeps answers");

    // A failed rebuild: the snapshot in use stays and keeps caching.
    index.reload_with(pool, failing_build).await.unwrap_err();
    assert!(std::sync::Arc::ptr_eq(&new, &index.current()));
    assert!(new.keeps_caches());
    new.geojson(&world(None));
    assert_eq!(
        new.bodies.len(),
        1,
        "answers are kept again after the failed rebuild"
    );
}
