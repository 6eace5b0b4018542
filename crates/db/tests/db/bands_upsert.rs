//! The one upsert path: inserts, rule 3 (`updated_at` only on a real change), locks and
//! conflicts (rule 6), rule 20 (a changed location deletes `band_locations`), batches.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::bands::upsert::{BandInput, UpsertReport, upsert_bands};
use bandmap_test_support::TestDb;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::PgPool;

fn band(ma_id: i64) -> BandInput {
    BandInput {
        ma_id,
        name: format!("Band {ma_id}"),
        country: Some("Norway".into()),
        country_code: Some("NO".into()),
        location_text: Some("Bergen, Vestland".into()),
        genre: Some("Black Metal".into()),
        themes: Some("Darkness".into()),
        status: Some("Active".into()),
        formed_year: Some(1991),
        label: Some("Unsigned/independent".into()),
        url: Some(format!("https://www.metal-archives.com/bands/B/{ma_id}")),
    }
}

async fn updated_at(pool: &PgPool, ma_id: i64) -> DateTime<Utc> {
    sqlx::query_scalar("SELECT updated_at FROM bands WHERE ma_id = $1")
        .bind(ma_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn age_updated_at(pool: &PgPool, ma_id: i64) {
    // Move the stored timestamp into the past so a later "now()" is distinguishable. The
    // trigger forces updated_at back to OLD when nothing else changes, so disable it.
    sqlx::query("ALTER TABLE bands DISABLE TRIGGER bands_before_update")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("UPDATE bands SET updated_at = updated_at - interval '1 day' WHERE ma_id = $1")
        .bind(ma_id)
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("ALTER TABLE bands ENABLE TRIGGER bands_before_update")
        .execute(pool)
        .await
        .unwrap();
}

async fn pending(pool: &PgPool, ma_id: i64) -> Value {
    sqlx::query_scalar("SELECT crawler_pending FROM bands WHERE ma_id = $1")
        .bind(ma_id)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn inserts_then_identical_upsert_is_unchanged_and_keeps_updated_at() {
    let db = TestDb::new().await;
    let r = upsert_bands(&db.pool, &[band(1), band(2)]).await.unwrap();
    assert_eq!(
        r,
        UpsertReport {
            inserted: 2,
            updated: 0,
            unchanged: 0
        }
    );
    let url: Option<String> = sqlx::query_scalar("SELECT data->>'url' FROM bands WHERE ma_id = 1")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(
        url.as_deref(),
        Some("https://www.metal-archives.com/bands/B/1")
    );

    age_updated_at(&db.pool, 1).await;
    let before = updated_at(&db.pool, 1).await;
    let r = upsert_bands(&db.pool, &[band(1), band(2)]).await.unwrap();
    assert_eq!(
        r,
        UpsertReport {
            inserted: 0,
            updated: 0,
            unchanged: 2
        }
    );
    assert_eq!(updated_at(&db.pool, 1).await, before);

    let mut changed = band(1);
    changed.genre = Some("Death Metal".into());
    let r = upsert_bands(&db.pool, &[changed]).await.unwrap();
    assert_eq!(
        r,
        UpsertReport {
            inserted: 0,
            updated: 1,
            unchanged: 0
        }
    );
    assert!(updated_at(&db.pool, 1).await > before);
}

#[tokio::test]
async fn not_provided_fields_are_left_as_is() {
    let db = TestDb::new().await;
    upsert_bands(&db.pool, &[band(5)]).await.unwrap();
    let sparse = BandInput {
        ma_id: 5,
        name: "Band 5".into(),
        status: Some("Split-up".into()),
        ..BandInput::default()
    };
    let r = upsert_bands(&db.pool, &[sparse]).await.unwrap();
    assert_eq!(r.updated, 1);
    let (genre, status, url): (Option<String>, Option<String>, Option<String>) =
        sqlx::query_as("SELECT genre, status, data->>'url' FROM bands WHERE ma_id = 5")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(genre.as_deref(), Some("Black Metal"));
    assert_eq!(status.as_deref(), Some("Split-up"));
    assert!(url.is_some());
}

#[tokio::test]
async fn locked_field_survives_conflict_is_recorded_and_equal_value_clears_it() {
    let db = TestDb::new().await;
    upsert_bands(&db.pool, &[band(7)]).await.unwrap();
    sqlx::query(
        "UPDATE bands SET genre = 'Admin Genre', formed_year = 1990,
                locked_fields = ARRAY['genre', 'formed_year'] WHERE ma_id = 7",
    )
    .execute(&db.pool)
    .await
    .unwrap();

    let r = upsert_bands(&db.pool, &[band(7)]).await.unwrap();
    assert_eq!(r.updated, 1, "conflicts recorded");
    let (genre, year): (Option<String>, Option<i32>) =
        sqlx::query_as("SELECT genre, formed_year FROM bands WHERE ma_id = 7")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(genre.as_deref(), Some("Admin Genre"));
    assert_eq!(year, Some(1990));
    assert_eq!(
        pending(&db.pool, 7).await,
        json!({"genre": "Black Metal", "formed_year": 1991})
    );

    // The same upstream values again: nothing changes.
    let r = upsert_bands(&db.pool, &[band(7)]).await.unwrap();
    assert_eq!(r.unchanged, 1);

    // Upstream now agrees with the admin on genre: that conflict clears, the other stays.
    let mut agree = band(7);
    agree.genre = Some("Admin Genre".into());
    upsert_bands(&db.pool, &[agree]).await.unwrap();
    assert_eq!(pending(&db.pool, 7).await, json!({"formed_year": 1991}));
}

#[tokio::test]
async fn changed_location_deletes_band_locations_and_same_location_keeps_them() {
    let db = TestDb::new().await;
    upsert_bands(&db.pool, &[band(9)]).await.unwrap();
    sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, country)
         VALUES (9, 0, 0, 'Bergen', 'Norway')",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let count = |pool: PgPool| async move {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM band_locations WHERE ma_id = 9")
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    upsert_bands(&db.pool, &[band(9)]).await.unwrap();
    assert_eq!(count(db.pool.clone()).await, 1);
    let mut moved = band(9);
    moved.location_text = Some("Oslo".into());
    upsert_bands(&db.pool, &[moved]).await.unwrap();
    assert_eq!(count(db.pool.clone()).await, 0);
}

#[tokio::test]
async fn a_page_of_500_mixed_rows_in_one_call() {
    let db = TestDb::new().await;
    let first: Vec<BandInput> = (1..=250).map(band).collect();
    upsert_bands(&db.pool, &first).await.unwrap();
    let mut page: Vec<BandInput> = (1..=500).map(band).collect();
    for b in page.iter_mut().take(100) {
        b.themes = Some("Changed".into());
    }
    let r = upsert_bands(&db.pool, &page).await.unwrap();
    assert_eq!(
        r,
        UpsertReport {
            inserted: 250,
            updated: 100,
            unchanged: 150
        }
    );
}

#[tokio::test]
async fn import_objects_reject_unknown_keys() {
    let ok: BandInput = serde_json::from_value(json!({"ma_id": 1, "name": "X"})).unwrap();
    assert_eq!(ok.ma_id, 1);
    assert!(
        serde_json::from_value::<BandInput>(json!({"ma_id": 1, "name": "X", "bogus": 1})).is_err()
    );
}
