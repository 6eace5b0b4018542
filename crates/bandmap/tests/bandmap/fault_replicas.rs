//! Replicas and faulty outside services, with the real binary on a private PostgreSQL
//! (docs/reliability.md, "Nothing processed twice" and "Bounded retries").
//!
//! Two `bandmap crawler`, two `bandmap geocoder` and one `bandmap enqueue` on one database,
//! the demo catalogue imported: the crawlers enrich it through a FlareSolverr fake, the
//! geocoders resolve its places (offline gazetteer, then a Geoapify fake); then an admin
//! full crawl runs. The solver fake answers the first request of some band pages with a
//! fault (403, 429, `solution.status` 429, empty page, challenge page, solver timeout
//! error) and of some country lists with another (garbage HTML, `0`, `Forbidden.`, empty,
//! HTTP 429, HTTP 403); the Geoapify fake answers the first call of some places with 429,
//! 500 or nothing before the client's timeout. Counted at the fakes: every page and every
//! place is answered exactly once across the replicas, every faulted item is answered
//! after its retry, and no run fails.
//!
//! A solver that answers nothing before the client's timeout is tested apart (second test,
//! run in parallel with the first): the binary's client waits `maxTimeout` (120 s) plus
//! 30 s, too long for the test command, so it drives the crawler's own solver client with
//! `maxTimeout` 0 (timeout 30 s): the silent request costs its page one retry, the page is
//! read, and the next page is unaffected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fault_support::*;
use bandmap_fakes::geoapify::{FakeGeoapify, GeoFault};
use bandmap_fakes::llm::{FakeLlm, LlmFault};
use bandmap_fakes::solver::{FakeSolver, SolverFault, chrome_json_page};
use bandmap_upstream::{SolverClient, SolverConfig};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Places only the provider knows, one per band, each text unique.
const PLACES: usize = 24;

fn place(i: usize) -> String {
    let a = (b'a' + (i / 26) as u8) as char;
    let b = (b'a' + (i % 26) as u8) as char;
    format!("Qzx{a}{b}vik")
}

/// Places nobody but the LLM knows (the provider answers nothing for them).
const LLM_PLACES: usize = 4;

fn llm_place(i: usize) -> String {
    format!("Qzxllm{}", place(i).trim_start_matches("Qzx"))
}

/// What the LLM makes of `llm_place(i)`: a town the provider knows.
fn llm_town(i: usize) -> String {
    format!("Qzxtown{}", place(i).trim_start_matches("Qzx"))
}

fn duplicates(items: &[String]) -> Vec<(String, usize)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for i in items {
        *seen.entry(i).or_default() += 1;
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(k, n)| (k.to_string(), n))
        .collect()
}

/// The demo recording served through the fake solver, as the recorded mode reads it: a
/// missing listing is an empty listing, a missing band page is upstream's 404 page.
fn serve_demo(solver: &FakeSolver) {
    let dir: PathBuf = repo().join("demo/upstream");
    solver.serve_from(Arc::new(move |url: &str| {
        let path = bandmap_upstream::client::recorded_path(&dir, url);
        match std::fs::read_to_string(&path) {
            Ok(page) => Some(page),
            Err(_) if url.contains("/ajax-") => Some(chrome_json_page(
                r#"{"iTotalRecords":0,"iTotalDisplayRecords":0,"sEcho":0,"aaData":[]}"#,
            )),
            Err(_) => None,
        }
    }));
}

fn list_fault(url: &str) -> Option<SolverFault> {
    let faults = [
        ("/c/NO/", SolverFault::GarbageHtml),
        ("/c/SE/", SolverFault::Zero),
        ("/c/FI/", SolverFault::Forbidden),
        ("/c/DE/", SolverFault::EmptyBody),
        ("/c/PL/", SolverFault::Http429),
        ("/c/FR/", SolverFault::Http403),
    ];
    faults
        .iter()
        .find(|(c, _)| url.contains("ajax-country") && url.contains(c))
        .map(|(_, f)| *f)
}

fn band_fault(url: &str) -> Option<SolverFault> {
    if url.contains("ajax-country") {
        return list_fault(url);
    }
    if !url.contains("/bands/") {
        return None;
    }
    let faults = [
        ("3540001011", SolverFault::Http403),
        ("3540001012", SolverFault::Http429),
        ("3540001013", SolverFault::SolutionStatus429),
        ("3540001101", SolverFault::EmptyBody),
        ("3540001102", SolverFault::Challenge),
        ("3540001103", SolverFault::Error500),
    ];
    faults
        .iter()
        .find(|(id, _)| url.ends_with(id))
        .map(|(_, f)| *f)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_of_each_worker_with_faulty_outside_services_process_everything_once() {
    let (cluster, url) = cluster_with_database();
    let dir = TempDir::new("replicas");
    let solver = FakeSolver::start().await;
    serve_demo(&solver);
    solver.fail_first_request(Arc::new(band_fault));
    let geo = FakeGeoapify::start().await;
    geo.set_default(Arc::new(|text: &str, cc: Option<&str>| {
        if text.contains("Qzxllm") {
            return Vec::new();
        }
        let name = text.split(',').next().unwrap_or(text).trim();
        vec![FakeGeoapify::result(
            name,
            60.5,
            10.5,
            "city",
            Some(0.95),
            cc.unwrap_or("no"),
        )]
    }));
    let llm = FakeLlm::start().await;
    for i in 0..LLM_PLACES {
        llm.answer_for(
            llm_place(i),
            serde_json::json!({"city": llm_town(i), "region": null, "country": "Norway", "confidence": 0.9}),
        );
    }
    llm.fail_next(
        "*",
        LlmFault::RateLimited {
            retry_after_secs: 1,
        },
        1,
    );
    llm.fail_next("*", LlmFault::Malformed, 1);
    geo.fail_first_call(Arc::new(|text: &str| {
        if text.contains(&place(0)) {
            Some(GeoFault::Status(429))
        } else if text.contains(&place(1)) {
            Some(GeoFault::Status(500))
        } else if text.contains(&place(2)) {
            // The client gives up after 20 s.
            Some(GeoFault::NoAnswer(Duration::from_secs(25)))
        } else {
            None
        }
    }));
    let mut env = pipeline_env(&url, free_port());
    for (k, v) in [
        ("UPSTREAM_MODE", "solver".to_string()),
        ("CHALLENGE_SOLVER_URL", solver.url()),
        ("GEOCODER_PROVIDER", "geoapify".to_string()),
        ("GEOCODER_BASE_URL", geo.base_url()),
        ("GEOCODING_API_KEY", "fault-geoapify-key".to_string()),
        ("GEOCODER_MIN_DELAY", "0".to_string()),
        ("GEOCODER_MIN_JITTER", "0".to_string()),
        ("LLM_BASE_URL", llm.url()),
        ("LLM_API_KEY", "fault-llm-key".to_string()),
    ] {
        set(&mut env, k, v);
    }
    let db = pool(&url).await;

    // The demo catalogue (imported: the start-up full crawl is not due) and bands whose
    // only place the provider knows, one text each.
    Bandmap::run(&dir.0, &["migrate"], &env);
    let demo = repo().join("demo/bands.ndjson");
    Bandmap::run(&dir.0, &["import", demo.to_str().unwrap()], &env);
    let ndjson: String = (0..PLACES)
        .map(|i| (3_549_980_000_i64 + i as i64, place(i)))
        .chain((0..LLM_PLACES).map(|i| (3_549_981_000_i64 + i as i64, llm_place(i))))
        .map(|(id, text)| {
            serde_json::json!({
                "ma_id": id, "name": format!("Replica {id}"),
                "country": "Norway", "country_code": "NO", "location_text": text,
                "genre": "Black Metal", "status": "Active", "formed_year": 2000
            })
            .to_string()
                + "\n"
        })
        .collect();
    let file = dir.0.join("replicas.ndjson");
    std::fs::write(&file, ndjson).unwrap();
    Bandmap::run(&dir.0, &["import", file.to_str().unwrap()], &env);
    sqlx::query(
        "INSERT INTO crawl_checkpoint (key, value)
         VALUES ('last_full_crawl_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))",
    )
    .execute(&db)
    .await
    .unwrap();
    let demo_bands = count(&db, "SELECT count(*) FROM bands WHERE ma_id < 3549980000")
        .await
        .unwrap();
    assert!(demo_bands >= 100, "the demo is imported: {demo_bands}");

    let mut workers: Vec<Bandmap> = Vec::new();
    for (name, cmd) in [
        ("crawler-1", "crawler"),
        ("crawler-2", "crawler"),
        ("geocoder-1", "geocoder"),
        ("geocoder-2", "geocoder"),
        ("enqueue", "enqueue"),
        ("llm", "llm"),
    ] {
        workers.push(Bandmap::start(&dir.0, name, &[cmd], &env));
    }
    sqlx::query(
        "INSERT INTO job_triggers (job_type, created_by) VALUES ('geocoder_enqueue', 'fault test')",
    )
    .execute(&db)
    .await
    .unwrap();
    // On a missed deadline: the end of every worker's log and what the fakes saw.
    let tails = || {
        let logs = workers
            .iter()
            .map(|w| format!("--- {}\n{}", w.log.display(), w.tail()))
            .collect::<Vec<_>>()
            .join("\n");
        let llm_answers: Vec<String> = llm.requests().iter().map(|r| r.answered.clone()).collect();
        format!(
            "{logs}\n--- solver faulted {:?}\n--- solver served {}\n--- geoapify faulted {:?}\n--- llm answered {llm_answers:?}",
            solver.faulted_urls(),
            solver.served_urls().len(),
            geo.faulted_texts(),
        )
    };
    wait_for(
        "every demo band enriched, every place geocoded, no run running",
        tails,
        || async {
            // The malformed LLM answer's row waits 60 s before its retry; the clock is
            // moved on instead (a lease, 15 minutes ahead, is never touched).
            let _ = sqlx::query(
                "UPDATE band_locations SET next_attempt_at = now()
                 WHERE geocode_status = 'llm_needed' AND error LIKE '%malformed%'
                   AND next_attempt_at BETWEEN now() + interval '2 seconds' AND now() + interval '5 minutes'",
            )
            .execute(&db)
            .await;
            count(
                &db,
                "SELECT (SELECT count(*) FROM bands WHERE NOT enriched AND ma_id < 3549980000)
                      + (SELECT count(*) FROM band_locations
                         WHERE geocode_status IN ('pending', 'processing', 'llm_needed'))
                      + (SELECT count(*) FROM crawl_run WHERE status = 'running')
                      + (SELECT CASE WHEN count(*) = 0 THEN 1 ELSE 0 END FROM band_locations)
                      + (SELECT count(*) FROM job_triggers WHERE status IN ('pending', 'claimed'))",
            )
            .await
                == Some(0)
        },
    )
    .await;

    // A full crawl asked by the admin: one of the two crawlers claims it, the faulty list
    // answers cost one retry each, the run succeeds.
    sqlx::query(
        "INSERT INTO job_triggers (job_type, created_by) VALUES ('full_crawl', 'fault test')",
    )
    .execute(&db)
    .await
    .unwrap();
    wait_for("the triggered full crawl ends", tails, || async {
        count(
            &db,
            "SELECT count(*) FROM job_triggers WHERE job_type = 'full_crawl' AND status IN ('done', 'error')",
        )
        .await
        .unwrap_or(0)
            > 0
    })
    .await;
    for w in &mut workers {
        assert!(w.terminate(), "exit 0 on SIGTERM\n{}", w.tail());
    }
    let (status, error): (String, Option<String>) =
        sqlx::query_as("SELECT status, error FROM crawl_run WHERE type = 'full_crawl'")
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(
        status, "success",
        "faulty list answers never cost the run: {error:?}"
    );

    // Counted at the solver: each page read once across the two crawlers.
    let served = solver.served_urls();
    assert!(
        served.len() as i64 >= 2 * (demo_bands - 10),
        "the replicas read the band pages and discographies: {}",
        served.len()
    );
    assert_eq!(duplicates(&served), vec![], "a page read twice");
    let faulted = solver.faulted_urls();
    assert_eq!(faulted.len(), 12, "one fault of each kind: {faulted:?}");
    for (u, fault) in &faulted {
        assert!(
            served.contains(u),
            "{u} ({fault:?}) is read after its retry"
        );
    }
    // Both crawlers worked, and no run failed.
    let owners = count(
        &db,
        "SELECT count(DISTINCT owner) FROM crawl_run WHERE type = 'enrich'",
    )
    .await
    .unwrap();
    assert_eq!(owners, 2, "both crawlers enriched");
    let failed: Vec<(String, String, Option<String>)> = sqlx::query_as(
        "SELECT type, status, error FROM crawl_run WHERE status NOT IN ('success', 'interrupted')",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    assert_eq!(failed, vec![], "no run fails");

    // Counted at the provider: each place answered once across the two geocoders.
    let answered: Vec<String> = geo
        .answered_texts()
        .into_iter()
        .filter(|t| (0..PLACES).any(|i| t.contains(&place(i))))
        .collect();
    assert_eq!(duplicates(&answered), vec![], "a place geocoded twice");
    assert_eq!(answered.len(), PLACES, "{answered:?}");
    assert_eq!(geo.faulted_texts().len(), 3, "{:?}", geo.faulted_texts());
    let done = count(
        &db,
        "SELECT count(*) FROM band_locations WHERE ma_id >= 3549980000 AND geocode_status = 'done'",
    )
    .await
    .unwrap();
    assert_eq!(
        done,
        (PLACES + LLM_PLACES) as i64,
        "every place, faulted or not, is done"
    );

    // The LLM: a 429 and an invalid JSON answer each cost one row one more call; every
    // place the LLM resolved is answered once.
    let answers: Vec<(String, String)> = llm
        .requests()
        .iter()
        .map(|r| (r.user_message(), r.answered.clone()))
        .collect();
    for fault in ["429", "malformed"] {
        assert!(
            answers.iter().any(|(_, a)| a == fault),
            "{fault}: {answers:?}"
        );
    }
    for i in 0..LLM_PLACES {
        let ok = answers
            .iter()
            .filter(|(m, a)| m.contains(&llm_place(i)) && a == "ok")
            .count();
        assert_eq!(ok, 1, "{} answered once: {answers:?}", llm_place(i));
    }
    assert_eq!(
        answers.len(),
        LLM_PLACES + 2,
        "one call per place plus one per fault: {answers:?}"
    );
    drop(cluster);
}

const SILENT: &str = "https://www.metal-archives.com/bands/Silent/3540009001";
const NEXT: &str = "https://www.metal-archives.com/bands/Next/3540009002";

#[tokio::test]
async fn a_solver_silent_past_the_timeout_costs_the_page_one_retry() {
    let solver = FakeSolver::start().await;
    solver.add_html(
        SILENT,
        "<html><body><h1 class=\"band_name\">Silent</h1></body></html>",
    );
    solver.add_html(
        NEXT,
        "<html><body><h1 class=\"band_name\">Next</h1></body></html>",
    );
    // Silent well past the client's timeout (30 s with maxTimeout 0).
    solver.set_stall(Duration::from_secs(3600));
    solver.fail_first_request(Arc::new(|url: &str| {
        (url == SILENT).then_some(SolverFault::NoAnswer)
    }));
    let mut config = SolverConfig::new(&solver.url()).with_backoff(Duration::from_millis(10));
    config.max_timeout_ms = 0;
    let client = SolverClient::new(config).unwrap();

    let page = client.get_html(SILENT).await.unwrap();
    assert!(page.contains("Silent"));
    let stats = client.stats();
    assert_eq!(stats.retries, 1, "one retry: {stats:?}");
    assert_eq!(
        solver.faulted_urls(),
        vec![(SILENT.to_string(), SolverFault::NoAnswer)]
    );

    let next = client.get_html(NEXT).await.unwrap();
    assert!(next.contains("Next"));
    assert_eq!(client.stats().retries, 1, "the next page costs nothing");
    assert_eq!(solver.served_urls(), vec![SILENT, NEXT]);
}
