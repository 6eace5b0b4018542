//! JSON unwrapping and both list parsers must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(v) = bandmap_upstream::parse::unwrap_json(s) {
            let _ = bandmap_upstream::parse::parse_country_page(&v);
            let _ = bandmap_upstream::parse::parse_change_page(&v);
        }
    }
});
