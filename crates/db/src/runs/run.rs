//! [`Run`]: a job's handle on its `crawl_run` row, from opening to its final status (see
//! the lifecycle in [`crate::runs`]).

use super::{End, JobType, Level, Owner, RunStatus, state};
use crate::{DbError, Result, triggers};
use serde::Serialize;
use sqlx::PgPool;
use sqlx::types::Json;

/// An open run, held by the job that executes it.
#[derive(Debug)]
pub struct Run {
    pool: PgPool,
    id: i64,
    job: JobType,
    trigger: Option<i64>,
}

impl Run {
    /// Opens a run of `job` in `running`, owned by `owner` (None: no owner, so any
    /// instance's start recovery may close it), and records it on `trigger`. When it cannot
    /// be opened, the claimed trigger is left to whoever claimed it (the service runtime
    /// closes a trigger whose job failed, in one place).
    pub async fn start(
        pool: &PgPool,
        job: JobType,
        trigger: Option<i64>,
        owner: Option<&Owner>,
    ) -> Result<Run> {
        let id = open(pool, job, trigger, owner).await?;
        Ok(Run {
            pool: pool.clone(),
            id,
            job,
            trigger,
        })
    }

    /// `crawl_run.id`.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The job it runs.
    pub fn job(&self) -> JobType {
        self.job
    }

    /// The trigger that asked for it (None: scheduled).
    pub fn trigger(&self) -> Option<i64> {
        self.trigger
    }

    /// The pool the run is written through.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Appends a line to the run's log.
    pub async fn log(&self, level: Level, message: &str) -> Result<i64> {
        super::log(&self.pool, Some(self.id), level, message).await
    }

    /// Replaces the run's progress statistics.
    pub async fn write_stats(&self, stats: &impl Serialize) -> Result<()> {
        sqlx::query("UPDATE crawl_run SET stats = $2, updated_at = now() WHERE id = $1")
            .bind(self.id)
            .bind(Json(stats))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A batch boundary: whether the job must stop (rule 10). A run closed under the job
    /// wins over a cancel request.
    pub async fn check(&self) -> Result<Option<End>> {
        Ok(match state(&self.pool, self.id).await? {
            Some((RunStatus::Running, false)) => None,
            Some((RunStatus::Running, true)) => Some(End::Cancelled),
            _ => Some(End::ClosedElsewhere),
        })
    }

    /// Ends the run the way `end` says ([`End`] owns the mapping): writes its closing log
    /// line (best effort: the row matters more) with the counts `summary`, then finishes
    /// it with its status, statistics and error text — or, when it was closed under the
    /// job, leaves it. Returns the status the run ends with.
    pub async fn close(
        self,
        end: &End,
        stats: &impl Serialize,
        summary: &str,
    ) -> Result<RunStatus> {
        let (level, line) = end.line(self.job, summary);
        let run_id = self.id;
        match level {
            Level::Error | Level::Warn => tracing::warn!(run_id, "{line}"),
            Level::Info | Level::Debug => tracing::info!(run_id, "{line}"),
        }
        if let Err(e) = self.log(level, &line).await {
            tracing::warn!(run_id, error = %e, "closing log line not written");
        }
        match end.status() {
            Some(status) => {
                let error = end.error(self.job);
                self.finish(status, stats, error.as_deref()).await
            }
            None => self.abandon().await,
        }
    }

    /// Closes the run with its final status, statistics and error text, and its trigger
    /// with the matching status, in one transaction. Only a run still `running` is closed:
    /// when someone closed it first, nothing is written. Returns the status the run ends
    /// with (`status`, or the one it was closed with). `running` is not a final status.
    pub async fn finish(
        self,
        status: RunStatus,
        stats: &impl Serialize,
        error: Option<&str>,
    ) -> Result<RunStatus> {
        let Some(trigger_status) = status.trigger_status() else {
            return Err(DbError::Internal(format!(
                "run {} cannot finish as {status}",
                self.id
            )));
        };
        let mut tx = self.pool.begin().await?;
        let closed: Option<Option<i64>> = sqlx::query_scalar(
            "UPDATE crawl_run SET status = $2, stats = $3, error = $4, finished_at = now(), updated_at = now()
             WHERE id = $1 AND status = 'running' RETURNING trigger_id",
        )
        .bind(self.id)
        .bind(status)
        .bind(Json(stats))
        .bind(error)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(trigger) = closed else {
            tx.rollback().await?;
            return self.abandon().await;
        };
        if let Some(trigger_id) = trigger {
            triggers::close_claimed(&mut *tx, trigger_id, trigger_status, error).await?;
        }
        tx.commit().await?;
        Ok(status)
    }

    /// Leaves a run that was closed under the job: writes nothing and returns the status
    /// it was closed with.
    pub async fn abandon(self) -> Result<RunStatus> {
        let status = state(&self.pool, self.id).await?.map(|(s, _)| s);
        // A run row deleted under the job counts as interrupted.
        Ok(status.unwrap_or(RunStatus::Interrupted))
    }
}

/// Inserts the run and records it on its trigger, in one transaction.
async fn open(
    pool: &PgPool,
    job: JobType,
    trigger: Option<i64>,
    owner: Option<&Owner>,
) -> Result<i64> {
    let mut tx = pool.begin().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO crawl_run (type, status, trigger_id, owner, owner_lock)
         VALUES ($1, 'running', $2, $3, $4) RETURNING id",
    )
    .bind(job)
    .bind(trigger)
    .bind(owner.map(|o| o.name.as_str()))
    .bind(owner.map(|o| o.lock))
    .fetch_one(&mut *tx)
    .await?;
    if let Some(t) = trigger {
        triggers::attach_run(&mut *tx, t, id).await?;
    }
    tx.commit().await?;
    Ok(id)
}
