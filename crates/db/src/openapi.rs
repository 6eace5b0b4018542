//! OpenAPI schemas of the run, trigger and log vocabularies (feature `openapi`), derived
//! from the enums of [`crate::runs`], so the document and the front end that reads it never
//! hold a copy of the lists. The rows the API answers as they are name them with
//! `schema(schema_with = …)`; the API's parameters use them too (`admin::common::vocab`).

use crate::runs::{JobType, Level, RunStatus, TriggerStatus};
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::{Object, ObjectBuilder, Type};

/// Extension of the job-type schema: the service (heartbeat name) that runs each job type.
pub const JOB_SERVICES_EXTENSION: &str = "x-job-services";

fn text_enum(values: Vec<&'static str>, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .description(Some(description))
}

/// A job type, with the service that runs each ([`JOB_SERVICES_EXTENSION`]).
pub fn job_type() -> Object {
    let services: serde_json::Map<String, serde_json::Value> = JobType::ALL
        .iter()
        .map(|t| (t.as_str().to_owned(), t.service().as_str().into()))
        .collect();
    let extensions = ExtensionsBuilder::new()
        .add(JOB_SERVICES_EXTENSION, serde_json::Value::Object(services))
        .build();
    text_enum(JobType::names(), "A job type.")
        .extensions(Some(extensions))
        .build()
}

/// A `crawl_run.status`.
pub fn run_status() -> Object {
    text_enum(RunStatus::names(), "A run status.").build()
}

/// A `job_triggers.status`.
pub fn trigger_status() -> Object {
    text_enum(TriggerStatus::names(), "A trigger status.").build()
}

/// A `crawl_log.level`.
pub fn log_level() -> Object {
    text_enum(Level::names(), "A log level.").build()
}
