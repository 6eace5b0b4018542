//! Endpoints the admin console gained for issue 17: unlock a field, a band's history,
//! following a job request, the geocoding and LLM charts, gazetteer suggestions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::admin::*;
use bandmap_db::activity_counters::{self, Counter};
use bandmap_db::runs::{JobType, Run, RunStatus};
use bandmap_test_support::{spawn_app, spawn_app_with};
use reqwest::Method;
use serde_json::{Value, json};

async fn lock(pool: &sqlx::PgPool, ma_id: i64, fields: &[&str], pending: Value) {
    sqlx::query("UPDATE bands SET locked_fields = $2, crawler_pending = $3 WHERE ma_id = $1")
        .bind(ma_id)
        .bind(fields)
        .bind(pending)
        .execute(pool)
        .await
        .unwrap();
}

#[tokio::test]
async fn unlock_removes_the_lock_flags_enrichment_and_is_audited() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Darkthrone").await;
    lock(pool, 1, &["genre", "status"], json!({"status": "Split-up"})).await;
    let cookie = app.login().await;

    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/bands/1/unlock",
        Some(json!({"field": "genre"})),
    )
    .await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["locked_fields"], json!(["status"]));
    let (locked, pending, enrich): (Vec<String>, Value, bool) = sqlx::query_as(
        "SELECT locked_fields, crawler_pending, enrich_pending FROM bands WHERE ma_id = 1",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(locked, vec!["status".to_string()]);
    assert_eq!(
        pending,
        json!({"status": "Split-up"}),
        "another field's conflict stays"
    );
    assert!(
        enrich,
        "the band is queued so the source's value comes back"
    );
    let audit = audit_rows(pool, "band.unlock").await;
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].0.as_deref(), Some("band:1"));
    assert_eq!(
        audit[0].1.as_ref().unwrap()["locked_fields"],
        json!(["genre", "status"])
    );
    assert_eq!(
        audit[0].2.as_ref().unwrap()["locked_fields"],
        json!(["status"])
    );
    assert_eq!(log_lines_for(pool, "band.unlock").await, 1);

    // Not locked any more → 409; a field with a pending conflict → 409; nothing written.
    let again = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/bands/1/unlock",
        Some(json!({"field": "genre"})),
    )
    .await;
    assert_error(again, 409, "conflict").await;
    let conflict = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/bands/1/unlock",
        Some(json!({"field": "status"})),
    )
    .await;
    assert_error(conflict, 409, "conflict").await;
    assert_eq!(audit_rows(pool, "band.unlock").await.len(), 1);

    for bad in [
        json!({"field": "lat"}),
        json!({}),
        json!({"field": "genre", "x": 1}),
        json!(["genre"]),
    ] {
        let r = send(
            &app,
            &cookie,
            Method::POST,
            "/admin/api/bands/1/unlock",
            Some(bad.clone()),
        )
        .await;
        assert_error(r, 400, "bad_request").await;
    }
    let unknown = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/bands/99/unlock",
        Some(json!({"field": "genre"})),
    )
    .await;
    assert_error(unknown, 404, "not_found").await;
    assert_needs_session(&app, Method::POST, "/admin/api/bands/1/unlock").await;
}

#[tokio::test]
async fn history_lists_the_bands_and_its_locations_audit_rows_newest_first() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Darkthrone").await;
    band(pool, 2, "Other").await;
    let loc = location(pool, 1, 0, "Kolbotn", "error", None).await;
    let other_loc = location(pool, 2, 0, "Oslo", "error", None).await;
    let cookie = app.login().await;
    let ok = |r: reqwest::Response| async move {
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap())
    };
    ok(send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/bands/1",
        Some(json!({"genre": "Black"})),
    )
    .await)
    .await;
    ok(send(
        &app,
        &cookie,
        Method::PATCH,
        &format!("/admin/api/locations/{loc}"),
        Some(json!({"lat": 59.8, "lon": 10.8})),
    )
    .await)
    .await;
    ok(send(
        &app,
        &cookie,
        Method::PATCH,
        "/admin/api/bands/2",
        Some(json!({"genre": "Doom"})),
    )
    .await)
    .await;
    ok(send(
        &app,
        &cookie,
        Method::POST,
        &format!("/admin/api/locations/{other_loc}/requeue"),
        None,
    )
    .await)
    .await;

    let h = get_ok(&app, &cookie, "/admin/api/bands/1/history").await;
    assert_eq!(h["total"], 2);
    let items = h["items"].as_array().unwrap();
    assert_eq!(items[0]["action"], "location.patch");
    assert_eq!(items[0]["target"], format!("location:{loc}"));
    assert_eq!(items[1]["action"], "band.patch");
    assert_eq!(items[1]["before"], json!({"genre": null}));
    assert_eq!(items[1]["after"], json!({"genre": "Black"}));
    assert_eq!(items[1]["username"], "admin");
    let paged = get_ok(&app, &cookie, "/admin/api/bands/1/history?limit=1&offset=1").await;
    assert_eq!(paged["items"][0]["action"], "band.patch");
    assert_eq!(paged["total"], 2);

    assert_error(
        send(
            &app,
            &cookie,
            Method::GET,
            "/admin/api/bands/99/history",
            None,
        )
        .await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        send(
            &app,
            &cookie,
            Method::GET,
            "/admin/api/bands/1/history?limit=x",
            None,
        )
        .await,
        400,
        "bad_request",
    )
    .await;
    assert_needs_session(&app, Method::GET, "/admin/api/bands/1/history").await;
}

#[tokio::test]
async fn a_job_request_is_followed_to_its_run_and_result() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let cookie = app.login().await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/job-triggers",
        Some(json!({"job_type": "geocoder_enqueue"})),
    )
    .await;
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();

    let waiting = get_ok(&app, &cookie, &format!("/admin/api/job-triggers/{id}")).await;
    assert_eq!(waiting["trigger"]["status"], "pending");
    assert_eq!(waiting["trigger"]["created_by"], "admin");
    assert_eq!(waiting["run"], Value::Null);

    let claimed = bandmap_db::triggers::claim(pool, &[JobType::GeocoderEnqueue])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, id);
    let run = Run::start(pool, JobType::GeocoderEnqueue, Some(id), None)
        .await
        .unwrap();
    let run_id = run.id();
    let running = get_ok(&app, &cookie, &format!("/admin/api/job-triggers/{id}")).await;
    assert_eq!(running["run"]["id"], run_id);
    assert_eq!(running["run"]["status"], "running");
    run.finish(RunStatus::Success, &json!({"inserted": 3}), None)
        .await
        .unwrap();
    let done = get_ok(&app, &cookie, &format!("/admin/api/job-triggers/{id}")).await;
    assert_eq!(done["trigger"]["status"], "done");
    assert_eq!(done["run"]["status"], "success");
    assert!(done["run"]["finished_at"].is_string());

    assert_error(
        send(
            &app,
            &cookie,
            Method::GET,
            "/admin/api/job-triggers/999",
            None,
        )
        .await,
        404,
        "not_found",
    )
    .await;
    assert_error(
        send(
            &app,
            &cookie,
            Method::GET,
            "/admin/api/job-triggers/abc",
            None,
        )
        .await,
        400,
        "bad_request",
    )
    .await;
}

#[tokio::test]
async fn geocoding_chart_counts_outcomes_and_provider_calls_per_bucket() {
    let app = spawn_app_with(
        &[
            ("GEOCODER_PROVIDER", "geoapify"),
            ("GEOCODING_API_KEY", "k"),
            ("GEOCODER_MIN_DELAY", "0.5"),
        ],
        None,
    )
    .await;
    let pool = &app.state.pool;
    band(pool, 1, "Darkthrone").await;
    // Outcomes are counted by the database, whoever writes them; claims are not.
    let a = location(pool, 1, 0, "Kolbotn", "pending", None).await;
    let b = location(pool, 1, 1, "Oslo", "pending", None).await;
    location(pool, 1, 2, "Bergen", "done", Some((60.39, 5.32))).await;
    sqlx::query("UPDATE band_locations SET geocode_status = 'processing' WHERE id IN ($1, $2)")
        .bind(a)
        .bind(b)
        .execute(pool)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'done', lat = 59.8, lon = 10.8 WHERE id = $1",
    )
    .bind(a)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query("UPDATE band_locations SET geocode_status = 'error' WHERE id = $1")
        .bind(b)
        .execute(pool)
        .await
        .unwrap();
    // An update that keeps the status counts nothing.
    sqlx::query("UPDATE band_locations SET attempts = attempts + 1")
        .execute(pool)
        .await
        .unwrap();
    let ok: Result<(), ()> = activity_counters::counted(pool, async { Ok(()) }).await;
    assert!(ok.is_ok());
    let failed: Result<(), &str> = activity_counters::counted(pool, async { Err("503") }).await;
    assert_eq!(failed, Err("503"), "the call's result is passed through");
    let cookie = app.login().await;

    let day = get_ok(&app, &cookie, "/admin/api/charts/geocoding").await;
    assert_eq!(day["range"], "24h");
    assert_eq!(day["bucket"], "hour");
    let points = day["points"].as_array().unwrap();
    assert_eq!(points.len(), 24);
    let now = &points[23];
    assert_eq!(
        now["geocoded"], 2,
        "Bergen inserted done, Kolbotn processed to done"
    );
    assert_eq!(now["errors"], 1);
    assert_eq!(now["provider_calls"], 2);
    assert_eq!(now["provider_errors"], 1);
    assert!(
        points[..23]
            .iter()
            .all(|p| p["geocoded"] == 0 && p["provider_calls"] == 0)
    );
    assert_eq!(day["provider"]["enabled"], true);
    assert_eq!(day["provider"]["limit_per_bucket"], 7200, "3600 s / 0.5 s");

    let month = get_ok(&app, &cookie, "/admin/api/charts/geocoding?range=30d").await;
    assert_eq!(month["bucket"], "day");
    let points = month["points"].as_array().unwrap();
    assert_eq!(points.len(), 30);
    assert_eq!(points[29]["geocoded"], 2);
    assert_eq!(month["provider"]["limit_per_bucket"], 172_800);

    assert_error(
        send(
            &app,
            &cookie,
            Method::GET,
            "/admin/api/charts/geocoding?range=7d",
            None,
        )
        .await,
        400,
        "bad_request",
    )
    .await;
    assert_needs_session(&app, Method::GET, "/admin/api/charts/geocoding").await;
}

#[tokio::test]
async fn llm_chart_has_calls_per_day_and_model_fallback_share_cache_hits_and_month() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    for (model, cost, ago) in [
        ("llama-3.3-70b-versatile", "0.002", "0 days"),
        ("llama-3.3-70b-versatile", "NaN", "0 days"),
        ("llama-3.1-8b-instant", "0.001", "0 days"),
        ("llama-3.3-70b-versatile", "0.004", "3 days"),
        ("llama-3.3-70b-versatile", "0.5", "60 days"),
    ] {
        sqlx::query(
            "INSERT INTO llm_cache (key, model, cost_usd, prompt_tokens, completion_tokens, created_at)
             VALUES (md5(random()::text), $1, $2::numeric, 100, 10, now() - $3::interval)",
        )
        .bind(model)
        .bind(cost)
        .bind(ago)
        .execute(pool)
        .await
        .unwrap();
    }
    activity_counters::bump(pool, Counter::LlmCacheHit).await;
    activity_counters::bump(pool, Counter::LlmCacheHit).await;
    let cookie = app.login().await;

    let c = get_ok(&app, &cookie, "/admin/api/charts/llm").await;
    assert_eq!(c["days"], 30);
    assert_eq!(c["primary_model"], "llama-3.3-70b-versatile");
    assert_eq!(c["fallback_model"], "llama-3.1-8b-instant");
    let items = c["items"].as_array().unwrap();
    assert_eq!(
        items.len(),
        3,
        "two models today, one three days ago; the 60-day-old call is out: {items:?}"
    );
    let today_70b = items
        .iter()
        .find(|i| i["model"] == "llama-3.3-70b-versatile" && i["calls"] == 2)
        .unwrap();
    assert!(
        (today_70b["cost_usd"].as_f64().unwrap() - 0.002).abs() < 1e-9,
        "NaN left out"
    );
    assert_eq!(today_70b["prompt_tokens"], 200);
    assert_eq!(today_70b["completion_tokens"], 20);
    assert!(
        (c["fallback_share"].as_f64().unwrap() - 0.25).abs() < 1e-9,
        "1 of 4 calls"
    );
    assert_eq!(c["cache_hits"][0]["hits"], 2);
    assert_eq!(c["month"]["cache_hits"], 2);
    assert!(
        c["month"]["calls"].as_i64().unwrap() >= 3,
        "today's calls are in this month"
    );

    let one = get_ok(&app, &cookie, "/admin/api/charts/llm?days=1").await;
    assert_eq!(one["items"].as_array().unwrap().len(), 2);
    for bad in ["0", "91", "x"] {
        assert_error(
            send(
                &app,
                &cookie,
                Method::GET,
                &format!("/admin/api/charts/llm?days={bad}"),
                None,
            )
            .await,
            400,
            "bad_request",
        )
        .await;
    }
}

const TINY_GAZETTEER: &str = "\
R\t3\tNO\t1\tNO.46\tVestland\t
R\t4\tNO\t1\tNO.01\tAkershus\tViken
P\t5\tBergen\tBjörgvin\tNO\tNO.46\t3\t60.39299\t5.32415\t294029
P\t16\tBergen\t\tNL\tNL.07\t\t52.66917\t4.70417\t29715
P\t6\tKolbotn\t\tNO\tNO.01\t4\t59.81056\t10.80389\t0
";

#[tokio::test]
async fn gazetteer_candidates_list_the_places_of_the_text_country_first() {
    let path = std::env::temp_dir().join(format!(
        "bandmap-gaz-{}-{}.tsv",
        std::process::id(),
        line!()
    ));
    std::fs::write(&path, TINY_GAZETTEER).unwrap();
    let app = spawn_app_with(&[("GAZETTEER_PATH", path.to_str().unwrap())], None).await;
    let cookie = app.login().await;

    let nl = get_ok(
        &app,
        &cookie,
        "/admin/api/gazetteer/candidates?q=Bergen&country=Netherlands",
    )
    .await;
    assert_eq!(nl["available"], true);
    assert_eq!(nl["name"], "Bergen");
    assert_eq!(nl["country_code"], "NL");
    let ids: Vec<i64> = nl["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["geonameid"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![16, 5]);
    let k = get_ok(
        &app,
        &cookie,
        "/admin/api/gazetteer/candidates?q=Kolbotn%2C%20Viken&country=NO",
    )
    .await;
    assert_eq!(k["name"], "Kolbotn");
    assert_eq!(k["items"][0]["lat"], 59.81056);
    assert_eq!(
        k["items"][0]["in_region"], true,
        "Viken is an alias of Akershus"
    );
    let none = get_ok(&app, &cookie, "/admin/api/gazetteer/candidates?q=Atlantis").await;
    assert_eq!(none["items"], json!([]));
    assert_error(
        send(
            &app,
            &cookie,
            Method::GET,
            "/admin/api/gazetteer/candidates?q=%20",
            None,
        )
        .await,
        400,
        "bad_request",
    )
    .await;
    assert_error(
        send(
            &app,
            &cookie,
            Method::GET,
            "/admin/api/gazetteer/candidates",
            None,
        )
        .await,
        400,
        "bad_request",
    )
    .await;
    std::fs::remove_file(&path).ok();

    let missing = spawn_app_with(&[("GAZETTEER_PATH", "/nonexistent/gazetteer.tsv")], None).await;
    let cookie = missing.login().await;
    let off = get_ok(
        &missing,
        &cookie,
        "/admin/api/gazetteer/candidates?q=Bergen",
    )
    .await;
    assert_eq!(off["available"], false);
    assert_eq!(off["items"], json!([]));
}
