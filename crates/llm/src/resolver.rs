//! The geocoding of the extracted city goes through the geocoder's own code
//! (`bandmap_geocode::Geocoder::resolve`). The worker sees it through [`CityResolver`], so it
//! can be tested with a fake and wired to the real geocoder by a thin adapter.

use std::future::Future;

/// The place to geocode (mirrors `bandmap_geocode::PlaceQuery`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CityQuery {
    /// The extracted city.
    pub city: String,
    /// Its region, when extracted.
    pub regions: Vec<String>,
    /// ISO alpha-2 code of the country, when known.
    pub country_code: Option<String>,
    /// Country name.
    pub country_name: Option<String>,
}

/// An accepted geocoding (mirrors `bandmap_geocode::Resolved`).
#[derive(Debug, Clone, PartialEq)]
pub struct CityPoint {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
    /// Provider that answered (`gazetteer`, `geoapify`, …).
    pub provider: String,
    /// Confidence in [0, 1].
    pub confidence: f64,
    /// Granularity (`city`, …).
    pub granularity: String,
    /// Query that gave the result.
    pub query: String,
}

/// What the geocoder made of the city (mirrors `bandmap_geocode::Resolution`).
#[derive(Debug, Clone, PartialEq)]
pub enum CityOutcome {
    /// Accepted result (rule 15).
    Accepted(CityPoint),
    /// Every query tried gave nothing acceptable: the city fails → `manual`.
    Rejected {
        /// Why.
        error: String,
        /// Queries tried.
        queries: Vec<String>,
    },
    /// The provider refused in a way retrying will not fix → `error`.
    Fatal {
        /// The provider's message.
        error: String,
    },
    /// The geocoder cannot answer now (no provider/key): retried later.
    Unavailable {
        /// Why.
        reason: String,
    },
    /// A transient failure: retried later.
    Transient {
        /// The error.
        error: String,
    },
}

/// Geocodes an extracted city.
pub trait CityResolver: Send + Sync {
    /// Resolves `query`.
    fn resolve(&self, query: &CityQuery) -> impl Future<Output = CityOutcome> + Send;
}
