//! The geocoder's tiers: gazetteer and cache lookups, provider calls and errors. Recorded by
//! whichever worker resolves places (the geocoding worker and the LLM worker share the
//! geocoder).

use metrics::{Unit, counter, describe_counter};

/// Offline gazetteer lookups, by `result` (`hit`: an accepted match; `miss`).
pub const GAZETTEER: &str = "bandmap_geocoder_gazetteer_lookups_total";
/// Geocode cache lookups before a provider call, by `result` (`hit`, `miss`).
pub const CACHE: &str = "bandmap_geocoder_cache_lookups_total";
/// Requests sent to the external provider, by `provider` and `outcome` (`ok`,
/// `transient_error`, `fatal_error`).
pub const PROVIDER_CALLS: &str = "bandmap_geocoder_provider_calls_total";
/// Failed provider requests, by `provider` and `kind` (`transient`, `fatal`).
pub const PROVIDER_ERRORS: &str = "bandmap_geocoder_provider_errors_total";

pub(crate) fn describe() {
    describe_counter!(
        GAZETTEER,
        Unit::Count,
        "offline gazetteer lookups by result (hit = accepted match)"
    );
    describe_counter!(
        CACHE,
        Unit::Count,
        "geocode cache lookups before a provider call, by result"
    );
    describe_counter!(
        PROVIDER_CALLS,
        Unit::Count,
        "requests to the external geocoding provider, by outcome"
    );
    describe_counter!(
        PROVIDER_ERRORS,
        Unit::Count,
        "failed requests to the external geocoding provider, by kind"
    );
}

fn result(hit: bool) -> &'static str {
    if hit { "hit" } else { "miss" }
}

/// One gazetteer lookup; `hit` when it gave an accepted match.
pub fn gazetteer(hit: bool) {
    counter!(GAZETTEER, "result" => result(hit)).increment(1);
}

/// One cache lookup; `hit` when an answer was cached.
pub fn cache(hit: bool) {
    counter!(CACHE, "result" => result(hit)).increment(1);
}

/// How a provider request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// An answer (with or without results).
    Ok,
    /// A failure worth retrying (429, 5xx, network).
    Transient,
    /// A refusal retrying will not fix (bad key, other 4xx).
    Fatal,
}

/// One request to `provider` (a name from the code, e.g. `geoapify`).
pub fn provider_call(provider: &'static str, outcome: CallOutcome) {
    let (label, kind) = match outcome {
        CallOutcome::Ok => ("ok", None),
        CallOutcome::Transient => ("transient_error", Some("transient")),
        CallOutcome::Fatal => ("fatal_error", Some("fatal")),
    };
    counter!(PROVIDER_CALLS, "provider" => provider, "outcome" => label).increment(1);
    if let Some(kind) = kind {
        counter!(PROVIDER_ERRORS, "provider" => provider, "kind" => kind).increment(1);
    }
}
