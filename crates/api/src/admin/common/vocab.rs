//! OpenAPI schemas of the run and trigger vocabularies, derived from the enums of
//! `bandmap_db::runs`. They live in `bandmap_db::openapi` (feature `openapi`), where the rows
//! the API answers as they are name them too; the parameters of this crate use them here.

pub use bandmap_db::openapi::{
    JOB_SERVICES_EXTENSION, job_type, log_level, run_status, trigger_status,
};

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
