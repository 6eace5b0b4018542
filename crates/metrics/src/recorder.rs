//! The process-wide Prometheus recorder: installed once, rendered at each scrape.

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;

/// Histogram buckets of every `*_seconds` metric: from 1 ms (a cached map answer) to 60 s
/// (an index rebuild of a very large catalogue on a slow machine).
pub const SECONDS_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// Why the recorder could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// The exporter refused its settings, or another recorder is already installed.
    #[error("cannot install the metrics recorder: {0}")]
    Install(String),
    /// The listener could not be bound.
    #[error("cannot listen on METRICS_ADDR {addr}: {source}")]
    Bind {
        /// Address.
        addr: std::net::SocketAddr,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
}

static HANDLE: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// Installs the global recorder (once per process; later calls return the same handle).
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
                .map_err(|e| e.to_string())?
                .build_recorder();
            let handle = recorder.handle();
            metrics::set_global_recorder(recorder).map_err(|e| e.to_string())?;
            describe();
            Ok(handle)
        })
        .clone()
        .map_err(MetricsError::Install)
}

/// The current metrics in the Prometheus text format (empty when not installed).
pub fn render() -> String {
    match HANDLE.get() {
        Some(Ok(h)) => {
            h.run_upkeep();
            h.render()
        }
        _ => String::new(),
    }
}

/// The `# HELP` lines of every family.
fn describe() {
    crate::http::describe();
    crate::index::describe();
    crate::geocoder::describe();
    crate::llm::describe();
    crate::crawl::describe();
    crate::db_gauges::describe();
}
