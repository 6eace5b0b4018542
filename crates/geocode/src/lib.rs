//! The geocoding worker (`bandmap geocoder`, issue 5, SPEC rules 14–20): each claimed
//! `band_locations` row goes through the dedup fast path, the offline gazetteer, the
//! `geocode_cache` and the Geoapify provider (with fallbacks and one shared rate limiter),
//! then the acceptance rule; failures retry with backoff and end in `llm_needed`.
//!
//! Two entry points: [`Geocoder`] resolves one place (also used by the LLM worker) and
//! [`mark_done`] stores an accepted result; [`run`] / [`run_with_geocoder`] (the loop),
//! [`run_batch`] and [`run_once`] are the worker.
//! Design and figures: `docs/geocoding.md`.

mod cache;
mod done;
mod error;
mod geoapify;
mod geocoder;
mod limiter;
mod pacing;
mod place;
mod resolution;
mod worker;

pub use cache::{cache_key, normalise_query};
pub use done::mark_done;
pub use error::GeocodeError;
pub use geocoder::{Geocoder, ProviderStatus};
pub use limiter::Limiter;
pub use place::{CENTROID_CONFIDENCE, CENTROID_PROVIDER, country_only};
pub use place::{PlaceQuery, ProviderQuery};
pub use resolution::{COARSE_GRANULARITIES, Resolution, Resolved, accept};
pub use worker::{
    BATCH_BUDGET, BATCH_SIZE, Batches, IDLE_POLL, MAX_WAIT_DELAY, Outcome, STUCK_AFTER, WAIT_DELAY,
    WAIT_PREFIX, WORKER_TASKS, Worker, run, run_batch, run_once, run_with_geocoder,
};

/// Provider name stored for gazetteer results.
pub const GAZETTEER_PROVIDER: &str = "gazetteer";
/// Provider name stored for Geoapify results (and in cache keys).
pub const GEOAPIFY_PROVIDER: &str = "geoapify";
