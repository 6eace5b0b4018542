//! Parser throughput (`cargo bench -p bandmap-upstream --bench parse`): pages per second for
//! band pages and list pages, each against a baseline measured in the same run (a bare
//! `scraper::Html::parse_document` of the same band page; a bare `serde_json::from_str` of
//! the same list), printed as a ratio so figures compare across machines.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bandmap_upstream::parse::{parse_band_page, parse_country_page, unwrap_json};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/upstream/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A 500-row country page like upstream's largest, in Chrome's `<pre>` wrapper.
fn big_country_page() -> String {
    let rows: Vec<serde_json::Value> = (0..500)
        .map(|i| {
            serde_json::json!([
                format!(
                    "<a href='https://www.metal-archives.com/bands/Band_{i}/{}'>Band &amp; {i}</a>",
                    3_540_000_000_i64 + i
                ),
                "Black/Doom Metal",
                "Kolbotn, Viken (early); Oslo (later)",
                "<span class=\"active\">Active</span>"
            ])
        })
        .collect();
    let json = serde_json::json!({"iTotalRecords": 4321, "sEcho": 1, "aaData": rows}).to_string();
    format!(
        "<html><head></head><body><pre>{}</pre></body></html>",
        json.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    )
}

/// Pages per second of `f` over about `budget`.
fn rate(budget: Duration, mut f: impl FnMut()) -> f64 {
    for _ in 0..20 {
        f();
    }
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < budget {
        f();
        n += 1;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let budget = Duration::from_millis(
        std::env::var("BENCH_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2000),
    );
    let band = fixture("band_active_tabs.html");
    let band_rate = rate(budget, || {
        black_box(parse_band_page(black_box(&band)).ok());
    });
    let band_base = rate(budget, || {
        black_box(scraper::Html::parse_document(black_box(&band)));
    });
    println!(
        "band page ({} B): {band_rate:.0} pages/s; baseline Html::parse_document {band_base:.0}/s; ratio {:.2}",
        band.len(),
        band_rate / band_base
    );

    let list = big_country_page();
    let list_rate = rate(budget, || {
        let v = unwrap_json(black_box(&list)).ok();
        black_box(v.as_ref().map(parse_country_page));
    });
    let raw = unwrap_json(&list)
        .map(|v| v.to_string())
        .unwrap_or_default();
    let list_base = rate(budget, || {
        black_box(serde_json::from_str::<serde_json::Value>(black_box(&raw)).ok());
    });
    println!(
        "country list (500 rows, {} B): {list_rate:.0} pages/s ({:.0} rows/s); baseline serde_json::from_str {list_base:.0}/s; ratio {:.2}",
        list.len(),
        list_rate * 500.0,
        list_rate / list_base
    );
}
