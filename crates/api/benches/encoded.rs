//! Brotli and gzip levels on one answer: bytes out and the best of seven runs, next to the
//! levels `crate::encoded` uses. Run on a real map answer, e.g. the z6 view of
//! `bench/clusters/ratio.sh`:
//!
//! ```text
//! curl -s "$URL_OF_Z6" -o /tmp/z6.json
//! cargo bench -p bandmap-api --bench encoded -- /tmp/z6.json
//! ```
//!
//! Without a file, a GeoJSON answer of 444 clusters is made up here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::time::Instant;

fn main() {
    let body = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(path) => std::fs::read(&path).expect("the answer file"),
        None => made_up(444),
    };
    println!("answer: {} bytes", body.len());
    let used = bandmap_api::encoded::encode;
    for (coding, level) in [
        ("br", 1u32),
        ("br", 4),
        ("br", 5),
        ("br", 6),
        ("br", 9),
        ("br", 11),
        ("gzip", 1),
        ("gzip", 6),
        ("gzip", 9),
    ] {
        let (len, ms) = best_of(7, || compress(&body, coding, level));
        println!("{coding:>4} level {level:>2}: {len:>7} bytes  {ms:>8.2} ms");
    }
    for coding in [
        bandmap_api::encoded::Coding::Brotli,
        bandmap_api::encoded::Coding::Gzip,
    ] {
        let (len, ms) = best_of(7, || used(&body, coding).unwrap());
        println!("used {coding:?}: {len:>7} bytes  {ms:>8.2} ms");
    }
}

fn compress(body: &[u8], coding: &str, level: u32) -> Vec<u8> {
    if coding == "br" {
        let mut w = brotli::CompressorWriter::new(Vec::new(), 4096, level, 18);
        w.write_all(body).unwrap();
        w.into_inner()
    } else {
        let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
        w.write_all(body).unwrap();
        w.finish().unwrap()
    }
}

/// The output length and the fastest of `n` runs, in milliseconds.
fn best_of(n: usize, mut f: impl FnMut() -> Vec<u8>) -> (usize, f64) {
    let mut best = f64::MAX;
    let mut len = 0;
    for _ in 0..n {
        let t = Instant::now();
        len = f().len();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (len, best)
}

/// A FeatureCollection of `n` clusters spread over Europe (coordinates with the float
/// noise of real centroids).
fn made_up(n: usize) -> Vec<u8> {
    let mut s = String::from(r#"{"type":"FeatureCollection","features":["#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        let lon = -10.0 + (i as f64 * 0.618_033_988_7).fract() * 40.0;
        let lat = 36.0 + (i as f64 * 0.414_213_562_3).fract() * 30.0;
        s.push_str(&format!(
            r#"{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{lon},{lat}]}},"properties":{{"cluster":true,"count":{},"expansion_zoom":7}}}}"#,
            1 + i * 7 % 300
        ));
    }
    s.push_str("]}");
    s.into_bytes()
}
