//! The background services, each name spelled once: the `service_health.service` of its
//! heartbeat, the owner name of its runs and the name its loop logs under.

use crate::runs::text_enum::text_enum;

text_enum! {
    /// A background service (`bandmap crawler|geocoder|enqueue|llm`, CONTRACT §1, §3).
    pub enum Service {
        /// `bandmap crawler`: incremental crawl, enrichment, full crawl.
        Crawler = "crawler",
        /// `bandmap geocoder`: the geocoding worker.
        Geocoder = "geocoder",
        /// `bandmap enqueue`: the enqueue daemon.
        Enqueue = "enqueue",
        /// `bandmap llm`: the LLM worker.
        Llm = "llm",
    }
}
