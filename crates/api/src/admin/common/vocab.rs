//! OpenAPI schemas of the run and trigger vocabularies, derived from the enums of
//! `bandmap_db::runs`. They live in `bandmap_db::openapi` (feature `openapi`), where the rows
//! the API answers as they are name them too; the parameters of this crate use them here.

use crate::param::Vocabulary;
use bandmap_db::band_locations::GeocodeStatus;
use bandmap_db::runs::{JobType, Level, TriggerStatus};
use utoipa::openapi::{Object, ObjectBuilder, Type};

pub use bandmap_db::openapi::{
    JOB_SERVICES_EXTENSION, job_type, log_level, run_status, trigger_status,
};

fn text_enum(values: Vec<&'static str>, description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values))
        .description(Some(description))
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
    use bandmap_db::runs::JobType;
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
