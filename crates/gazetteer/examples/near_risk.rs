//! The risk of issue 30's near spellings, measured: names the data does not know, looked
//! up where they would be wrong. Every place name of one country (each 7th) is looked up
//! as if written by a band of a neighbouring country, once with a first-level region of
//! that country and once alone; a name the neighbour does not have is unknown there, so a
//! near-spelling match is a wrong town. Prints the share and some examples, and the time
//! per lookup. `cargo run --release -p bandmap-gazetteer --example near_risk`

use std::collections::HashMap;
use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bandmap_gazetteer::{Gazetteer, Lookup, Query};

const PAIRS: [(&str, &str); 15] = [
    ("SE", "NO"),
    ("NO", "SE"),
    ("DE", "AT"),
    ("AT", "DE"),
    ("FI", "EE"),
    ("NL", "BE"),
    ("PL", "CZ"),
    ("CZ", "PL"),
    ("IT", "ES"),
    ("ES", "IT"),
    ("FR", "BE"),
    ("DK", "NO"),
    ("GB", "IE"),
    ("HU", "RO"),
    ("RO", "HU"),
];

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::var_os("GAZETTEER_PATH").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv"),
        PathBuf::from,
    );
    let g = Gazetteer::load(&path)?;
    let raw = std::fs::read_to_string(&path)?;
    // Names per country, and each country's first-level regions in file order.
    let mut names: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut regions: HashMap<&str, Vec<&str>> = HashMap::new();
    for line in raw.lines() {
        let c: Vec<&str> = line.split('\t').collect();
        match c.as_slice() {
            ["R", _, cc, "1", _, name, ..] => regions.entry(cc).or_default().push(name),
            ["P", _, name, _, cc, ..] => names.entry(cc).or_default().push(name),
            _ => {}
        }
    }
    let (mut n, mut near_region, mut near_alone) = (0usize, 0usize, 0usize);
    let t = Instant::now();
    for (from, to) in PAIRS {
        let (Some(src), Some(regs)) = (names.get(from), regions.get(to)) else {
            continue;
        };
        for (i, name) in src.iter().enumerate().step_by(7) {
            let region = vec![regs[i % regs.len()].to_string()];
            for with_region in [true, false] {
                let q = Query {
                    city: name,
                    regions: if with_region { &region } else { &[] },
                    country_code: Some(to),
                };
                n += 1;
                if let Lookup::Found(m) = g.lookup(&q)
                    && m.matched_on.starts_with("near")
                {
                    let count = if with_region {
                        &mut near_region
                    } else {
                        &mut near_alone
                    };
                    *count += 1;
                    if *count % 10 == 1 {
                        println!(
                            "  {name:?} ({to}, {:?}) -> {} ({})",
                            q.regions, m.name, m.matched_on
                        );
                    }
                }
            }
        }
    }
    let half = (n / 2).max(1) as f64;
    println!(
        "{n} lookups of unknown names ({:.1} µs each): near+region {near_region} ({:.2} %), near alone {near_alone} ({:.2} %)",
        t.elapsed().as_secs_f64() * 1e6 / n.max(1) as f64,
        100.0 * near_region as f64 / half,
        100.0 * near_alone as f64 / half
    );
    Ok(())
}
