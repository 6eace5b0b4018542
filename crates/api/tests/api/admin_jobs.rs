//! `/admin/api/job-triggers*` and `/admin/api/crawl-runs/*`: creation, listing,
//! cancellation (404/409), the cooperative run cancel, cleanup of stuck runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::admin::*;
use bandmap_db::runs::{self, JobType, Run, RunStatus};
use bandmap_test_support::spawn_app;
use reqwest::Method;
use serde_json::{Value, json};

#[tokio::test]
async fn job_triggers_create_list_and_validate() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let cookie = app.login().await;
    let mut ids = Vec::new();
    for t in ["enrich", "incremental", "full_crawl", "geocoder_enqueue"] {
        let r = send(
            &app,
            &cookie,
            Method::POST,
            "/admin/api/job-triggers",
            Some(json!({"job_type": t})),
        )
        .await;
        assert_eq!(r.status(), 201, "{t}");
        let body: Value = r.json().await.unwrap();
        ids.push(body["id"].as_i64().unwrap());
    }
    let (job_type, status, by): (String, String, Option<String>) =
        sqlx::query_as("SELECT job_type, status, created_by FROM job_triggers WHERE id = $1")
            .bind(ids[3])
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        (job_type.as_str(), status.as_str(), by.as_deref()),
        ("geocoder_enqueue", "pending", Some("admin"))
    );
    let audit = audit_rows(pool, "job_trigger.create").await;
    assert_eq!(audit.len(), 4);
    assert_eq!(
        audit[0].0.as_deref(),
        Some(format!("job_trigger:{}", ids[0]).as_str())
    );

    for body in [
        json!({"job_type": "reboot"}),
        json!({"job_type": ""}),
        json!({}),
        json!({"job_type": 3}),
        json!({"job_type": "enrich", "x": 1}),
    ] {
        let r = send(
            &app,
            &cookie,
            Method::POST,
            "/admin/api/job-triggers",
            Some(body),
        )
        .await;
        assert_error(r, 400, "bad_request").await;
    }
    assert_eq!(
        audit_rows(pool, "job_trigger.create").await.len(),
        4,
        "nothing written on 400"
    );

    sqlx::query("UPDATE job_triggers SET status = 'done' WHERE id = $1")
        .bind(ids[0])
        .execute(pool)
        .await
        .unwrap();
    let list = get_ok(&app, &cookie, "/admin/api/job-triggers").await;
    assert_eq!(list["total"], 4);
    assert_eq!(list["items"][0]["id"], ids[3], "newest first");
    for key in [
        "id",
        "job_type",
        "status",
        "created_at",
        "created_by",
        "claimed_at",
        "finished_at",
        "run_id",
        "error",
    ] {
        assert!(list["items"][0].get(key).is_some(), "{key}");
    }
    let pending = get_ok(&app, &cookie, "/admin/api/job-triggers?status=pending").await;
    assert_eq!(pending["total"], 3);
    let r = send(
        &app,
        &cookie,
        Method::GET,
        "/admin/api/job-triggers?status=finished",
        None,
    )
    .await;
    assert_error(r, 400, "bad_request").await;
    assert_needs_session(&app, Method::GET, "/admin/api/job-triggers").await;
    assert_needs_session(&app, Method::POST, "/admin/api/job-triggers").await;
}

#[tokio::test]
async fn cancelling_a_trigger() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let pending = bandmap_db::triggers::create(pool, JobType::Enrich, None)
        .await
        .unwrap();
    let claimed = bandmap_db::triggers::create(pool, JobType::Incremental, None)
        .await
        .unwrap();
    sqlx::query("UPDATE job_triggers SET status = 'claimed' WHERE id = $1")
        .bind(claimed)
        .execute(pool)
        .await
        .unwrap();
    let cookie = app.login().await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        &format!("/admin/api/job-triggers/{pending}/cancel"),
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"id": pending, "status": "cancelled"})
    );
    let status: String = sqlx::query_scalar("SELECT status FROM job_triggers WHERE id = $1")
        .bind(pending)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(status, "cancelled");
    assert_eq!(audit_rows(pool, "job_trigger.cancel").await.len(), 1);

    let r = send(
        &app,
        &cookie,
        Method::POST,
        &format!("/admin/api/job-triggers/{pending}/cancel"),
        None,
    )
    .await;
    assert_error(r, 409, "conflict").await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        &format!("/admin/api/job-triggers/{claimed}/cancel"),
        None,
    )
    .await;
    assert_error(r, 409, "conflict").await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/job-triggers/999999/cancel",
        None,
    )
    .await;
    assert_error(r, 404, "not_found").await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/job-triggers/x/cancel",
        None,
    )
    .await;
    assert_error(r, 400, "bad_request").await;
    assert_eq!(audit_rows(pool, "job_trigger.cancel").await.len(), 1);
    assert_needs_session(
        &app,
        Method::POST,
        &format!("/admin/api/job-triggers/{claimed}/cancel"),
    )
    .await;
}

#[tokio::test]
async fn cancelling_a_run_only_raises_the_flag() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let run = Run::start(pool, JobType::FullCrawl, None, None)
        .await
        .unwrap()
        .id();
    let done_run = Run::start(pool, JobType::Enrich, None, None).await.unwrap();
    let done = done_run.id();
    done_run
        .finish(RunStatus::Success, &json!({}), None)
        .await
        .unwrap();
    let cookie = app.login().await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        &format!("/admin/api/crawl-runs/{run}/cancel"),
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"id": run, "status": "running", "cancel_requested": true})
    );
    let (status, flag, finished): (String, bool, Option<chrono::DateTime<chrono::Utc>>) =
        sqlx::query_as("SELECT status, cancel_requested, finished_at FROM crawl_run WHERE id = $1")
            .bind(run)
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(
        (status.as_str(), flag, finished),
        ("running", true, None),
        "the API never writes the final status"
    );
    assert!(runs::cancel_requested(pool, run).await.unwrap());
    let audit = audit_rows(pool, "crawl_run.cancel").await;
    assert_eq!(audit.len(), 1);
    assert_eq!(
        (audit[0].1.as_ref().unwrap(), audit[0].2.as_ref().unwrap()),
        (
            &json!({"status": "running", "cancel_requested": false}),
            &json!({"status": "running", "cancel_requested": true})
        ),
        "before/after diff of the flag"
    );

    let r = send(
        &app,
        &cookie,
        Method::POST,
        &format!("/admin/api/crawl-runs/{done}/cancel"),
        None,
    )
    .await;
    assert_error(r, 409, "conflict").await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/crawl-runs/777777/cancel",
        None,
    )
    .await;
    assert_error(r, 404, "not_found").await;
    assert_needs_session(
        &app,
        Method::POST,
        &format!("/admin/api/crawl-runs/{run}/cancel"),
    )
    .await;
}

#[tokio::test]
async fn cleanup_closes_only_runs_older_than_30_minutes() {
    let app = spawn_app().await;
    let pool = &app.state.pool;
    let stuck = Run::start(pool, JobType::Incremental, None, None)
        .await
        .unwrap()
        .id();
    let recent = Run::start(pool, JobType::Enrich, None, None)
        .await
        .unwrap()
        .id();
    // Stuck = silent for 30 minutes with no live owner (issue 19 point 1), not just old.
    sqlx::query(
        "UPDATE crawl_run SET started_at = now() - interval '31 minutes',
             updated_at = now() - interval '31 minutes' WHERE id = $1",
    )
    .bind(stuck)
    .execute(pool)
    .await
    .unwrap();
    let cookie = app.login().await;
    let r = send(
        &app,
        &cookie,
        Method::POST,
        "/admin/api/crawl-runs/cleanup",
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"closed": 1}));
    assert!(!runs::still_running(pool, stuck).await.unwrap());
    assert!(runs::still_running(pool, recent).await.unwrap());
    let status: String = sqlx::query_scalar("SELECT status FROM crawl_run WHERE id = $1")
        .bind(stuck)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(status, "interrupted");
    let audit = audit_rows(pool, "crawl_runs.cleanup").await;
    assert_eq!(audit[0].2.as_ref().unwrap()["closed"], 1);
    assert_needs_session(&app, Method::POST, "/admin/api/crawl-runs/cleanup").await;
}

#[tokio::test]
async fn the_openapi_document_lists_the_job_types_and_their_services() {
    let app = spawn_app().await;
    let doc = app.openapi().await;
    let job_type = &doc["components"]["schemas"]["NewTrigger"]["properties"]["job_type"];
    assert_eq!(job_type["enum"], json!(JobType::names()), "{job_type}");
    for t in JobType::ALL {
        assert_eq!(
            job_type["x-job-services"][t.as_str()],
            t.service().as_str(),
            "{job_type}"
        );
    }
    let trigger = &doc["components"]["schemas"]["TriggerItem"]["properties"]["status"];
    assert_eq!(
        trigger["enum"],
        json!(bandmap_db::runs::TriggerStatus::names())
    );
}
