//! Band page, discography and block-page parsers must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = bandmap_upstream::parse::block_page(s);
        let _ = bandmap_upstream::parse::parse_band_page(s);
        let _ = bandmap_upstream::parse::parse_discography(s);
    }
});
