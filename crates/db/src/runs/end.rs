//! [`End`]: why a job stopped, the one vocabulary every job speaks, and its one mapping
//! to the run's final status, its stored error text and its closing log line
//! ([`super::Run::close`]).

use super::{JobType, Level, RunStatus};

/// Why a job stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// It finished its work: `success`.
    Done,
    /// The admin asked to cancel the run (rule 10): `cancelled`.
    Cancelled,
    /// The run was closed under the job (admin cleanup, another instance's recovery): the
    /// job stops without writing ([`super::Run::abandon`]).
    ClosedElsewhere,
    /// The service is shutting down: `interrupted`, not `cancelled` — that is the admin's
    /// cancel (CONTRACT §3), and it would mark the trigger done although the job did not
    /// do its work.
    Shutdown,
    /// The job could not continue (the message): `error`.
    Failed(String),
}

impl End {
    /// The final status the job writes; None when the run was closed under it.
    pub const fn status(&self) -> Option<RunStatus> {
        match self {
            End::Done => Some(RunStatus::Success),
            End::Cancelled => Some(RunStatus::Cancelled),
            End::ClosedElsewhere => None,
            End::Shutdown => Some(RunStatus::Interrupted),
            End::Failed(_) => Some(RunStatus::Error),
        }
    }

    /// The error text stored on the run (and its trigger) of `job`.
    pub fn error(&self, job: JobType) -> Option<String> {
        match self {
            End::Done | End::Cancelled | End::ClosedElsewhere => None,
            End::Shutdown => Some(format!(
                "interrupted by shutdown: the {} service is shutting down",
                job.service()
            )),
            End::Failed(message) => Some(message.clone()),
        }
    }

    /// The closing log line of a run of `job` whose counts read `summary`.
    pub fn line(&self, job: JobType, summary: &str) -> (Level, String) {
        let noun = job.noun();
        match self {
            End::Done => (Level::Info, format!("{noun} finished: {summary}")),
            End::Cancelled => (
                Level::Warn,
                format!("{noun} cancelled at the admin's request: {summary}"),
            ),
            End::ClosedElsewhere => (
                Level::Warn,
                format!("run closed by someone else; {noun} stopped: {summary}"),
            ),
            End::Shutdown | End::Failed(_) => {
                let why = self.error(job).unwrap_or_default();
                (Level::Error, format!("{noun} stopped ({why}): {summary}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_end_has_one_status_error_and_line() {
        let job = JobType::GeocoderEnqueue;
        assert_eq!(End::Done.status(), Some(RunStatus::Success));
        assert_eq!(End::ClosedElsewhere.status(), None);
        assert_eq!(End::Shutdown.status(), Some(RunStatus::Interrupted));
        assert_eq!(End::Cancelled.error(job), None);
        let shutdown = End::Shutdown.error(JobType::Enrich).unwrap_or_default();
        assert!(
            shutdown.contains("crawler service is shutting down"),
            "{shutdown}"
        );
        assert_eq!(
            End::Done.line(job, "created=1"),
            (Level::Info, "enqueue scan finished: created=1".to_string())
        );
        let (level, line) = End::Failed("database: gone".into()).line(JobType::FullCrawl, "s");
        assert_eq!(level, Level::Error);
        assert_eq!(line, "full_crawl stopped (database: gone): s");
    }
}
