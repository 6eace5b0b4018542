#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Issue 19 point 2: the provider's spacing holds across processes that use one key. Two
//! geocoder instances (each with its own in-process limiter, as two `bandmap geocoder`
//! replicas or separate `geocoder` and `llm` processes have) call the fake at once; the
//! fake records when each request arrived.

use crate::common::*;
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_geocode::{Geocoder, PlaceQuery, Resolution};
use std::time::Duration;

fn place(c: &str) -> PlaceQuery {
    PlaceQuery {
        city: c.into(),
        regions: vec![],
        country_code: Some("NO".into()),
        country_name: Some("Norway".into()),
    }
}

#[tokio::test]
async fn two_instances_on_one_key_keep_the_spacing_between_them() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let mut cfg = config(&geo);
    cfg.min_delay = Duration::from_millis(220);
    cfg.min_jitter = Duration::ZERO;
    let instance = || Geocoder::with_parts(db.pool.clone(), &cfg, None, Duration::from_millis(10));
    // Two separate instances: nothing in memory is shared between them.
    let (a, b) = (instance().unwrap(), instance().unwrap());
    let places = ["Hamar", "Moss", "Alta", "Voss", "Bodø", "Mo"].map(place);
    let results = tokio::join!(
        a.resolve(&places[0]),
        b.resolve(&places[1]),
        a.resolve(&places[2]),
        b.resolve(&places[3]),
        a.resolve(&places[4]),
        b.resolve(&places[5]),
    );
    for r in [
        results.0, results.1, results.2, results.3, results.4, results.5,
    ] {
        assert!(matches!(r, Resolution::Accepted(_)), "{r:?}");
    }
    let mut at: Vec<_> = geo.calls().into_iter().map(|c| c.at).collect();
    at.sort();
    assert_eq!(at.len(), 6);
    for pair in at.windows(2) {
        let gap = pair[1].duration_since(pair[0]);
        // Each call starts 220 ms after the previous one ended, whichever instance made it.
        assert!(gap >= Duration::from_millis(220), "gap {gap:?} < 0.22 s");
    }
}
