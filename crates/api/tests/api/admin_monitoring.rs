//! `/admin/api/{activity,logs,live,health,stats,queue,crawl-checkpoints}`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::admin::*;
use bandmap_db::runs::{self, JobType, Level, Run, RunStatus};
use bandmap_test_support::spawn_app;
use reqwest::Method;
use serde_json::{Value, json};

#[tokio::test]
async fn activity_merges_runs_and_admin_actions_newest_first() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let old_run = Run::start(pool, JobType::Incremental, None, None)
        .await
        .unwrap()
        .id();
    sqlx::query("UPDATE crawl_run SET started_at = now() - interval '2 hours' WHERE id = $1")
        .bind(old_run)
        .execute(pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO admin_audit_log (at, username, action, target, before, after)
         VALUES (now() - interval '1 hour', 'admin', 'band.patch', 'band:1', '{\"name\":\"a\"}', '{\"name\":\"b\"}')",
    )
    .execute(pool)
    .await
    .unwrap();
    let new_run = Run::start(pool, JobType::GeocoderEnqueue, None, None)
        .await
        .unwrap()
        .id();
    let cookie = app.login().await;

    let all = get_ok(&app, &cookie, "/admin/api/activity").await;
    assert_eq!(all["total"], 3);
    let items = all["items"].as_array().unwrap();
    assert_eq!(items[0]["kind"], "run");
    assert_eq!(items[0]["id"], new_run);
    assert_eq!(items[0]["type"], "geocoder_enqueue");
    assert_eq!(items[0]["status"], "running");
    for key in ["started_at", "finished_at", "stats", "error"] {
        assert!(items[0].get(key).is_some(), "run {key}");
    }
    assert_eq!(items[1]["kind"], "admin");
    assert_eq!(items[1]["action"], "band.patch");
    assert_eq!(items[1]["before"], json!({"name": "a"}));
    assert_eq!(items[1]["after"], json!({"name": "b"}));
    for key in ["id", "at", "username", "target"] {
        assert!(items[1].get(key).is_some(), "admin {key}");
    }
    assert_eq!(items[2]["id"], old_run);

    let runs_only = get_ok(&app, &cookie, "/admin/api/activity?kind=run").await;
    assert_eq!(runs_only["total"], 2);
    assert!(
        runs_only["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["kind"] == "run")
    );
    let admin_only = get_ok(&app, &cookie, "/admin/api/activity?kind=admin&limit=1").await;
    assert_eq!(admin_only["total"], 1);
    assert_eq!(admin_only["limit"], 1);
    let page2 = get_ok(&app, &cookie, "/admin/api/activity?limit=1&offset=1").await;
    assert_eq!(page2["items"][0]["kind"], "admin");
    let far = get_ok(
        &app,
        &cookie,
        &format!("/admin/api/activity?offset={}", i64::MAX),
    )
    .await;
    assert_eq!(far["items"], json!([]));

    for bad in ["kind=runs", "limit=x"] {
        let r = send(
            &app,
            &cookie,
            Method::GET,
            &format!("/admin/api/activity?{bad}"),
            None,
        )
        .await;
        assert_error(r, 400, "bad_request").await;
    }
    assert_needs_session(&app, Method::GET, "/admin/api/activity").await;
}

#[tokio::test]
async fn logs_filter_and_stream_with_min_id() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let run = Run::start(pool, JobType::Enrich, None, None)
        .await
        .unwrap()
        .id();
    let a = runs::log(pool, Some(run), Level::Info, "one")
        .await
        .unwrap();
    let b = runs::log(pool, Some(run), Level::Warn, "two")
        .await
        .unwrap();
    let c = runs::log(pool, None, Level::Info, "admin line")
        .await
        .unwrap();
    let d = runs::log(pool, Some(run), Level::Error, "three")
        .await
        .unwrap();
    let cookie = app.login().await;
    let ids = |v: &Value| {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_i64().unwrap())
            .collect::<Vec<_>>()
    };

    let newest = get_ok(&app, &cookie, "/admin/api/logs").await;
    assert_eq!(ids(&newest), [d, c, b, a]);
    assert_eq!(newest["total"], 4);
    let line = &newest["items"][0];
    assert_eq!(
        line,
        &json!({"id": d, "run_id": run, "at": line["at"], "level": "error", "message": "three"})
    );
    assert_eq!(
        ids(&get_ok(&app, &cookie, &format!("/admin/api/logs?run_id={run}")).await),
        [d, b, a]
    );
    let streamed = get_ok(&app, &cookie, &format!("/admin/api/logs?min_id={a}")).await;
    assert_eq!(ids(&streamed), [b, c, d], "ascending after min_id");
    assert_eq!(
        ids(&get_ok(
            &app,
            &cookie,
            &format!("/admin/api/logs?min_id={a}&run_id={run}&limit=1")
        )
        .await),
        [b]
    );
    assert_eq!(
        ids(&get_ok(&app, &cookie, "/admin/api/logs?level=warn").await),
        [b]
    );
    for bad in ["level=fatal", "run_id=x", "min_id=1.5", "limit=-1"] {
        let r = send(
            &app,
            &cookie,
            Method::GET,
            &format!("/admin/api/logs?{bad}"),
            None,
        )
        .await;
        assert_error(r, 400, "bad_request").await;
    }
    assert_needs_session(&app, Method::GET, "/admin/api/logs").await;
}

#[tokio::test]
async fn health_stale_is_computed_in_sql() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    sqlx::query(
        "INSERT INTO service_health (service, state, checks, last_write_at) VALUES
            ('crawler', 'ok', '{\"database\": true}', now() - interval '2 hours 1 minute'),
            ('geocoder', 'degraded', '{\"provider_key\": false}', now() - interval '5 minutes')",
    )
    .execute(pool)
    .await
    .unwrap();
    let cookie = app.login().await;
    let page = get_ok(&app, &cookie, "/admin/api/health").await;
    // CONTRACT §4 list shape (issue 19 point 10).
    assert_eq!(
        (&page["total"], &page["limit"], &page["offset"]),
        (&json!(2), &json!(50), &json!(0))
    );
    let rows = page["items"].as_array().expect("items");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["service"], "crawler");
    assert_eq!(rows[0]["state"], "ok");
    assert_eq!(
        rows[0]["stale"], true,
        "silent for more than 2 h even though ok"
    );
    assert_eq!(rows[0]["checks"], json!({"database": true}));
    assert!(rows[0]["last_write_at"].is_string());
    assert_eq!(rows[1]["stale"], false);
    let second = get_ok(&app, &cookie, "/admin/api/health?limit=1&offset=1").await;
    assert_eq!(second["total"], 2);
    assert_eq!(second["items"][0]["service"], "geocoder");
    assert_needs_session(&app, Method::GET, "/admin/api/health").await;
}

#[tokio::test]
async fn live_aggregates_runs_geocoder_jobs_queue_and_services() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    band(pool, 1, "Satyricon").await;
    location(pool, 1, 0, "Oslo", "done", Some((59.9, 10.7))).await;
    location(pool, 1, 1, "Bergen", "pending", None).await;
    let running = Run::start(pool, JobType::FullCrawl, None, None)
        .await
        .unwrap()
        .id();
    let finished = Run::start(pool, JobType::Enrich, None, None).await.unwrap();
    finished
        .finish(RunStatus::Success, &json!({}), None)
        .await
        .unwrap();
    let job = bandmap_db::triggers::create(pool, JobType::Enrich, Some("admin"))
        .await
        .unwrap();
    sqlx::query("INSERT INTO service_health (service, state) VALUES ('llm', 'ok')")
        .execute(pool)
        .await
        .unwrap();
    let cookie = app.login().await;
    let live = get_ok(&app, &cookie, "/admin/api/live").await;
    assert_eq!(live["runs"].as_array().unwrap().len(), 1);
    assert_eq!(live["runs"][0]["id"], running);
    assert_eq!(live["runs"][0]["cancel_requested"], false);
    assert_eq!(live["geocoder"]["done"], 1);
    assert_eq!(live["geocoder"]["pending"], 1);
    assert_eq!(live["geocoder"]["error"], 0);
    assert_eq!(live["geocoder"]["processed_last_hour"], 1);
    assert_eq!(live["pending_jobs"][0]["id"], job);
    assert_eq!(live["pending_jobs"][0]["job_type"], "enrich");
    assert_eq!(live["enrich_queue"], 1, "the never-enriched band");
    assert_eq!(live["services"][0]["service"], "llm");
    assert_eq!(live["services"][0]["stale"], false);
    assert_needs_session(&app, Method::GET, "/admin/api/live").await;
}

#[tokio::test]
async fn stats_count_genre_keywords_without_limit() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let bands = [
        (1, "Black/Death Metal", "Norway", Some("Active")),
        (2, "Black Metal", "Norway", Some("Split-up")),
        (
            3,
            "Death Metal (early); Heavy Metal, Hard Rock (later)",
            "Sweden",
            Some("Active"),
        ),
        (4, "Metal", "Finland", None),
        (5, "death metal", "Finland", Some("Active")),
    ];
    for (id, genre, country, status) in bands {
        sqlx::query("INSERT INTO bands (ma_id, name, genre, country, status, enriched) VALUES ($1, $2, $3, $4, $5, $6)")
            .bind(id)
            .bind(format!("Band {id}"))
            .bind(genre)
            .bind(country)
            .bind(status)
            .bind(id == 1)
            .execute(pool)
            .await
            .unwrap();
    }
    sqlx::query("UPDATE bands SET lat = 1, lon = 2 WHERE ma_id = 2")
        .execute(pool)
        .await
        .unwrap();
    let cookie = app.login().await;
    let s = get_ok(&app, &cookie, "/admin/api/stats").await;
    assert_eq!(
        (
            s["bands_total"].as_i64(),
            s["enriched"].as_i64(),
            s["geocoded"].as_i64()
        ),
        (Some(5), Some(1), Some(1))
    );
    let map = |k: &str| -> Vec<(String, i64)> {
        s[k].as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["key"].as_str().unwrap().to_string(),
                    b["count"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    let genres = map("by_genre_keyword");
    let count = |name: &str| {
        genres
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, c)| *c)
    };
    assert_eq!(count("Death"), Some(3), "{genres:?}");
    assert_eq!(count("Black"), Some(2));
    assert_eq!(count("Heavy"), Some(1));
    assert_eq!(count("Hard Rock"), Some(1));
    assert_eq!(count("Metal"), Some(1));
    assert_eq!(count("Black/Death"), None);
    assert_eq!(genres.len(), 5);
    assert_eq!(map("by_country")[0], ("Finland".into(), 2));
    assert_eq!(map("by_country").len(), 3);
    assert!(map("by_status").contains(&("(none)".into(), 1)));
    assert_eq!(map("by_status")[0], ("Active".into(), 3));
    assert_needs_session(&app, Method::GET, "/admin/api/stats").await;
}

#[tokio::test]
async fn queue_breaks_down_priorities() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    // 1: flagged; 2: changed 5 min after crawl; 3: changed 30 s after crawl (inside the
    // margin: not queued); 4: never enriched; 5: enriched and quiet.
    sqlx::query(
        "INSERT INTO bands (ma_id, name, enriched, enrich_pending, crawled_at) VALUES
            (1, 'Flagged', true, true, now()),
            (2, 'Changed', true, false, now() - interval '5 minutes'),
            (3, 'Margin', true, false, now() - interval '30 seconds'),
            (4, 'Fresh', false, false, NULL),
            (5, 'Quiet', true, false, now() + interval '1 minute')",
    )
    .execute(pool)
    .await
    .unwrap();
    let cookie = app.login().await;
    let q = get_ok(&app, &cookie, "/admin/api/queue").await;
    assert_eq!(q["total"], 3);
    assert_eq!(
        q["by_priority"],
        json!({"enrich_pending": 1, "updated_since_crawl": 1, "never_enriched": 1})
    );
    assert_eq!(
        q["next"],
        json!([
            {"ma_id": 1, "name": "Flagged", "priority": "enrich_pending"},
            {"ma_id": 2, "name": "Changed", "priority": "updated_since_crawl"},
            {"ma_id": 4, "name": "Fresh", "priority": "never_enriched"},
        ])
    );
    assert_needs_session(&app, Method::GET, "/admin/api/queue").await;
}

#[tokio::test]
async fn checkpoints_are_listed() {
    let app = spawn_app().await;
    bandmap_db::checkpoints::set(
        &app.state.pool,
        "last_full_crawl_at",
        "2026-01-01T00:00:00Z",
    )
    .await
    .unwrap();
    let cookie = app.login().await;
    let c = get_ok(&app, &cookie, "/admin/api/crawl-checkpoints").await;
    assert_eq!(c["items"][0]["key"], "last_full_crawl_at");
    assert_eq!(c["items"][0]["value"], "2026-01-01T00:00:00Z");
    assert!(c["items"][0]["updated_at"].is_string());
    assert_eq!(
        (&c["total"], &c["limit"], &c["offset"]),
        (&json!(1), &json!(50), &json!(0))
    );
    assert_needs_session(&app, Method::GET, "/admin/api/crawl-checkpoints").await;
}
