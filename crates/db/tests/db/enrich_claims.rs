//! Enrichment claims: concurrent runs (crawler replicas) never get the same band, a claim
//! is released at the end of its run, and an expired lease is claimable again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::bands::enrich::{claim_batch, next_batch, release_claims};
use bandmap_test_support::TestDb;
use sqlx::PgPool;
use std::collections::HashSet;

async fn seed(pool: &PgPool, n: i64) {
    sqlx::query(
        "INSERT INTO bands (ma_id, name) SELECT g, 'Band ' || g FROM generate_series(1, $1) g",
    )
    .bind(n)
    .execute(pool)
    .await
    .unwrap();
}

fn ids(batch: &[bandmap_db::bands::enrich::QueuedBand]) -> Vec<i64> {
    batch.iter().map(|b| b.ma_id).collect()
}

#[tokio::test]
async fn a_claimed_band_is_not_given_to_another_run_until_released() {
    let db = TestDb::new().await;
    seed(&db.pool, 5).await;
    let a = claim_batch(&db.pool, 101, 3, &[]).await.unwrap();
    assert_eq!(ids(&a), vec![1, 2, 3]);
    let b = claim_batch(&db.pool, 202, 10, &[]).await.unwrap();
    assert_eq!(ids(&b), vec![4, 5], "run 202 skips the bands of run 101");
    // The queue itself (read-only view) still lists every band.
    assert_eq!(next_batch(&db.pool, 10, &[]).await.unwrap().len(), 5);
    // The same run may claim its own bands again (nothing else holds them).
    let again = claim_batch(&db.pool, 101, 10, &[1]).await.unwrap();
    assert_eq!(ids(&again), vec![2, 3]);

    assert_eq!(release_claims(&db.pool, 101).await.unwrap(), 3);
    let c = claim_batch(&db.pool, 303, 10, &[]).await.unwrap();
    assert_eq!(
        ids(&c),
        vec![1, 2, 3],
        "released bands come back, 4 and 5 stay with 202"
    );
}

#[tokio::test]
async fn an_expired_lease_is_claimable_again() {
    let db = TestDb::new().await;
    seed(&db.pool, 2).await;
    assert_eq!(claim_batch(&db.pool, 1, 10, &[]).await.unwrap().len(), 2);
    sqlx::query(
        "UPDATE enrich_claims SET claimed_until = now() - interval '1 second' WHERE ma_id = 2",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let b = claim_batch(&db.pool, 2, 10, &[]).await.unwrap();
    assert_eq!(ids(&b), vec![2]);
    let owner: i64 = sqlx::query_scalar("SELECT run_id FROM enrich_claims WHERE ma_id = 2")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(owner, 2);
}

#[tokio::test]
async fn concurrent_claimers_get_disjoint_bands_and_together_cover_the_queue() {
    let db = TestDb::new().await;
    seed(&db.pool, 400).await;
    let mut tasks = Vec::new();
    for run in 1..=4_i64 {
        let pool = db.pool.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let batch = claim_batch(&pool, run, 7, &mine).await.unwrap();
                if batch.is_empty() {
                    break;
                }
                mine.extend(ids(&batch));
            }
            mine
        }));
    }
    let mut seen = HashSet::new();
    let mut total = 0;
    for t in tasks {
        for id in t.await.unwrap() {
            total += 1;
            assert!(seen.insert(id), "band {id} was claimed by two runs");
        }
    }
    assert_eq!(total, 400);
    assert_eq!(seen.len(), 400);
}

#[tokio::test]
async fn deleting_a_band_removes_its_claim() {
    let db = TestDb::new().await;
    seed(&db.pool, 1).await;
    claim_batch(&db.pool, 9, 1, &[]).await.unwrap();
    sqlx::query("DELETE FROM bands WHERE ma_id = 1")
        .execute(&db.pool)
        .await
        .unwrap();
    assert_eq!(release_claims(&db.pool, 9).await.unwrap(), 0);
}
