//! `bandmap_db::llm_cache` read helpers (used by `/admin/api/llm`, `/admin/api/geocoding`
//! and the band detail): NaN and infinite costs never break a reader nor a total.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::llm_cache::{self, LlmFilter, NewLlmCall};
use bandmap_test_support::TestDb;
use serde_json::json;
use sqlx::PgPool;

async fn call(
    pool: &PgPool,
    key: &str,
    ma_id: i64,
    model: &str,
    city: Option<&str>,
    place: &str,
    cost: Option<f64>,
) -> i64 {
    llm_cache::insert(
        pool,
        &NewLlmCall {
            key: key.into(),
            ma_id: Some(ma_id),
            location_id: None,
            location_raw: Some(place.into()),
            country: Some("Norway".into()),
            model: model.into(),
            extraction: Some(
                json!({"city": city, "region": null, "country": "Norway", "confidence": 0.5}),
            ),
            prompt_tokens: Some(100),
            completion_tokens: Some(20),
            cost_usd: cost,
            prompt: "p".into(),
            response: "r".into(),
        },
    )
    .await
    .unwrap()
}

async fn seed(pool: &PgPool) -> i64 {
    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (1, 'Darkthrone'), (2, 'Mayhem')")
        .execute(pool)
        .await
        .unwrap();
    call(
        pool,
        "k1",
        1,
        "big",
        Some("Kolbotn"),
        "Kolbotn, Viken",
        Some(0.25),
    )
    .await;
    call(pool, "k2", 2, "big", None, "Oslo_100%", Some(0.5)).await;
    call(pool, "k3", 2, "small", Some("Oslo"), "Oslo", Some(0.125)).await;
    let nan = call(pool, "k4", 1, "small", None, "Kolbotn", None).await;
    sqlx::query("UPDATE llm_cache SET cost_usd = 'NaN' WHERE id = $1")
        .bind(nan)
        .execute(pool)
        .await
        .unwrap();
    let inf = call(pool, "k5", 3, "small", None, "Tromsø", None).await;
    sqlx::query("UPDATE llm_cache SET cost_usd = 'Infinity' WHERE id = $1")
        .bind(inf)
        .execute(pool)
        .await
        .unwrap();
    nan
}

#[tokio::test]
async fn nan_cost_reads_as_none_and_totals_stay_finite() {
    let db = TestDb::new().await;
    let nan = seed(&db.pool).await;
    let page = llm_cache::list(&db.pool, &LlmFilter::default(), 50, 0)
        .await
        .unwrap();
    assert_eq!(page.total, 5);
    assert_eq!(page.totals.calls, 5);
    assert!(
        (page.totals.cost_usd - 0.875).abs() < 1e-12,
        "{}",
        page.totals.cost_usd
    );
    let item = page.items.iter().find(|i| i.id == nan).unwrap();
    assert_eq!(item.cost_usd, None);
    assert_eq!(item.band_name.as_deref(), Some("Darkthrone"));
    // Serialised for a response, no NaN anywhere.
    let text = serde_json::to_string(&page).unwrap();
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");

    let stats = llm_cache::model_stats(&db.pool).await.unwrap();
    let small = stats.iter().find(|m| m.model == "small").unwrap();
    assert_eq!((small.calls, small.city_null), (3, 2));
    assert!((small.cost_usd - 0.125).abs() < 1e-12);
    assert_eq!((small.prompt_tokens, small.completion_tokens), (300, 60));
    let big = stats.iter().find(|m| m.model == "big").unwrap();
    assert_eq!((big.calls, big.city_null), (2, 1));
    assert!((big.cost_usd - 0.75).abs() < 1e-12);

    let band = llm_cache::for_band(&db.pool, 1).await.unwrap();
    assert_eq!(band.len(), 2);
    assert!(band.iter().any(|c| c.cost_usd.is_none()));
    assert_eq!(llm_cache::count(&db.pool).await.unwrap(), 5);
}

#[tokio::test]
async fn filters_model_band_city_null_and_literal_pattern() {
    let db = TestDb::new().await;
    seed(&db.pool).await;
    let f = |model: Option<&str>, ma_id, city_null, pat: Option<&str>| LlmFilter {
        model: model.map(str::to_string),
        ma_id,
        city_null,
        malformed: None,
        location_pattern: pat.map(str::to_string),
    };
    let total = |p: llm_cache::LlmPage| (p.total, p.items.len() as i64);
    let page = llm_cache::list(&db.pool, &f(Some("small"), None, None, None), 50, 0)
        .await
        .unwrap();
    assert_eq!(total(page), (3, 3));
    let page = llm_cache::list(&db.pool, &f(None, Some(2), None, None), 50, 0)
        .await
        .unwrap();
    assert_eq!(total(page), (2, 2));
    let page = llm_cache::list(&db.pool, &f(None, None, Some(true), None), 50, 0)
        .await
        .unwrap();
    assert_eq!(total(page), (3, 3));
    let page = llm_cache::list(&db.pool, &f(None, None, Some(false), None), 50, 0)
        .await
        .unwrap();
    assert_eq!(total(page), (2, 2));
    // `%` typed by the user is escaped by the API (`\%`) and matched literally.
    let page = llm_cache::list(&db.pool, &f(None, None, None, Some("%100\\%%")), 50, 0)
        .await
        .unwrap();
    assert_eq!(page.total, 1);
    assert_eq!(page.items[0].location_raw.as_deref(), Some("Oslo_100%"));
    let page = llm_cache::list(&db.pool, &f(None, None, None, Some("%kolbotn%")), 1, 1)
        .await
        .unwrap();
    assert_eq!((page.total, page.items.len()), (2, 1));
    // Totals follow the filter and ignore NaN.
    let page = llm_cache::list(&db.pool, &f(Some("small"), Some(1), None, None), 50, 0)
        .await
        .unwrap();
    assert_eq!(page.totals.calls, 1);
    assert_eq!(page.totals.cost_usd, 0.0);
}

#[tokio::test]
async fn only_valid_extractions_are_served_from_the_cache() {
    let db = TestDb::new().await;
    call(&db.pool, "good", 1, "m", Some("Oslo"), "Oslo", Some(0.1)).await;
    assert_eq!(
        llm_cache::find_answer(&db.pool, "good")
            .await
            .unwrap()
            .unwrap()
            .extraction["city"],
        "Oslo"
    );
    sqlx::query("UPDATE llm_cache SET extraction = NULL WHERE key = 'good'")
        .execute(&db.pool)
        .await
        .unwrap();
    assert!(
        llm_cache::find_answer(&db.pool, "good")
            .await
            .unwrap()
            .is_none()
    );
    // A non-finite cost is never written.
    call(&db.pool, "nan", 1, "m", None, "x", Some(f64::NAN)).await;
    let stored: Option<String> =
        sqlx::query_scalar("SELECT cost_usd::text FROM llm_cache WHERE key = 'nan'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(stored, None);
}

fn record(key: &str, extraction: Option<serde_json::Value>, cost: f64) -> NewLlmCall {
    NewLlmCall {
        key: key.into(),
        ma_id: Some(1),
        location_id: None,
        location_raw: Some("Kolbotn".into()),
        country: Some("Norway".into()),
        model: "m".into(),
        extraction,
        prompt_tokens: Some(100),
        completion_tokens: Some(20),
        cost_usd: Some(cost),
        prompt: "p".into(),
        response: "r".into(),
    }
}

#[tokio::test]
async fn every_call_of_one_key_is_its_own_row_and_counts_in_the_totals() {
    let db = TestDb::new().await;
    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (1, 'Darkthrone')")
        .execute(&db.pool)
        .await
        .unwrap();
    let oslo = json!({"city": "Oslo", "region": null, "country": "Norway", "confidence": 0.5});
    let bergen = json!({"city": "Bergen", "region": null, "country": "Norway", "confidence": 0.5});
    // A malformed (but billed) reply, then two valid answers of the same request.
    let bad = llm_cache::insert(&db.pool, &record("same", None, 0.25))
        .await
        .unwrap();
    assert!(
        llm_cache::find_answer(&db.pool, "same")
            .await
            .unwrap()
            .is_none(),
        "a malformed reply is never a cache hit"
    );
    llm_cache::insert(&db.pool, &record("same", Some(oslo), 0.5))
        .await
        .unwrap();
    let newest = llm_cache::insert(&db.pool, &record("same", Some(bergen), 0.125))
        .await
        .unwrap();
    let hit = llm_cache::find_answer(&db.pool, "same")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (hit.id, hit.extraction["city"].as_str()),
        (newest, Some("Bergen"))
    );

    let page = llm_cache::list(&db.pool, &LlmFilter::default(), 50, 0)
        .await
        .unwrap();
    assert_eq!(page.totals.calls, 3, "every billed call is counted");
    assert_eq!(page.totals.cost_usd, 0.875);
    assert!(
        page.items
            .iter()
            .any(|c| c.id == bad && c.extraction.is_none())
    );
    let stats = llm_cache::model_stats(&db.pool).await.unwrap();
    assert_eq!(stats.len(), 1);
    // Issue 19 point 9: the malformed reply is an error counted apart, not "city null".
    assert_eq!(
        (stats[0].calls, stats[0].city_null, stats[0].malformed),
        (3, 0, 1)
    );
    assert_eq!(stats[0].prompt_tokens, 300);
    assert_eq!(stats[0].cost_usd, 0.875);
    assert_eq!(llm_cache::count(&db.pool).await.unwrap(), 3);
}
