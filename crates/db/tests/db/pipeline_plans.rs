//! The geocoder's batch reads a bounded number of `band_locations` rows whatever the table
//! statistics say (issue 13, migration 023).
//!
//! The pipeline turns tens of thousands of `pending` rows into `done` ones between two
//! ANALYZE runs (none at all with autovacuum off). With statistics taken before any row was
//! `done`, the planner used to walk every `done` row for each claimed row's rule-17 twin
//! and for each batch's primary points: 161 s for 150,000 rows instead of under a minute.
//! These tests build that situation on a real database and count the rows each step reads
//! (`pg_stat_xact_user_tables`, the current transaction's own counters): a count, not a
//! time, so the test is as reliable on a loaded machine as on a quiet one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::band_locations::claim::{self, Claimed};
use bandmap_db::band_locations::done::{self, DoneFields, Finish, Finished};
use bandmap_test_support::TestDb;
use sqlx::PgConnection;

/// Rows of the table; most of them are `done` by the time the batch runs.
const ROWS: i64 = 6_000;
/// Rows made `done` behind the planner's back (after ANALYZE).
const DONE: i64 = 5_000;
/// Distinct places: every claimed row has a `done` twin.
const PLACES: i64 = 300;
/// Claim size (the geocoder's `BATCH_SIZE`).
const BATCH: i64 = 64;
/// Rows a step may read per claimed row: a handful of index entries and heap tuples (its
/// own, its twin, its band's origin row). The walks of the old plans read thousands.
const PER_ROW: i64 = 8;

/// `ROWS` bands of one located step each, statistics taken while every row is `pending`,
/// then `DONE` of them written `done` in bulk, as the pipeline leaves them between two
/// ANALYZE runs.
async fn stale_statistics(db: &TestDb) {
    sqlx::query("INSERT INTO bands (ma_id, name) SELECT i, 'b' || i FROM generate_series(1, $1) i")
        .bind(ROWS)
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, step_label, location_raw,
                                     city, regions, country, country_code)
         SELECT i, 0, 0, 'origin', 'Town ' || (i % $2), 'Town ' || (i % $2), '{}', 'Norway', 'NO'
         FROM generate_series(1, $1) i",
    )
    .bind(ROWS)
    .bind(PLACES)
    .execute(&db.pool)
    .await
    .unwrap();
    sqlx::query("ANALYZE band_locations")
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query("ANALYZE bands")
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'done', lat = 60, lon = 5, provider = 'seed'
         WHERE id IN (SELECT id FROM band_locations ORDER BY id LIMIT $1)",
    )
    .bind(DONE)
    .execute(&db.pool)
    .await
    .unwrap();
}

/// `band_locations` rows read so far in this transaction (sequential and index fetches).
async fn rows_read(conn: &mut PgConnection) -> i64 {
    sqlx::query_scalar(
        "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
         FROM pg_stat_xact_user_tables WHERE relname = 'band_locations'",
    )
    .fetch_one(conn)
    .await
    .unwrap()
}

fn finished(rows: &[Claimed]) -> Vec<Finished> {
    rows.iter()
        .map(|r| Finished {
            claim: r.claim(),
            status: Finish::Done,
            fields: DoneFields {
                lat: 59.9,
                lon: 10.7,
                provider: "test".into(),
                confidence: Some(1.0),
                granularity: Some("city".into()),
                query: None,
            },
        })
        .collect()
}

#[tokio::test]
async fn claim_with_twins_reads_a_bounded_number_of_rows_under_stale_statistics() {
    let db = TestDb::new().await;
    stale_statistics(&db).await;
    let mut tx = db.pool.begin().await.unwrap();
    let before = rows_read(&mut tx).await;
    let rows = claim::claim_batch(&mut *tx, BATCH).await.unwrap();
    let read = rows_read(&mut tx).await - before;
    assert_eq!(rows.len() as i64, BATCH);
    assert!(
        rows.iter().all(|r| r.twin().is_some()),
        "every claimed place has a done twin"
    );
    assert!(
        read <= BATCH * PER_ROW,
        "the claim read {read} band_locations rows for {BATCH} claims (at most {} expected)",
        BATCH * PER_ROW
    );
}

#[tokio::test]
async fn finishing_a_batch_reads_a_bounded_number_of_rows_under_stale_statistics() {
    let db = TestDb::new().await;
    stale_statistics(&db).await;
    let mut tx = db.pool.begin().await.unwrap();
    let rows = claim::claim_batch(&mut *tx, BATCH).await.unwrap();
    assert_eq!(rows.len() as i64, BATCH);
    let before = rows_read(&mut tx).await;
    let written = done::finish_batch(&mut *tx, &finished(&rows))
        .await
        .unwrap();
    let read = rows_read(&mut tx).await - before;
    assert_eq!(written.len() as i64, BATCH);
    assert!(
        read <= BATCH * PER_ROW,
        "finishing the batch read {read} band_locations rows for {BATCH} rows (at most {} expected)",
        BATCH * PER_ROW
    );
    // The primary points were written all the same (rule 19).
    let placed: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM bands WHERE ma_id = ANY($1) AND lat = 59.9 AND lon = 10.7",
    )
    .bind(rows.iter().map(|r| r.ma_id).collect::<Vec<_>>())
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(placed, BATCH);
}
