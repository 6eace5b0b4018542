//! The daily prune of old login attempts, crawl logs and audit rows
//! ([`bandmap_db::retention`]), run by `serve` (docs/reliability.md, Retention): every
//! deployment runs `serve`, alone or under `bandmap all`, while the workers may be left
//! out. With several replicas each prunes; a delete by age is the same whoever runs it.

use bandmap_config::RetentionConfig;
use bandmap_db::retention::{Ages, prune};
use sqlx::PgPool;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Pause between prunes.
pub const EVERY: Duration = Duration::from_secs(24 * 3600);

/// Wait before the first prune: after start-up's own work.
pub const FIRST_AFTER: Duration = Duration::from_secs(60);

/// The tables' ages from the configuration.
pub fn ages(r: &RetentionConfig) -> Ages {
    Ages {
        login_attempts: r.login_attempts,
        refused_logins: r.refused_logins,
        crawl_log: r.crawl_log,
        audit_log: r.audit_log,
    }
}

/// The daily prune, until `shutdown` fires (started by [`crate::background::start`]).
pub async fn run(pool: PgPool, ages: Ages, shutdown: CancellationToken) {
    let mut wait = FIRST_AFTER;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = shutdown.cancelled() => return,
        }
        match prune(&pool, &ages).await {
            Ok(p) if p.total() == 0 => tracing::debug!("retention: nothing to prune"),
            Ok(p) => tracing::info!(
                login_attempts = p.login_attempts,
                crawl_log = p.crawl_log,
                audit_log = p.audit_log,
                "retention: old rows pruned"
            ),
            Err(e) => tracing::warn!(error = %e, "retention: prune failed; next try in a day"),
        }
        wait = EVERY;
    }
}
