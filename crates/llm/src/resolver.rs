//! The geocoding of the extracted city goes through the geocoder's own code
//! (`bandmap_geocode::Geocoder::resolve`), in the geocoder's own types. The worker sees it
//! through [`CityResolver`], so it can be tested with a fake and wired to the real geocoder
//! by a thin adapter ([`crate::GeocoderResolver`]).

use bandmap_geocode::{PlaceQuery, Resolution};
use std::future::Future;

/// Geocodes an extracted city.
pub trait CityResolver: Send + Sync {
    /// Resolves `query`.
    fn resolve(&self, query: &PlaceQuery) -> impl Future<Output = Resolution> + Send;
}
