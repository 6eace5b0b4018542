//! OpenAPI schemas of the run and trigger vocabularies, derived from the enums of
//! `bandmap_db::runs` (the database crate does not depend on utoipa), so the document and
//! the front end that reads it never hold a copy of the lists.

use bandmap_db::runs::{JobType, Level, RunStatus, TriggerStatus};
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn job_type_schema_lists_the_enum_and_its_services() {
        let schema = serde_json::to_value(job_type()).unwrap();
        assert_eq!(schema["enum"], json!(JobType::names()));
        assert_eq!(
            schema[JOB_SERVICES_EXTENSION]["geocoder_enqueue"],
            "enqueue"
        );
        assert_eq!(schema[JOB_SERVICES_EXTENSION]["full_crawl"], "crawler");
    }
}
