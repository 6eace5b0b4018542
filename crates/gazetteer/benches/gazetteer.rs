//! Load time of the Europe file and lookups per second, against a baseline measured in
//! the same run (reading the file into a String; a HashMap probe per lookup key).
//! Run: `cargo bench -p bandmap-gazetteer` (needs data/gazetteer/europe.tsv).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use bandmap_gazetteer::{Gazetteer, Lookup, Query};

/// Best of `n` runs; the result is dropped outside the timed region.
fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            let v = black_box(f());
            let el = t.elapsed();
            drop(v);
            el
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv");
    if !path.exists() {
        eprintln!(
            "bench skipped: {} absent; run scripts/fetch-gazetteer.sh",
            path.display()
        );
        return;
    }
    let read = best_of(5, || std::fs::read_to_string(&path).unwrap());
    let load = best_of(5, || Gazetteer::load(&path).unwrap());
    let g = Gazetteer::load(&path).unwrap();
    println!(
        "load: {:.1} ms for {} places; baseline read_to_string {:.1} ms; ratio {:.1}x",
        load.as_secs_f64() * 1e3,
        g.len(),
        read.as_secs_f64() * 1e3,
        load.as_secs_f64() / read.as_secs_f64()
    );

    let queries: Vec<(&str, Vec<String>, &str)> = vec![
        ("Bergen", vec!["Vestland".into()], "NO"),
        ("Harlow", vec!["Essex".into(), "England".into()], "GB"),
        ("Poznań", vec!["Wielkopolskie".into()], "PL"),
        ("Oporto", vec![], "PT"),
        ("Neustadt", vec![], "DE"),
        ("Grenoble", vec!["Rhône-Alpes".into()], "FR"),
        ("Nowhere Town", vec![], "SE"),
        ("Zürich", vec![], "CH"),
    ];
    let rounds = 50_000;
    let mut found = 0usize;
    let t = Instant::now();
    for _ in 0..rounds {
        for (city, regions, cc) in &queries {
            let q = Query {
                city,
                regions,
                country_code: Some(cc),
            };
            if matches!(black_box(g.lookup(&q)), Lookup::Found(_)) {
                found += 1;
            }
        }
    }
    let el = t.elapsed();
    let n = (rounds * queries.len()) as f64;
    // Baseline: the cost of one hash-map probe per query (the floor of any index lookup).
    let map: std::collections::HashMap<String, usize> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.0.to_lowercase(), i))
        .collect();
    let tb = Instant::now();
    let mut hits = 0usize;
    for _ in 0..rounds {
        for (city, _, _) in &queries {
            if black_box(map.get(&city.to_lowercase())).is_some() {
                hits += 1;
            }
        }
    }
    let base = tb.elapsed();
    println!(
        "lookup: {:.0} lookups/s ({:.2} µs each, {} found); baseline lowercase+HashMap probe {:.2} µs ({} hits); ratio {:.1}x",
        n / el.as_secs_f64(),
        el.as_secs_f64() * 1e6 / n,
        found,
        base.as_secs_f64() * 1e6 / n,
        hits,
        el.as_secs_f64() / base.as_secs_f64()
    );
}
