//! The adapter from [`CityResolver`] to the geocoder's own code
//! (`bandmap_geocode::Geocoder::resolve`): gazetteer, cache, provider and rule 15, exactly as
//! the geocoding worker applies them.

use crate::resolver::CityResolver;
use bandmap_geocode::{Geocoder, PlaceQuery, Resolution};
use std::future::Future;

/// The real resolver.
#[derive(Clone)]
pub struct GeocoderResolver(pub Geocoder);

impl std::fmt::Debug for GeocoderResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GeocoderResolver")
    }
}

impl CityResolver for GeocoderResolver {
    fn resolve(&self, q: &PlaceQuery) -> impl Future<Output = Resolution> + Send {
        self.0.resolve(q)
    }
}
