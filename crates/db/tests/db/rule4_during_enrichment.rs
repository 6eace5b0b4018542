//! Rule 4 (issue 19 point 6): an edit listed while a band's page is being read is not
//! lost when that enrichment is stored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::bands::enrich::{
    Enrichment, ModifiedSeen, listed_text, record_modified, store_read_after,
};
use bandmap_db::bands::upsert::BandInput;
use bandmap_test_support::TestDb;
use chrono::Utc;
use serde_json::json;
use sqlx::PgPool;

fn page_of(ma_id: i64) -> Enrichment {
    Enrichment {
        fields: BandInput {
            ma_id,
            name: format!("Band {ma_id}"),
            ..BandInput::default()
        },
        band_page: json!({"line_up": []}),
        crawled_hash: "h".into(),
        modified_text: None,
        modified_at: None,
        created_at: None,
    }
}

async fn pending(pool: &PgPool, ma_id: i64) -> bool {
    sqlx::query_scalar("SELECT enrich_pending FROM bands WHERE ma_id = $1")
        .bind(ma_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_edit_listed_during_the_page_read_survives_the_store() {
    let db = TestDb::new().await;
    let p = &db.pool;
    // 1: enriched, flag raised by an earlier listed edit. 2: never enriched.
    sqlx::query(
        "INSERT INTO bands (ma_id, name, enriched, enrich_pending, crawled_at, ma_modified_text)
         VALUES (1, 'Band 1', TRUE, TRUE, now() - interval '3 days', 'November 1st, 10:00'),
                (2, 'Band 2', FALSE, FALSE, NULL, NULL),
                (3, 'Band 3', TRUE, TRUE, now() - interval '3 days', 'November 1st, 10:00')",
    )
    .execute(p)
    .await
    .unwrap();
    let before1 = listed_text(p, 1).await.unwrap();
    let before2 = listed_text(p, 2).await.unwrap();
    let before3 = listed_text(p, 3).await.unwrap();
    assert_eq!(before1.as_deref(), Some("November 1st, 10:00"));
    // While the pages are fetched, the `modified` list shows new edits of 1 and 2.
    let at = Utc::now();
    let seen = [1, 2].map(|ma_id| ModifiedSeen {
        ma_id,
        text: "November 25th, 14:00".into(),
        at,
    });
    record_modified(p, &seen).await.unwrap();
    for (id, before) in [(1, &before1), (2, &before2), (3, &before3)] {
        store_read_after(p, &page_of(id), before.as_deref())
            .await
            .unwrap();
    }
    assert!(
        pending(p, 1).await,
        "edit listed during the read: read again"
    );
    assert!(pending(p, 2).await, "same for a band never enriched before");
    assert!(
        !pending(p, 3).await,
        "nothing listed meanwhile: the flag is cleared"
    );
}
