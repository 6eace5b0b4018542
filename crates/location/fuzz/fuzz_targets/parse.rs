//! Fuzz `parse` with arbitrary UTF-8: it must never panic, and its invariants must hold
//! (orders 0..n, no empty city, no control characters).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    // The first line picks the band's country, so country handling is fuzzed too.
    let (band, text) = input.split_once('\n').unwrap_or(("NO", input));
    for band in [None, Some(band)] {
        let steps = bandmap_location::parse(text, band);
        for (i, step) in steps.iter().enumerate() {
            assert_eq!(step.order as usize, i);
            assert!(!step.places.is_empty());
            for place in &step.places {
                assert!(!place.city.is_empty());
                assert!(!place.raw.chars().any(char::is_control));
            }
        }
    }
});
