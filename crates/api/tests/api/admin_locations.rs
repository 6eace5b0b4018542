//! `/admin/api/locations*`: list filters, manual coordinates (rule 19), re-queue, and the
//! exact statuses each bulk action moves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::admin::*;
use bandmap_test_support::{TestApp, spawn_app};
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const STATES: [&str; 7] = [
    "pending",
    "processing",
    "done",
    "country_only",
    "llm_needed",
    "manual",
    "error",
];

async fn statuses(app: &TestApp) -> BTreeMap<i64, (String, Option<f64>, i32)> {
    let rows: Vec<(i64, String, Option<f64>, i32)> =
        sqlx::query_as("SELECT id, geocode_status, lat, attempts FROM band_locations")
            .fetch_all(&app.state.pool)
            .await
            .unwrap();
    rows.into_iter()
        .map(|(id, s, lat, a)| (id, (s, lat, a)))
        .collect()
}

/// One band with one row in each of the 7 states; returns state → row id.
async fn seed_every_state(app: &TestApp) -> BTreeMap<&'static str, i64> {
    band(&app.state.pool, 10, "Seven").await;
    let mut ids = BTreeMap::new();
    for (i, s) in STATES.iter().enumerate() {
        let point = matches!(*s, "done" | "country_only").then_some((60.0 + i as f64, 10.0));
        ids.insert(
            *s,
            location(
                &app.state.pool,
                10,
                i as i32,
                &format!("Town {i}"),
                s,
                point,
            )
            .await,
        );
    }
    ids
}

async fn primary_point(app: &TestApp, ma_id: i64) -> (Option<f64>, Option<f64>, Option<i64>) {
    sqlx::query_as("SELECT lat, lon, geocode_location_id FROM bands WHERE ma_id = $1")
        .bind(ma_id)
        .fetch_one(&app.state.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn list_filters_and_shape() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Darkthrone").await;
    band(pool, 2, "Mayhem").await;
    let a = location(pool, 1, 0, "Kolbotn", "done", Some((59.8, 10.8))).await;
    location(pool, 1, 1, "100%_Oslo", "error", None).await;
    location(pool, 2, 0, "Langhus", "pending", None).await;
    sqlx::query(
        "UPDATE band_locations SET country = 'Sweden', country_code = 'SE' WHERE ma_id = 2",
    )
    .execute(pool)
    .await
    .unwrap();
    let cookie = app.login().await;

    let all = get_ok(&app, &cookie, "/admin/api/locations").await;
    assert_eq!(all["total"], 3);
    assert_eq!(all["limit"], 50);
    assert_eq!(all["offset"], 0);
    let first = &all["items"][0];
    assert_eq!(first["id"], a);
    for key in [
        "id",
        "ma_id",
        "band_name",
        "step_order",
        "step_label",
        "location_raw",
        "country",
        "status",
        "attempts",
        "error",
        "provider",
        "confidence",
        "granularity",
        "lat",
        "lon",
        "query",
        "updated_at",
    ] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    assert_eq!(first["band_name"], "Darkthrone");
    assert_eq!(first["status"], "done");

    let count = |v: Value| v["total"].as_i64().unwrap();
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?status=error").await),
        1
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?status=").await),
        3,
        "empty = no filter"
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?place=oslo").await),
        1
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?place=0%25_").await),
        1,
        "wildcards literal"
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?place=%25").await),
        1
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?place=_").await),
        1
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?band=throne").await),
        2
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?band=2").await),
        1,
        "exact ma_id"
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?country=sweden").await),
        1
    );
    assert_eq!(
        count(get_ok(&app, &cookie, "/admin/api/locations?country=no").await),
        2,
        "ISO code"
    );
    let page = get_ok(&app, &cookie, "/admin/api/locations?limit=1&offset=1").await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(page["total"], 3);
    // Status is case-insensitive equality (CONTRACT §11).
    assert_eq!(
        get_ok(&app, &cookie, "/admin/api/locations?status=DONE").await,
        get_ok(&app, &cookie, "/admin/api/locations?status=done").await
    );

    for bad in [
        "status=queued",
        "status=don",
        "limit=abc",
        "offset=-1",
        &format!("country={}", "x".repeat(101)),
    ] {
        let r = send(
            &app,
            &cookie,
            Method::GET,
            &format!("/admin/api/locations?{bad}"),
            None,
        )
        .await;
        assert_error(r, 400, "bad_request").await;
    }
    assert_needs_session(&app, Method::GET, "/admin/api/locations").await;
}

#[tokio::test]
async fn manual_coordinates_win_the_primary_point_in_one_audited_write() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 7, "Emperor").await;
    let origin = location(pool, 7, 0, "Notodden", "done", Some((59.5, 9.2))).await;
    let later = location(pool, 7, 1, "Somewhere", "llm_needed", None).await;
    sqlx::query("UPDATE band_locations SET error = 'llm failed' WHERE id = $1")
        .bind(later)
        .execute(pool)
        .await
        .unwrap();
    // The band's point starts as the origin step's.
    let mut tx = pool.begin().await.unwrap();
    bandmap_db::band_locations::primary::sync_primary_point(&mut tx, 7)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(
        primary_point(&app, 7).await,
        (Some(59.5), Some(9.2), Some(origin))
    );
    let cookie = app.login().await;

    let r = send(
        &app,
        &cookie,
        Method::PATCH,
        &format!("/admin/api/locations/{later}"),
        Some(json!({"lat": 61.25, "lon": -7.5})),
    )
    .await;
    assert_eq!(r.status(), 200);
    let row: Value = r.json().await.unwrap();
    assert_eq!(row["status"], "done");
    assert_eq!(row["step_order"], -1);
    assert_eq!(row["provider"], "manual");
    assert_eq!(row["confidence"], 1.0);
    assert_eq!(row["error"], Value::Null);
    assert_eq!(
        (row["lat"].as_f64(), row["lon"].as_f64()),
        (Some(61.25), Some(-7.5))
    );
    // Rule 19 (issue 19 point 3): a manual fix of a later step never outranks step 0.
    assert_eq!(
        primary_point(&app, 7).await,
        (Some(59.5), Some(9.2), Some(origin))
    );

    let audit = audit_rows(pool, "location.patch").await;
    assert_eq!(audit.len(), 1);
    let (target, before, after, user) = &audit[0];
    assert_eq!(
        target.as_deref(),
        Some(format!("location:{later}").as_str())
    );
    assert_eq!(before.as_ref().unwrap()["status"], "llm_needed");
    assert_eq!(after.as_ref().unwrap()["status"], "done");
    assert_eq!(user, "admin");
    assert_eq!(log_lines_for(pool, "location.patch").await, 1);

    // Bounds, types, shape: 400 with our JSON body, nothing written.
    for body in [
        json!({"lat": 90.5, "lon": 0}),
        json!({"lat": -91, "lon": 0}),
        json!({"lat": 0, "lon": 180.01}),
        json!({"lat": 0, "lon": -181}),
        json!({"lat": "1", "lon": 0}),
        json!({"lat": null, "lon": 0}),
        json!({"lat": 1}),
        json!({"lat": 1, "lon": 2, "extra": 3}),
        json!([1, 2]),
    ] {
        let r = send(
            &app,
            &cookie,
            Method::PATCH,
            &format!("/admin/api/locations/{origin}"),
            Some(body.clone()),
        )
        .await;
        assert_error(r, 400, "bad_request").await;
    }
    let r = app
        .admin(
            Method::PATCH,
            &format!("/admin/api/locations/{origin}"),
            &cookie,
        )
        .header("content-type", "application/json")
        .body(r#"{"lat": 1e400, "lon": 0}"#)
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "bad_request").await;
    let r = app
        .admin(
            Method::PATCH,
            &format!("/admin/api/locations/{origin}"),
            &cookie,
        )
        .header("content-type", "text/plain")
        .body(r#"{"lat": 1, "lon": 0}"#)
        .send()
        .await
        .unwrap();
    assert_error(r, 400, "bad_request").await;
    assert_eq!(audit_rows(pool, "location.patch").await.len(), 1);

    let r = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/locations/999999",
        Some(json!({"lat": 1, "lon": 2})),
    )
    .await;
    assert_error(r, 404, "not_found").await;
    let r = send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/locations/abc",
        Some(json!({"lat": 1, "lon": 2})),
    )
    .await;
    assert_error(r, 400, "bad_request").await;
    assert_needs_session(
        &app,
        Method::PATCH,
        &format!("/admin/api/locations/{origin}"),
    )
    .await;
}

#[tokio::test]
async fn requeue_one_row() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 3, "Ulver").await;
    let id = location(pool, 3, 0, "Oslo", "error", None).await;
    sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now() + interval '1 day' WHERE id = $1",
    )
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
    let cookie = app.login().await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        &format!("/admin/api/locations/{id}/requeue"),
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    let row: Value = r.json().await.unwrap();
    assert_eq!(row["status"], "pending");
    assert_eq!(row["attempts"], 0);
    assert_eq!(row["error"], Value::Null);
    let due: bool =
        sqlx::query_scalar("SELECT next_attempt_at <= now() FROM band_locations WHERE id = $1")
            .bind(id)
            .fetch_one(pool)
            .await
            .unwrap();
    assert!(due);
    let audit = audit_rows(pool, "location.requeue").await;
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].1.as_ref().unwrap()["status"], "error");

    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/locations/424242/requeue",
        None,
    )
    .await;
    assert_error(r, 404, "not_found").await;
    assert_needs_session(
        &app,
        Method::POST,
        &format!("/admin/api/locations/{id}/requeue"),
    )
    .await;
}

/// Runs one bulk action on the 7-state fixture; returns the states that moved.
async fn moved_by(path: &str) -> (Vec<&'static str>, TestApp, BTreeMap<&'static str, i64>) {
    let app = spawn_app().await;
    let ids = seed_every_state(&app).await;
    let before = statuses(&app).await;
    let cookie = app.login().await;
    let r = send(&app, &cookie, Method::POST, path, None).await;
    assert_eq!(r.status(), 200, "{path}");
    let body: Value = r.json().await.unwrap();
    let after = statuses(&app).await;
    let mut moved = Vec::new();
    for (state, id) in &ids {
        if before[id] != after[id] {
            assert_eq!(after[id].0, "pending", "{state} moved to pending");
            assert_eq!(after[id].2, 0, "attempts reset");
            moved.push(*state);
        }
    }
    // A row already pending is "moved" too when the action covers it (attempts reset).
    assert!(body["affected"].as_u64().unwrap() as usize >= moved.len());
    assert_needs_session(&app, Method::POST, path).await;
    (moved, app, ids)
}

#[tokio::test]
async fn reset_errors_moves_error_and_processing_only() {
    let (mut moved, app, _) = moved_by("/admin/api/locations/reset-errors").await;
    moved.sort_unstable();
    assert_eq!(moved, ["error", "processing"]);
    let audit = audit_rows(&app.state.pool, "locations.reset_errors").await;
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].2.as_ref().unwrap()["affected"], 2);
    assert_eq!(
        audit[0].1.as_ref().unwrap()["by_status"],
        json!({"error": 1, "processing": 1}),
        "before: how many rows each status held"
    );
    assert_eq!(
        log_lines_for(&app.state.pool, "locations.reset_errors").await,
        1
    );
}

#[tokio::test]
async fn reset_llm_moves_llm_needed_and_manual_only() {
    let (mut moved, app, _) = moved_by("/admin/api/locations/reset-llm").await;
    moved.sort_unstable();
    assert_eq!(moved, ["llm_needed", "manual"]);
    assert_eq!(
        audit_rows(&app.state.pool, "locations.reset_llm")
            .await
            .len(),
        1
    );
}

#[tokio::test]
async fn requeue_all_moves_everything_and_keeps_coordinates() {
    let (moved, app, ids) = moved_by("/admin/api/locations/requeue-all").await;
    // Every row is re-queued; the pending one changes too (its attempts return to 0).
    assert_eq!(moved.len(), 7, "{moved:?}");
    let lat: Option<f64> = sqlx::query_scalar("SELECT lat FROM band_locations WHERE id = $1")
        .bind(ids["done"])
        .fetch_one(&app.state.pool)
        .await
        .unwrap();
    assert!(lat.is_some(), "coordinates kept");
    let audit = audit_rows(&app.state.pool, "locations.requeue_all").await;
    assert_eq!(audit[0].2.as_ref().unwrap()["affected"], 7);
}

#[tokio::test]
async fn reset_all_clears_coordinates_and_the_primary_point() {
    let app = spawn_app().await;
    let ids = seed_every_state(&app).await;
    // Only an origin-step row gives the band its point (rule 19): make the done row one.
    sqlx::query("UPDATE band_locations SET parsed_step = 0, step_order = 0 WHERE id = $1")
        .bind(ids["done"])
        .execute(&app.state.pool)
        .await
        .unwrap();
    let mut tx = app.state.pool.begin().await.unwrap();
    bandmap_db::band_locations::primary::sync_primary_point(&mut tx, 10)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(primary_point(&app, 10).await.2, Some(ids["done"]));
    let cookie = app.login().await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/locations/reset-all",
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"affected": 7}));
    let left: (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE geocode_status <> 'pending'),
                count(*) FILTER (WHERE lat IS NOT NULL OR provider IS NOT NULL OR confidence IS NOT NULL)
         FROM band_locations",
    )
    .fetch_one(&app.state.pool)
    .await
    .unwrap();
    assert_eq!(left, (0, 0));
    assert_eq!(primary_point(&app, 10).await, (None, None, None));
    assert_eq!(
        audit_rows(&app.state.pool, "locations.reset_all")
            .await
            .len(),
        1
    );
}

#[tokio::test]
async fn removed_endpoints_are_404() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    for path in [
        "/admin/api/audit-log",
        "/admin/api/conflicts",
        "/admin/api/crawl-runs",
    ] {
        let r = send(&app, &cookie, Method::GET, path, None).await;
        assert_error(r, 404, "not_found").await;
    }
    for path in [
        "/admin/api/geocoding/reset-errors",
        "/admin/api/geocoding/requeue-all",
    ] {
        let r = send(&app, &cookie, Method::GET, path, None).await;
        assert_error(r, 404, "not_found").await;
    }
}

#[tokio::test]
async fn removed_write_endpoints_are_404() {
    let app = spawn_app().await;
    let cookie = app.login().await;
    for path in [
        "/admin/api/geocoding/reset-errors",
        "/admin/api/geocoding/requeue-all",
    ] {
        let r = send(&app, &cookie, Method::POST, path, None).await;
        assert_error(r, 404, "not_found").await;
    }
}
