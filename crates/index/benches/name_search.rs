//! In-process benchmark of the public name search's copy (`bench/search-flood` measures it
//! over HTTP under a flood): 150,000 synthetic bands named like the flood benchmark's
//! (md5-like hex, some of two words), copy build time and size, then per-query time of the
//! copy against a baseline measured in the same run — a plain scan that folds and tests
//! every name, the cost of a search with no index — for the flood's mix of texts (1–6 random
//! letters) and for texts that occur in many names.
//!
//! `cargo bench -p bandmap-index --bench name_search -- [--bands N]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::bands::by_name::NameRow;
use bandmap_index::name_search::{NameTable, TableBuilder, fold};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

fn hex(rng: &mut StdRng, n: usize) -> String {
    (0..n)
        .map(|_| char::from_digit(rng.random_range(0..16), 16).unwrap())
        .collect()
}

fn rows(n: usize) -> Vec<NameRow> {
    let mut rng = StdRng::seed_from_u64(7);
    let mut rows: Vec<NameRow> = (1..=n as i64)
        .map(|i| {
            let mut name = hex(&mut rng, 4 + (i % 9) as usize);
            if let Some(c) = name.get_mut(0..1) {
                c.make_ascii_uppercase();
            }
            if i % 3 == 0 {
                name = format!("{name} {}", hex(&mut rng, 5));
            }
            NameRow {
                ma_id: i,
                name,
                country: Some("Norway".into()),
                genre: Some("Black Metal".into()),
                lat: (i % 2 == 0).then_some(59.9),
                lon: (i % 2 == 0).then_some(10.7),
            }
        })
        .collect();
    // The database's order (bytewise is the C collation's).
    rows.sort_by(|a, b| {
        (a.name.chars().count(), &a.name, a.ma_id).cmp(&(b.name.chars().count(), &b.name, b.ma_id))
    });
    rows
}

/// The baseline: fold and test every name, then rank as the SQL does.
fn scan(rows: &[NameRow], folded: &[String], text: &str, limit: usize) -> Vec<i64> {
    let q = fold(text);
    let mut hits: Vec<(u8, usize)> = folded
        .iter()
        .enumerate()
        .filter(|(_, n)| n.contains(&q))
        .map(|(i, n)| {
            (
                if *n == q {
                    0
                } else if n.starts_with(&q) {
                    1
                } else {
                    2
                },
                i,
            )
        })
        .collect();
    hits.sort_unstable();
    hits.iter()
        .take(limit)
        .map(|&(_, i)| rows[i].ma_id)
        .collect()
}

fn texts(rng: &mut StdRng, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let len = [1, 2, 2, 3, 4, 6][rng.random_range(0..6)];
            (0..len)
                .map(|_| char::from(b'a' + rng.random_range(0..26u8)))
                .collect()
        })
        .collect()
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn measure(label: &str, copy: &NameTable, rows: &[NameRow], folded: &[String], queries: &[String]) {
    let mut fast = Vec::new();
    let mut slow = Vec::new();
    for q in queries {
        let t = Instant::now();
        let got: Vec<i64> = copy
            .search(q, 20)
            .into_iter()
            .map(|r| copy.hit(r).unwrap().ma_id)
            .collect();
        fast.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        let want = scan(rows, folded, q, 20);
        slow.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(got, want, "{q}");
    }
    let mut slowest: Vec<(f64, &str)> = fast
        .iter()
        .copied()
        .zip(queries.iter().map(String::as_str))
        .collect();
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    slowest.truncate(3);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "{label:<28} copy mean {:>8.1} µs p99 {:>8.1} µs | scan mean {:>8.1} µs p99 {:>8.1} µs | ratio of means {:.4}",
        mean(&fast),
        percentile(fast.clone(), 0.99),
        mean(&slow),
        percentile(slow.clone(), 0.99),
        mean(&fast) / mean(&slow)
    );
    let slowest: Vec<String> = slowest
        .iter()
        .map(|(us, q)| format!("{q:?} {us:.0} µs"))
        .collect();
    println!(
        "{:<28} slowest texts of the copy: {}",
        "",
        slowest.join(", ")
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = args
        .iter()
        .position(|a| a == "--bands")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(150_000usize);
    let rows = rows(n);
    let folded: Vec<String> = rows.iter().map(|r| fold(&r.name)).collect();
    let t = Instant::now();
    let mut b = TableBuilder::with_capacity(rows.len());
    for r in rows.iter().cloned() {
        b.push(r);
    }
    let copy = b.finish();
    println!(
        "{n} bands: copy built in {:.0} ms, {:.1} MB ({:.0} bytes a band)",
        t.elapsed().as_secs_f64() * 1e3,
        copy.bytes() as f64 / 1e6,
        copy.bytes() as f64 / n as f64
    );
    let mut rng = StdRng::seed_from_u64(11);
    measure(
        "flood mix (1-6 letters)",
        &copy,
        &rows,
        &folded,
        &texts(&mut rng, 2000),
    );
    let common: Vec<String> = (0..25)
        .flat_map(|_| ["a", "ab", "1", "12", "abc", "e4f", "c0ffee", "dead b"])
        .map(str::to_string)
        .collect();
    measure("common texts", &copy, &rows, &folded, &common);
}
