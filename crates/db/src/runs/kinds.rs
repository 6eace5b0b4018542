//! The closed vocabularies of runs and triggers (CONTRACT §3), each spelled once: the
//! job types, the run statuses, the trigger statuses and the log levels.

use super::text_enum::text_enum;
use crate::Service;

text_enum! {
    /// A job: `crawl_run.type` and `job_triggers.job_type` (the latter is free text in the
    /// table so that an unknown request can be closed as an error, rule 9).
    pub enum JobType {
        /// Incremental crawl (crawler).
        Incremental = "incremental",
        /// Enrichment of band pages (crawler).
        Enrich = "enrich",
        /// Full crawl of every European country (crawler).
        FullCrawl = "full_crawl",
        /// Enqueue scan (enqueue daemon).
        GeocoderEnqueue = "geocoder_enqueue",
    }
}

impl JobType {
    /// The service that claims and runs this job.
    pub const fn service(self) -> Service {
        match self {
            JobType::Incremental | JobType::Enrich | JobType::FullCrawl => Service::Crawler,
            JobType::GeocoderEnqueue => Service::Enqueue,
        }
    }

    /// What a run of this job is called in its log lines (`enqueue scan finished: …`).
    pub const fn noun(self) -> &'static str {
        match self {
            JobType::GeocoderEnqueue => "enqueue scan",
            other => other.as_str(),
        }
    }

    /// The job types run by `service` (none for the geocoder and the LLM worker).
    pub fn run_by(service: Service) -> Vec<JobType> {
        JobType::ALL
            .iter()
            .copied()
            .filter(|t| t.service() == service)
            .collect()
    }
}

text_enum! {
    /// `crawl_run.status`.
    pub enum RunStatus {
        /// Open: the job is working (or its process died and recovery has not closed it yet).
        Running = "running",
        /// Finished its work.
        Success = "success",
        /// The job could not continue.
        Error = "error",
        /// Stopped at the admin's request (written by the job itself, rule 10).
        Cancelled = "cancelled",
        /// Stopped without finishing, not at the admin's request: the service shut down, or
        /// start recovery / admin cleanup closed it.
        Interrupted = "interrupted",
    }
}

impl RunStatus {
    /// Whether a run in this status is closed (every status but `running`).
    pub const fn is_final(self) -> bool {
        !matches!(self, RunStatus::Running)
    }

    /// The status of the trigger that started a run ending so (CONTRACT §11): `done` for
    /// success or an admin cancel; `error` otherwise, as the job did not do its work.
    /// None for `running`, which ends nothing.
    pub const fn trigger_status(self) -> Option<TriggerStatus> {
        match self {
            RunStatus::Running => None,
            RunStatus::Success | RunStatus::Cancelled => Some(TriggerStatus::Done),
            RunStatus::Error | RunStatus::Interrupted => Some(TriggerStatus::Error),
        }
    }
}

text_enum! {
    /// `job_triggers.status`.
    pub enum TriggerStatus {
        /// Waiting for its service.
        Pending = "pending",
        /// Taken by a service; its run (if opened) is recorded in `run_id`.
        Claimed = "claimed",
        /// Its run ended `success` or `cancelled`.
        Done = "done",
        /// Its run ended `error`/`interrupted`, it never got a run, or its type is unknown.
        Error = "error",
        /// Cancelled by an admin while pending.
        Cancelled = "cancelled",
    }
}

text_enum! {
    /// `crawl_log.level`.
    pub enum Level {
        /// Detail.
        Debug = "debug",
        /// Normal progress.
        Info = "info",
        /// A per-item failure.
        Warn = "warn",
        /// A run failure.
        Error = "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in JobType::ALL {
            assert_eq!(JobType::parse(t.as_str()), Some(*t));
        }
        for s in RunStatus::ALL {
            assert_eq!(s.as_str().parse::<RunStatus>(), Ok(*s));
        }
        for s in TriggerStatus::ALL {
            assert_eq!(TriggerStatus::parse(s.as_str()), Some(*s));
        }
        assert_eq!(JobType::parse("bogus"), None);
        assert!("Running".parse::<RunStatus>().is_err());
    }

    #[test]
    fn serde_uses_the_stored_names() {
        let json = serde_json::to_string(&JobType::FullCrawl).unwrap_or_default();
        assert_eq!(json, "\"full_crawl\"");
        let back: RunStatus = serde_json::from_str("\"interrupted\"").unwrap_or(RunStatus::Running);
        assert_eq!(back, RunStatus::Interrupted);
        assert!(serde_json::from_str::<TriggerStatus>("\"finished\"").is_err());
    }

    #[test]
    fn services_split_the_job_types() {
        assert_eq!(
            JobType::run_by(Service::Crawler),
            [JobType::Incremental, JobType::Enrich, JobType::FullCrawl]
        );
        assert_eq!(
            JobType::run_by(Service::Enqueue),
            [JobType::GeocoderEnqueue]
        );
    }

    #[test]
    fn trigger_follows_its_run() {
        assert_eq!(RunStatus::Running.trigger_status(), None);
        assert_eq!(
            RunStatus::Cancelled.trigger_status(),
            Some(TriggerStatus::Done)
        );
        assert_eq!(
            RunStatus::Interrupted.trigger_status(),
            Some(TriggerStatus::Error)
        );
    }
}
