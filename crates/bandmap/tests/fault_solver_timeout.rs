//! A challenge solver that answers nothing before the client's timeout
//! (docs/reliability.md, "Bounded retries"). The binary's client waits `maxTimeout` (120 s)
//! plus 30 s, too long for the test command, so this drives the crawler's own solver
//! client with `maxTimeout` 0 (timeout 30 s) against the FlareSolverr fake: the silent
//! request costs its page one retry, the page is read, and the next page is unaffected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_fakes::solver::{FakeSolver, SolverFault};
use bandmap_upstream::{SolverClient, SolverConfig};
use std::sync::Arc;
use std::time::Duration;

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
