//! Closing runs nobody will close: start recovery (rule 7, runs of dead instances) and the
//! admin cleanup (runs stuck for 30 minutes: no progress and no live owner). Both close the
//! runs `interrupted`, their claimed triggers `error`, and log a line on each run.

use super::{CRAWL_OWNER_LOCK_CLASS, JobType, Level, RunStatus, TriggerStatus};
use crate::Result;
use sqlx::{Acquire, PgConnection, Postgres};

/// Which `running` runs a closing statement takes.
#[derive(Debug, Clone, Copy)]
enum Scope {
    /// No progress (no log line, no counter change) for 30 minutes and no live owner.
    Stuck,
    /// No live owner, whatever the progress.
    Orphaned,
}

/// Rule 7 with several live instances: closes as `interrupted` the runs of the given types
/// left `running` by a dead instance only (returns how many) — runs with no owner, or whose
/// owner's advisory lock no session holds any more (its process or connection is gone).
/// Runs of a live replica are left alone.
pub async fn recover_orphaned<'c>(
    db: impl Acquire<'c, Database = Postgres>,
    types: &[JobType],
    reason: &str,
) -> Result<u64> {
    let mut tx = db.begin().await?;
    let closed = close_interrupted(&mut tx, types, Scope::Orphaned, reason).await?;
    tx.commit().await?;
    Ok(closed)
}

/// Closes the stuck runs of any type (the admin cleanup, SPEC "run older than 30 minutes",
/// issue 19 point 1): still `running`, with no progress for 30 minutes — no `crawl_log`
/// line and no counter change (`updated_at`, moved by every [`super::Run::write_stats`]) —
/// and no live owner (none recorded, or its advisory lock held by nobody). A long run that
/// keeps progressing, or whose instance is alive, is left alone. Also closes the triggers claimed that long ago that
/// never got a run. A job whose run was closed under it notices at its next batch through
/// [`super::Run::check`] and stops. On a pool or inside the caller's transaction (the
/// admin API commits the closing and its audit row together).
pub async fn cleanup_stuck<'c>(
    db: impl Acquire<'c, Database = Postgres>,
    reason: &str,
) -> Result<u64> {
    let mut tx = db.begin().await?;
    let closed = close_interrupted(&mut tx, JobType::ALL, Scope::Stuck, reason).await?;
    let orphaned = crate::triggers::close_runless(&mut *tx, reason).await?;
    if orphaned > 0 {
        tracing::warn!(
            triggers = orphaned,
            "claimed triggers that never got a run closed"
        );
    }
    tx.commit().await?;
    Ok(closed)
}

async fn close_interrupted(
    tx: &mut PgConnection,
    types: &[JobType],
    scope: Scope,
    reason: &str,
) -> Result<u64> {
    let only_silent = matches!(scope, Scope::Stuck);
    // pg_locks shows a two-key advisory lock as classid = key 1, objid = key 2, objsubid 2;
    // owner_lock is non-negative, so its oid value equals it.
    let closed: Vec<(i64, Option<i64>)> = sqlx::query_as(
        "UPDATE crawl_run r SET status = $5, error = $2, finished_at = now(), updated_at = now()
         WHERE r.type = ANY($1) AND r.status = $6
           AND (NOT $3 OR (r.updated_at < now() - interval '30 minutes'
                AND NOT EXISTS (SELECT 1 FROM crawl_log g WHERE g.run_id = r.id
                                AND g.at >= now() - interval '30 minutes')))
           AND (r.owner_lock IS NULL OR NOT EXISTS (
                SELECT 1 FROM pg_locks l
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND l.classid::bigint = $4 AND l.objid::bigint = r.owner_lock))
         RETURNING r.id, r.trigger_id",
    )
    .bind(types)
    .bind(reason)
    .bind(only_silent)
    .bind(i64::from(CRAWL_OWNER_LOCK_CLASS))
    .bind(RunStatus::Interrupted)
    .bind(RunStatus::Running)
    .fetch_all(&mut *tx)
    .await?;
    for (_, trigger) in &closed {
        if let Some(t) = trigger {
            crate::triggers::close_claimed(&mut *tx, *t, TriggerStatus::Error, Some(reason))
                .await?;
        }
    }
    let message = format!("run closed as interrupted: {reason}");
    for (run_id, _) in &closed {
        super::log(&mut *tx, Some(*run_id), Level::Warn, &message).await?;
    }
    Ok(closed.len() as u64)
}
