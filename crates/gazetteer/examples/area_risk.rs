//! The risk of issue 30's area rule, measured: place names looked up with a second-level
//! region of their country drawn at random (each 5th place), which mostly does not hold
//! them. Counts the answers found only through the area of that region (`name+area`),
//! with examples. `cargo run --release -p bandmap-gazetteer --example area_risk`

use std::collections::HashMap;
use std::error::Error;
use std::path::PathBuf;

use bandmap_gazetteer::{Gazetteer, Lookup, Query, haversine_km};

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::var_os("GAZETTEER_PATH").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv"),
        PathBuf::from,
    );
    let g = Gazetteer::load(&path)?;
    let raw = std::fs::read_to_string(&path)?;
    let mut second_level: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut places: Vec<(&str, &str, f64, f64)> = Vec::new();
    for line in raw.lines() {
        let c: Vec<&str> = line.split('\t').collect();
        match c.as_slice() {
            ["R", _, cc, "2", _, name, ..] => second_level.entry(cc).or_default().push(name),
            ["P", _, name, _, cc, _, _, lat, lon, _] => {
                places.push((name, cc, lat.parse()?, lon.parse()?));
            }
            _ => {}
        }
    }
    let (mut n, mut found, mut by_area, mut elsewhere) = (0, 0, 0, 0);
    for (i, (name, cc, lat, lon)) in places.iter().enumerate().step_by(5) {
        let Some(regions) = second_level.get(cc) else {
            continue;
        };
        let region = vec![regions[(i * 7919) % regions.len()].to_string()];
        n += 1;
        let q = Query {
            city: name,
            regions: &region,
            country_code: Some(cc),
        };
        if let Lookup::Found(m) = g.lookup(&q) {
            found += 1;
            if m.matched_on.contains("area") {
                by_area += 1;
                // Another place than the one whose name was written.
                if haversine_km(*lat, *lon, m.lat, m.lon) > 25.0 {
                    elsewhere += 1;
                    println!(
                        "  {name:?} ({cc}, {region:?}) -> {} ({})",
                        m.name, m.matched_on
                    );
                }
            }
        }
    }
    println!(
        "{n} lookups with a random second-level region: found {found}, through the area {by_area}, of which {elsewhere} another place than the one written"
    );
    Ok(())
}
