//! OpenAPI schemas of the run and trigger vocabularies, derived from the enums of
//! `bandmap_db::runs` (the database crate does not depend on utoipa), so the document and
//! the front end that reads it never hold a copy of the lists.

use crate::param::Vocabulary;
use bandmap_db::band_locations::GeocodeStatus;
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

/// A `band_locations.geocode_status`.
pub fn geocode_status() -> Object {
    text_enum(
        GeocodeStatus::ALL.iter().map(|s| s.as_str()).collect(),
        "A location status.",
    )
    .build()
}

/// A closed list of names, any case, as a query parameter's schema (`names`: the values).
pub fn names(values: Vec<&'static str>, description: &str) -> Object {
    text_enum(values, description).build()
}

impl Vocabulary for JobType {
    fn all() -> &'static [Self] {
        JobType::ALL
    }
    fn schema() -> Object {
        job_type()
    }
}

impl Vocabulary for Level {
    fn all() -> &'static [Self] {
        Level::ALL
    }
    fn schema() -> Object {
        log_level()
    }
}

impl Vocabulary for TriggerStatus {
    fn all() -> &'static [Self] {
        TriggerStatus::ALL
    }
    fn schema() -> Object {
        trigger_status()
    }
}

impl Vocabulary for GeocodeStatus {
    fn all() -> &'static [Self] {
        &GeocodeStatus::ALL
    }
    fn schema() -> Object {
        geocode_status()
    }
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
