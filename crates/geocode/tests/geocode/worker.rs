#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Worker-level properties: the shared limiter's spacing, two workers in parallel, the
//! self-repair, the primary point (rule 19), `mark_done` for the LLM worker, and `run`.

use crate::common::*;
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_geocode::{Outcome, Resolved, STUCK_AFTER, Worker, mark_done, run_once};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

async fn drain(w: &Worker) -> Vec<Outcome> {
    let mut out = Vec::new();
    loop {
        match run_once(w).await {
            Outcome::Idle => return out,
            Outcome::Fault { message } => panic!("fault: {message}"),
            o => out.push(o),
        }
    }
}

#[tokio::test]
async fn provider_calls_are_spaced_by_the_shared_limiter_across_tasks() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    for (i, c) in [
        "Hamar",
        "Gjøvik",
        "Elverum",
        "Kongsvinger",
        "Lillestrøm",
        "Moss",
    ]
    .iter()
    .enumerate()
    {
        row(&db.pool, i as i64 + 1, 0, c, &[], "Norway", "NO").await;
    }
    let mut cfg = config(&geo);
    cfg.min_delay = Duration::from_millis(220);
    cfg.min_jitter = Duration::from_millis(50);
    let w = worker(&db.pool, &cfg, None);
    // Three tasks of one process share the limiter.
    let (a, b, c) = tokio::join!(drain(&w), drain(&w), drain(&w));
    assert_eq!(a.len() + b.len() + c.len(), 6);

    let calls = geo.calls();
    assert_eq!(calls.len(), 6);
    for pair in calls.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(gap >= Duration::from_millis(220), "gap {gap:?} < 0.22 s");
    }
}

#[tokio::test]
async fn clones_of_one_geocoder_share_its_limiter() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let mut cfg = config(&geo);
    cfg.min_delay = Duration::from_millis(220);
    cfg.min_jitter = Duration::ZERO;
    let g = bandmap_geocode::Geocoder::with_parts(
        db.pool.clone(),
        &cfg,
        None,
        Duration::from_millis(10),
    )
    .unwrap();
    // As `bandmap all` does: one clone for the geocoder worker, one for the LLM worker.
    let (a, b) = (g.clone(), g.clone());
    let place = |c: &str| bandmap_geocode::PlaceQuery {
        city: c.into(),
        regions: vec![],
        country_code: Some("NO".into()),
        country_name: Some("Norway".into()),
    };
    let (p1, p2, p3, p4) = (place("Hamar"), place("Moss"), place("Alta"), place("Voss"));
    let results = tokio::join!(
        a.resolve(&p1),
        b.resolve(&p2),
        a.resolve(&p3),
        b.resolve(&p4)
    );
    for r in [results.0, results.1, results.2, results.3] {
        assert!(
            matches!(r, bandmap_geocode::Resolution::Accepted(_)),
            "{r:?}"
        );
    }
    let calls = geo.calls();
    assert_eq!(calls.len(), 4);
    for pair in calls.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(gap >= Duration::from_millis(220), "gap {gap:?} < 0.22 s");
    }
}

#[tokio::test]
async fn two_workers_in_parallel_never_process_one_row_twice() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let n = 40;
    for i in 0..n {
        row(
            &db.pool,
            i + 1,
            0,
            &format!("Place{i}"),
            &[],
            "Norway",
            "NO",
        )
        .await;
    }
    let cfg = config(&geo);
    // Two independent workers (as two processes would be), two tasks each.
    let (w1, w2) = (worker(&db.pool, &cfg, None), worker(&db.pool, &cfg, None));
    let (a, b, c, d) = tokio::join!(drain(&w1), drain(&w1), drain(&w2), drain(&w2));
    let done: Vec<i64> = [a, b, c, d]
        .concat()
        .into_iter()
        .map(|o| match o {
            Outcome::Done { id, .. } => id,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    let mut unique = done.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(done.len(), n as usize);
    assert_eq!(unique.len(), n as usize, "a row was processed twice");
    let mut texts = geo.texts();
    texts.sort();
    let before = texts.len();
    texts.dedup();
    assert_eq!(before, n as usize, "one call per row");
    assert_eq!(texts.len(), n as usize, "no query sent twice");
    let left: i64 =
        sqlx::query_scalar("SELECT count(*) FROM band_locations WHERE geocode_status <> 'done'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn rows_stuck_in_processing_are_repaired() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let stuck = row(&db.pool, 1, 0, "Harstad", &[], "Norway", "NO").await;
    let busy = row(&db.pool, 2, 0, "Narvik", &[], "Norway", "NO").await;
    sqlx::query("UPDATE band_locations SET geocode_status = 'processing', claimed_at = now() - interval '11 minutes' WHERE id = $1")
        .bind(stuck)
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'processing', claimed_at = now() WHERE id = $1",
    )
    .bind(busy)
    .execute(&db.pool)
    .await
    .unwrap();
    let w = worker(&db.pool, &config(&geo), None);
    assert_eq!(run_once(&w).await, Outcome::Idle);

    let n = bandmap_db::band_locations::upkeep::repair_stuck(&db.pool, STUCK_AFTER)
        .await
        .unwrap();
    assert_eq!(n, 1);
    assert_eq!(state(&db.pool, busy).await.geocode_status, "processing");
    assert!(matches!(run_once(&w).await, Outcome::Done { id, .. } if id == stuck));
}

#[tokio::test]
async fn the_primary_point_is_the_origin_step_and_a_manual_override_wins() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.set_results("Oslo, Norway", vec![city("Oslo", 59.91, 10.75, 0.95, "no")]);
    geo.set_results(
        "Bergen, Norway",
        vec![city("Bergen", 60.39, 5.32, 0.95, "no")],
    );
    geo.set_results(
        "Stavanger, Norway",
        vec![city("Stavanger", 58.97, 5.73, 0.95, "no")],
    );
    // Step 1 (later) is claimed first: lower id, same due time.
    let later = row(&db.pool, 7, 1, "Oslo", &[], "Norway", "NO").await;
    let origin = row(&db.pool, 7, 0, "Bergen", &[], "Norway", "NO").await;
    sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now() - interval '1 hour' WHERE id = $1",
    )
    .bind(later)
    .execute(&db.pool)
    .await
    .unwrap();
    let w = worker(&db.pool, &config(&geo), None);

    assert!(matches!(run_once(&w).await, Outcome::Done { id, .. } if id == later));
    // A later step never stands in for step 0 (issue 19 point 3): no point yet.
    assert_eq!(band_point(&db.pool, 7).await, (None, None, None));
    assert!(matches!(run_once(&w).await, Outcome::Done { id, .. } if id == origin));
    assert_eq!(
        band_point(&db.pool, 7).await,
        (Some(60.39), Some(5.32), Some(origin))
    );

    // An admin override (-1) on the later row does not outrank step 0 …
    let override_row = |id: i64, lat: f64| {
        let pool = db.pool.clone();
        async move {
            let mut tx = pool.begin().await.unwrap();
            sqlx::query("UPDATE band_locations SET step_order = -1, lat = $2, lon = 10.0, provider = 'manual' WHERE id = $1")
                .bind(id)
                .bind(lat)
                .execute(&mut *tx)
                .await
                .unwrap();
            bandmap_db::band_locations::primary::sync_primary_point(&mut tx, 7)
                .await
                .unwrap();
            tx.commit().await.unwrap();
        }
    };
    override_row(later, 58.0).await;
    assert_eq!(
        band_point(&db.pool, 7).await,
        (Some(60.39), Some(5.32), Some(origin))
    );
    // … an override of the origin row wins …
    override_row(origin, 59.0).await;
    // … and keeps winning when the worker finishes another step 0 row of the band.
    let third = row(&db.pool, 7, 0, "Stavanger", &[], "Norway", "NO").await;
    assert!(matches!(run_once(&w).await, Outcome::Done { id, .. } if id == third));
    assert_eq!(
        band_point(&db.pool, 7).await,
        (Some(59.0), Some(10.0), Some(origin))
    );

    // mark_done (the LLM worker's path) never overwrites the manual override.
    let r = Resolved {
        lat: 1.0,
        lon: 1.0,
        provider: "llm+geoapify".into(),
        confidence: 0.9,
        granularity: "city".into(),
        query: "x".into(),
    };
    mark_done(&db.pool, origin, &r).await.unwrap();
    assert_eq!(state(&db.pool, origin).await.lat, Some(59.0));
}

#[tokio::test]
async fn mark_done_stores_an_llm_result_and_syncs_the_band() {
    let db = bandmap_test_support::TestDb::new().await;
    let id = row(&db.pool, 3, 0, "Somewhere odd", &[], "Norway", "NO").await;
    sqlx::query("UPDATE band_locations SET geocode_status = 'llm_needed', attempts = 3, error = 'x' WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await
        .unwrap();
    let r = Resolved {
        lat: 63.43,
        lon: 10.39,
        provider: "llm+geoapify".into(),
        confidence: 0.88,
        granularity: "city".into(),
        query: "Trondheim, Norway".into(),
    };
    mark_done(&db.pool, id, &r).await.unwrap();
    let s = state(&db.pool, id).await;
    assert_eq!(s.geocode_status, "done");
    assert_eq!(s.provider.as_deref(), Some("llm+geoapify"));
    assert_eq!(s.confidence, Some(0.88));
    assert_eq!(s.error, None);
    assert_eq!(
        band_point(&db.pool, 3).await,
        (Some(63.43), Some(10.39), Some(id))
    );
    // A vanished row is not an error.
    mark_done(&db.pool, 999_999, &r).await.unwrap();
}

#[tokio::test]
async fn run_processes_the_queue_writes_a_heartbeat_and_stops_on_shutdown() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let id = row(&db.pool, 1, 0, "Sortland", &[], "Norway", "NO").await;
    let stuck = row(&db.pool, 2, 0, "Finnsnes", &[], "Norway", "NO").await;
    sqlx::query("UPDATE band_locations SET geocode_status = 'processing', claimed_at = now() - interval '1 hour' WHERE id = $1")
        .bind(stuck)
        .execute(&db.pool)
        .await
        .unwrap();
    let vars: std::collections::HashMap<String, String> = [
        ("GEOCODER_BASE_URL", geo.base_url()),
        ("GEOCODING_API_KEY", KEY.to_string()),
        ("GEOCODER_OFFLINE", "off".to_string()),
        ("GEOCODER_MIN_DELAY", "0".to_string()),
        ("GEOCODER_MIN_JITTER", "0".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let config = std::sync::Arc::new(bandmap_config::Config::from_map(&vars).unwrap());
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    let task = tokio::spawn(bandmap_geocode::run(db.pool.clone(), config, shutdown));

    // Wait (bounded) for the loop to finish both rows (the stuck one after the start repair).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let left: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM band_locations WHERE geocode_status <> 'done'",
        )
        .fetch_one(&db.pool)
        .await
        .unwrap();
        let beat: Option<serde_json::Value> =
            sqlx::query_scalar("SELECT checks FROM service_health WHERE service = 'geocoder'")
                .fetch_optional(&db.pool)
                .await
                .unwrap();
        if let (0, Some(checks)) = (left, beat) {
            for name in ["database", "provider_key", "provider_reachable", "progress"] {
                assert_eq!(checks[name]["ok"], true, "{name}: {checks}");
            }
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "worker did not finish the queue"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(state(&db.pool, id).await.geocode_status, "done");
    trigger.cancel();
    tokio::time::timeout(Duration::from_secs(30), task)
        .await
        .expect("run stops on shutdown")
        .unwrap()
        .unwrap();
}
