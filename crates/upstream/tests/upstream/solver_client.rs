//! The solver client against the loopback fake FlareSolverr: session reuse, every fault kind
//! of CONTRACT §8 (session recreated, request retried), retry exhaustion, solver errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use bandmap_fakes::solver::{FakeSolver, SolverFault};
use bandmap_upstream::client::{FaultKind, FetchError, SolverClient, SolverConfig};
use bandmap_upstream::parse::{BlockKind, parse_country_page};
use bandmap_upstream::url::UpstreamUrls;
use serde_json::json;

const BAND_HTML: &str = "<html><head><title>Band</title></head><body><h1 class=\"band_name\"><a href=\"https://www.metal-archives.com/bands/A/1\">A</a></h1></body></html>";

fn urls() -> UpstreamUrls {
    UpstreamUrls::new("https://www.metal-archives.com").unwrap()
}

async fn setup() -> (FakeSolver, SolverClient, String, String) {
    let solver = FakeSolver::start().await;
    let json_url = urls().country_page("NO", 0);
    let html_url = urls().band_page(1);
    solver.add_json(
        &json_url,
        &json!({"iTotalRecords": 1, "sEcho": 1, "aaData": [[
            "<a href='https://www.metal-archives.com/bands/A_%26_B/1'>A &amp; B</a>",
            "Black Metal", "Bergen, Vestland", "<span class=\"active\">Active</span>"]]}),
    );
    solver.add_html(&html_url, BAND_HTML);
    let cfg = SolverConfig::new(&solver.url()).with_backoff(Duration::from_millis(1));
    let client = SolverClient::new(cfg).unwrap();
    (solver, client, json_url, html_url)
}

#[tokio::test]
async fn one_session_reused_and_destroyed_on_shutdown() {
    let (solver, client, json_url, html_url) = setup().await;
    let v = client.get_json(&json_url).await.unwrap();
    let page = parse_country_page(&v).unwrap();
    assert_eq!(page.rows[0].name, "A & B");
    assert_eq!(client.get_html(&html_url).await.unwrap(), BAND_HTML);
    client.get_html(&html_url).await.unwrap();

    assert_eq!(solver.count("sessions.create"), 1);
    let gets: Vec<_> = solver
        .calls()
        .into_iter()
        .filter(|c| c.cmd == "request.get")
        .collect();
    assert_eq!(gets.len(), 3);
    let session = gets[0].session.clone().unwrap();
    assert!(
        gets.iter()
            .all(|c| c.session.as_deref() == Some(session.as_str()))
    );
    assert!(gets.iter().all(|c| c.max_timeout == Some(120_000)));
    assert_eq!(solver.sessions(), vec![session]);

    client.shutdown().await;
    assert_eq!(solver.count("sessions.destroy"), 1);
    assert!(solver.sessions().is_empty());
    let stats = client.stats();
    assert_eq!(
        (stats.requests, stats.sessions_created, stats.faults),
        (3, 1, 0)
    );
}

/// Each fault once: the session is destroyed and recreated, the request retried and served.
#[tokio::test]
async fn each_fault_recreates_the_session_and_retries() {
    let cases: &[(SolverFault, bool, FaultKind)] = &[
        (SolverFault::Http403, false, FaultKind::SolverHttp(403)),
        (SolverFault::Http429, false, FaultKind::SolverHttp(429)),
        (
            SolverFault::SolutionStatus403,
            false,
            FaultKind::UpstreamStatus(403),
        ),
        (
            SolverFault::Challenge,
            false,
            FaultKind::BlockPage(BlockKind::Challenge),
        ),
        (SolverFault::EmptyBody, false, FaultKind::EmptyBody),
        (SolverFault::Zero, true, FaultKind::NotJson),
        (SolverFault::Forbidden, true, FaultKind::NotJson),
        (SolverFault::GarbageHtml, true, FaultKind::NotJson),
        (
            SolverFault::Blocked500,
            false,
            FaultKind::SolverBlocked(String::new()),
        ),
    ];
    for (fault, json_only, expected) in cases {
        let (solver, client, json_url, html_url) = setup().await;
        // Warm the session so that recreation is visible as destroy + create.
        client.get_html(&html_url).await.unwrap();
        solver.clear_calls();
        solver.fail_next(*fault, 1);
        if *json_only {
            client.get_json(&json_url).await.unwrap();
        } else {
            client.get_html(&html_url).await.unwrap();
        }
        let cmds: Vec<String> = solver.calls().into_iter().map(|c| c.cmd).collect();
        assert_eq!(
            cmds,
            [
                "request.get",
                "sessions.destroy",
                "sessions.create",
                "request.get"
            ],
            "{fault:?}"
        );
        let stats = client.stats();
        assert_eq!(stats.session_recreations, 1, "{fault:?}");
        assert_eq!(stats.faults, 1, "{fault:?}");
        assert_eq!(stats.retries, 1, "{fault:?}");
        // The fault kind is the one documented for it.
        solver.fail_next(*fault, 4);
        let err = if *json_only {
            client.get_json(&json_url).await.unwrap_err()
        } else {
            client.get_html(&html_url).await.map(|_| ()).unwrap_err()
        };
        match (err.fault().unwrap(), expected) {
            (FaultKind::SolverBlocked(m), FaultKind::SolverBlocked(_)) => {
                assert!(m.contains("blocked"), "{m}");
            }
            (got, want) => assert_eq!(got, want, "{fault:?}"),
        }
    }
}

#[tokio::test]
async fn item_fails_after_three_retries_and_client_stays_usable() {
    let (solver, client, json_url, html_url) = setup().await;
    solver.fail_next(SolverFault::Forbidden, 4);
    let err = client.get_json(&json_url).await.unwrap_err();
    match &err {
        FetchError::Exhausted { attempts, url, .. } => {
            assert_eq!(*attempts, 4);
            assert_eq!(url, &json_url);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(solver.count("request.get"), 4);
    assert_eq!(solver.count("sessions.destroy"), 4);
    assert_eq!(client.stats().retries, 3);
    // Next item: served normally, on a fresh session.
    solver.clear_calls();
    client.get_html(&html_url).await.unwrap();
    assert_eq!(solver.count("request.get"), 1);
    assert_eq!(solver.sessions().len(), 1);
}

#[tokio::test]
async fn three_faults_then_success_is_within_budget() {
    let (solver, client, json_url, _) = setup().await;
    solver.fail_next(SolverFault::Challenge, 3);
    client.get_json(&json_url).await.unwrap();
    assert_eq!(solver.count("request.get"), 4);
}

#[tokio::test]
async fn solver_500_is_an_item_error_without_session_refresh() {
    let (solver, client, _, html_url) = setup().await;
    solver.fail_next(SolverFault::Error500, 4);
    let err = client.get_html(&html_url).await.unwrap_err();
    let FetchError::Exhausted { last, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        matches!(&**last, FetchError::Solver { message, .. } if message.contains("Timeout")),
        "{last:?}"
    );
    assert!(err.fault().is_none());
    assert_eq!(solver.count("sessions.destroy"), 0);
    assert_eq!(solver.count("sessions.create"), 1);
    assert_eq!(client.get_html(&html_url).await.unwrap(), BAND_HTML);
}

#[tokio::test]
async fn unknown_page_is_not_a_fault_for_html() {
    let (solver, client, _, _) = setup().await;
    let body = client.get_html(&urls().band_page(999)).await.unwrap();
    assert!(body.contains("Error 404"));
    assert_eq!(solver.count("sessions.destroy"), 0);
}

#[tokio::test]
async fn recreated_when_the_solver_forgot_the_session() {
    // The real solver creates an unknown session on the fly: a restart is invisible.
    let (solver, client, _, html_url) = setup().await;
    client.get_html(&html_url).await.unwrap();
    let id = solver.sessions()[0].clone();
    let destroy = reqwest_like_destroy(&solver.url(), &id).await;
    assert!(destroy);
    assert!(solver.sessions().is_empty());
    client.get_html(&html_url).await.unwrap();
    assert_eq!(solver.sessions(), vec![id]);
}

async fn reqwest_like_destroy(url: &str, id: &str) -> bool {
    // A raw HTTP/1.1 POST, so the test needs no HTTP client of its own.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = url.trim_start_matches("http://").trim_end_matches("/v1");
    let body = json!({"cmd": "sessions.destroy", "session": id}).to_string();
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /v1 HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out.starts_with("HTTP/1.1 200")
}

#[tokio::test]
async fn ping_and_unreachable_solver() {
    let (_solver, client, _, _) = setup().await;
    client.ping().await.unwrap();

    let dead = SolverClient::new(
        SolverConfig::new("http://127.0.0.1:9/v1").with_backoff(Duration::from_millis(1)),
    )
    .unwrap();
    assert!(matches!(
        dead.ping().await,
        Err(FetchError::Transport { .. })
    ));
    let err = dead.get_html("https://x/bands/_/1").await.unwrap_err();
    assert!(
        matches!(err, FetchError::Exhausted { attempts: 4, .. }),
        "{err:?}"
    );
}
