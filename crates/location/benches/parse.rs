//! Throughput of `parse` on 100,000 synthetic location strings built from a realistic
//! mix of MA forms, against a trivial `split(';')` pass over the same strings as the
//! baseline. Run with `cargo bench -p bandmap-location` (no criterion: one timed pass
//! after a warm-up, enough to catch an order-of-magnitude regression).

use std::hint::black_box;
use std::time::Instant;

use bandmap_location::parse;

const N: usize = 100_000;

/// Realistic forms, weighted towards the simple ones MA mostly holds.
const FORMS: &[(&str, &str)] = &[
    ("Oslo", "NO"),
    ("Bergen, Vestland", "NO"),
    ("Stockholm", "SE"),
    ("Strängnäs, Södermanland", "SE"),
    ("Aachen, North Rhine-Westphalia", "DE"),
    ("Poznań, Wielkopolskie", "PL"),
    ("Harlow, Essex, England", "GB"),
    ("N/A", "FI"),
    ("Tampere \\ Helsinki", "FI"),
    ("Lyon/Paris", "FR"),
    ("Sandviken, Gävleborg (early); Stockholm (later)", "SE"),
    ("Bergen (early), Bø (mid), Limousin, France (later)", "NO"),
    (
        "Kolbotn, Viken (early); Oslo (mid); Vinterbro, Viken / Trysil, Innlandet (later)",
        "NO",
    ),
    ("Francofonte (Syracuse)/Catania, Sicily", "IT"),
    (
        "Rheinzabern, (Rhineland-Palatinate) (early); Mannheim (Baden Württemberg) (later)",
        "DE",
    ),
    ("Санкт-Петербург", "RU"),
    ("Θεσσαλονίκη, Κεντρική Μακεδονία", "GR"),
    ("İstanbul", "TR"),
];

fn main() {
    let inputs: Vec<(String, &str)> = (0..N)
        .map(|i| {
            let (text, cc) = FORMS[i % FORMS.len()];
            // Vary the text a little so nothing can be cached by accident.
            (format!("{text}{}", if i % 7 == 0 { " " } else { "" }), cc)
        })
        .collect();

    // Warm-up (country table, allocator).
    for (text, cc) in inputs.iter().take(1_000) {
        black_box(parse(text, Some(cc)));
    }

    let started = Instant::now();
    let mut places = 0usize;
    for (text, cc) in &inputs {
        places += black_box(parse(black_box(text), Some(cc)))
            .iter()
            .map(|s| s.places.len())
            .sum::<usize>();
    }
    let parse_secs = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut pieces = 0usize;
    for (text, _) in &inputs {
        pieces += black_box(text)
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .count();
    }
    let split_secs = started.elapsed().as_secs_f64().max(1e-9);

    let parse_rate = N as f64 / parse_secs;
    let split_rate = N as f64 / split_secs;
    println!("parse:      {parse_rate:>14.0} locations/s ({places} places)");
    println!("split(';'): {split_rate:>14.0} locations/s ({pieces} pieces, baseline)");
    println!(
        "ratio:      parse is {:.1}x slower than the baseline",
        split_rate / parse_rate
    );
}
