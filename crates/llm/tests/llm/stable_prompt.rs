//! Rule 21 (issue 13): the LLM request — prompt and sha256 cache key — depends only on the
//! stable facts of a row (its place text and the band's country), so the same place is
//! never sent twice, whatever the geocoder said between the attempts and whichever band
//! names it. Real PostgreSQL, the fake OpenAI-compatible server of `crates/fakes`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_fakes::llm::FakeLlm;
use bandmap_llm::Outcome;
use bandmap_test_support::TestDb;
use serde_json::json;
use sqlx::PgPool;

fn kolbotn() -> serde_json::Value {
    json!({"city": "Kolbotn", "region": "Viken", "country": "Norway", "confidence": 0.9})
}

/// The geocoder hands the row over again after a failure of its own, with a query and
/// an error text that differ from the first time (`processing` → `llm_needed`, so the
/// trigger of migration 016 copies them into `geocode_query` / `geocode_error`).
async fn handed_over_with(pool: &PgPool, id: i64, query: &str, error: &str) {
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'processing', claimed_at = now(),
             lat = NULL, lon = NULL, provider = NULL
         WHERE id = $1",
    )
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'llm_needed', attempts = attempts + 1,
             error = $3, query = $2, claimed_at = NULL,
             next_attempt_at = now() - interval '1 second'
         WHERE id = $1 AND geocode_status = 'processing'",
    )
    .bind(id)
    .bind(query)
    .bind(error)
    .execute(pool)
    .await
    .unwrap();
    let copied: (Option<String>, Option<String>) =
        sqlx::query_as("SELECT geocode_query, geocode_error FROM band_locations WHERE id = $1")
            .bind(id)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        copied,
        (Some(query.to_owned()), Some(error.to_owned())),
        "the geocoder's new failure is on the row"
    );
}

#[tokio::test]
async fn a_requeued_row_is_answered_from_the_cache_whatever_the_geocoder_said_since() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    let r = rig(&db.pool, &llm);
    // The extracted city is not accepted the first time: the row goes to `manual`.
    let id = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    let first = r.worker.run_once().await.unwrap();
    assert!(
        matches!(first, Outcome::Manual { location_id, .. } if location_id == id),
        "{first:?}"
    );
    assert_eq!(llm.count(), 1);

    // The row is requeued; the geocoder fails again, this time from its own cache, with
    // another query and error text ("no result" vs "no result (cached)").
    r.resolver.accept("Kolbotn", 59.81, 10.8, "geoapify");
    handed_over_with(
        &db.pool,
        id,
        "Kolbotn, Viken, NO",
        "'Kolbotn, Viken, NO': no result (cached)",
    )
    .await;
    assert_eq!(row(&db.pool, id).await.geocode_status, "llm_needed");
    let second = r.worker.run_once().await.unwrap();
    assert!(
        matches!(second, Outcome::Done { location_id, cached: true, .. } if location_id == id),
        "{second:?}"
    );
    assert_eq!(llm.count(), 1, "no second call reached the provider");
    assert_eq!(
        cache_rows(&db.pool).await.len(),
        1,
        "one call, one cache row"
    );
    assert_eq!(row(&db.pool, id).await.geocode_status, "done");
}

#[tokio::test]
async fn two_rows_with_the_same_place_and_country_share_one_call() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for("Kolbotn", kolbotn());
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    // Two bands (other names, other ids) whose rows name the same place in the same
    // country; the geocoder handed them over with different failures.
    let a = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    let b = llm_row(&db.pool, 2, "Aura Noir", "Kolbotn, Viken").await;
    handed_over_with(&db.pool, b, "Kolbotn, NO", "gazetteer: ambiguous").await;

    let out_a = r.worker.run_once().await.unwrap();
    let out_b = r.worker.run_once().await.unwrap();
    let mut outs = [out_a, out_b];
    outs.sort_by_key(|o| matches!(o, Outcome::Done { cached: true, .. }));
    assert!(
        matches!(&outs[0], Outcome::Done { cached: false, .. }),
        "{outs:?}"
    );
    assert!(
        matches!(&outs[1], Outcome::Done { cached: true, .. }),
        "{outs:?}"
    );
    assert_eq!(llm.count(), 1, "the second row made no call");
    assert_eq!(cache_rows(&db.pool).await.len(), 1);
    for id in [a, b] {
        let s = row(&db.pool, id).await;
        assert_eq!(s.geocode_status, "done");
        assert_eq!((s.lat, s.lon), (Some(59.81), Some(10.8)));
    }

    // A row naming the same place for a band of another country is another question.
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text)
         VALUES (3, 'Other', 'Sweden', 'SE', 'Kolbotn, Viken')",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let c: i64 = sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, country,
             country_code, geocode_status, attempts, claimed_at)
         VALUES (3, 0, 0, 'Kolbotn, Viken', 'Sweden', 'SE', 'processing', 2, now())
         RETURNING id",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    handed_over_with(&db.pool, c, "Kolbotn, SE", "no result").await;
    let out_c = r.worker.run_once().await.unwrap();
    assert!(
        matches!(out_c, Outcome::Done { cached: false, .. }),
        "{out_c:?}"
    );
    assert_eq!(llm.count(), 2, "another country is another request");
}
