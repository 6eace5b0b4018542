//! The adapter from [`CityResolver`] to the geocoder's own code
//! (`bandmap_geocode::Geocoder::resolve`): gazetteer, cache, provider and rule 15, exactly as
//! the geocoding worker applies them.

use crate::resolver::{CityOutcome, CityPoint, CityQuery, CityResolver};
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
    fn resolve(&self, q: &CityQuery) -> impl Future<Output = CityOutcome> + Send {
        let place = PlaceQuery {
            city: q.city.clone(),
            regions: q.regions.clone(),
            country_code: q.country_code.clone(),
            country_name: q.country_name.clone(),
        };
        async move { convert(self.0.resolve(&place).await) }
    }
}

/// Maps the geocoder's resolution onto the worker's outcome.
#[must_use]
pub fn convert(r: Resolution) -> CityOutcome {
    match r {
        Resolution::Accepted(p) => CityOutcome::Accepted(CityPoint {
            lat: p.lat,
            lon: p.lon,
            provider: p.provider,
            confidence: p.confidence,
            granularity: p.granularity,
            query: p.query,
        }),
        Resolution::Rejected { error, queries } => CityOutcome::Rejected { error, queries },
        Resolution::Fatal { error } => CityOutcome::Fatal { error },
        Resolution::Unavailable { reason } => CityOutcome::Unavailable { reason },
        Resolution::Transient { error } => CityOutcome::Transient { error },
    }
}
