//! Heartbeats (rules 22–24): each background service overwrites one `service_health` row
//! at start and then every period. Every probe is isolated: an error, a panic or a timeout
//! becomes a failed check, and a failure to write the row is logged and otherwise silent,
//! so a probe never interrupts the service it watches. `stale` is computed by the API in SQL.
//! Service loops stop on a `tokio_util` `CancellationToken` (main cancels it on SIGTERM/SIGINT).

use bandmap_db::Service;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use sqlx::PgPool;
use std::panic::AssertUnwindSafe;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Service names of `service_health` (CONTRACT §3), as [`Service`] spells them.
pub const SERVICES: [&str; 4] = [
    Service::Crawler.as_str(),
    Service::Geocoder.as_str(),
    Service::Enqueue.as_str(),
    Service::Llm.as_str(),
];

/// One check's future: `Ok(detail)` or `Err(reason)`.
pub type CheckFuture = BoxFuture<'static, Result<Value, String>>;

/// A named check.
pub struct Check {
    /// Name shown in the `checks` object.
    pub name: &'static str,
    /// The probe.
    pub probe: CheckFuture,
}

impl Check {
    /// Builds a check from a future.
    pub fn new(
        name: &'static str,
        probe: impl std::future::Future<Output = Result<Value, String>> + Send + 'static,
    ) -> Self {
        Self {
            name,
            probe: Box::pin(probe),
        }
    }
}

/// Maximum time one probe may take before it counts as failed.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// Runs every check, isolated, and returns (`ok`/`degraded`, checks object).
pub async fn evaluate(checks: Vec<Check>) -> (&'static str, Value) {
    let mut out = Map::new();
    let mut healthy = true;
    for check in checks {
        let outcome =
            tokio::time::timeout(PROBE_TIMEOUT, AssertUnwindSafe(check.probe).catch_unwind()).await;
        let entry = match outcome {
            Ok(Ok(Ok(detail))) => json!({"ok": true, "detail": detail}),
            Ok(Ok(Err(reason))) => json!({"ok": false, "error": reason}),
            Ok(Err(_panic)) => json!({"ok": false, "error": "probe panicked"}),
            Err(_) => json!({"ok": false, "error": "probe timed out"}),
        };
        healthy &= entry["ok"] == Value::Bool(true);
        out.insert(check.name.to_string(), entry);
    }
    (if healthy { "ok" } else { "degraded" }, Value::Object(out))
}

/// Writes one heartbeat row; failures are logged, never returned (rule 22).
pub async fn beat(pool: &PgPool, service: Service, instance: &str, checks: Vec<Check>) {
    let (state, checks) = evaluate(checks).await;
    let write = bandmap_db::service_health::write(pool, service, state, &checks, instance).await;
    match write {
        Ok(()) => tracing::info!(%service, state, "heartbeat written"),
        Err(e) => tracing::warn!(%service, error = %e, "heartbeat not written"),
    }
}

/// This process's name in heartbeat rows: `HOST:PID`, `host` being `Config::hostname`.
pub fn instance_name(host: &str) -> String {
    format!("{host}:{}", std::process::id())
}

/// When and as whom a service writes its heartbeat; built from the configuration and handed
/// down (no process-wide copy of the host name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heartbeat {
    /// Period of the beats (`HEARTBEAT_INTERVAL_SECS`).
    pub every: Duration,
    /// The row's `instance` ([`instance_name`]).
    pub instance: String,
}

impl Heartbeat {
    /// Every `every`, as `host:PID`.
    pub fn new(host: &str, every: Duration) -> Heartbeat {
        Heartbeat {
            every,
            instance: instance_name(host),
        }
    }
}

/// Writes a heartbeat now and then every `heartbeat.every` until `shutdown` fires.
/// `make_checks` builds fresh probes for each beat.
pub async fn run(
    pool: PgPool,
    service: Service,
    heartbeat: Heartbeat,
    make_checks: impl Fn() -> Vec<Check> + Send + Sync + 'static,
    shutdown: CancellationToken,
) {
    loop {
        // A panic while building the checks is a failed beat, not a dead heartbeat task.
        match std::panic::catch_unwind(AssertUnwindSafe(&make_checks)) {
            Ok(checks) => beat(&pool, service, &heartbeat.instance, checks).await,
            Err(_) => tracing::warn!(%service, "heartbeat checks could not be built"),
        }
        tokio::select! {
            _ = tokio::time::sleep(heartbeat.every) => {}
            _ = shutdown.cancelled() => return,
        }
    }
}

/// The common "database reachable" check.
pub fn database_check(pool: &PgPool) -> Check {
    let pool = pool.clone();
    Check::new("database", async move {
        sqlx::query_scalar::<_, i32>("SELECT 1")
            .fetch_one(&pool)
            .await
            .map(|_| json!("reachable"))
            .map_err(|e| format!("database unreachable: {e}"))
    })
}
