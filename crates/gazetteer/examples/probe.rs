//! Looks location texts up the way the pipeline does offline (parser, then gazetteer) and
//! prints what each place part became: `cargo run -p bandmap-gazetteer --example probe --
//! CC "Reading, Berkshire, England" …`. `PROBE_GEONAMES_ONLY=1` loads the GeoNames file
//! without the built-in tables; `probe - < file` reads `CC<TAB>text` lines.

use std::error::Error;
use std::path::PathBuf;

use bandmap_gazetteer::Gazetteer;
use bandmap_location::parse_with;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let cc = args.next().ok_or("usage: probe CC TEXT...")?;
    let path = std::env::var_os("GAZETTEER_PATH").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv"),
        PathBuf::from,
    );
    // PROBE_GEONAMES_ONLY=1: without the built-in tables (to compare memory and answers).
    let g = if std::env::var_os("PROBE_GEONAMES_ONLY").is_some() {
        Gazetteer::load_geonames_only(&path)
    } else {
        Gazetteer::load(&path)
    }
    .map_err(|e| format!("{}: {e}", path.display()))?;
    // CC "-": "CC<TAB>text" lines from standard input.
    let texts: Vec<(String, String)> = if cc == "-" {
        std::io::stdin()
            .lines()
            .map_while(Result::ok)
            .filter_map(|l| {
                let (c, t) = l.split_once('\t')?;
                Some((c.to_string(), t.to_string()))
            })
            .collect()
    } else {
        args.map(|t| (cc.clone(), t)).collect()
    };
    for (cc, text) in texts {
        println!("{text:?} ({cc})");
        for step in parse_with(&text, Some(&cc), &g) {
            for p in step.places {
                let q = bandmap_gazetteer::Query {
                    city: &p.city,
                    regions: &p.regions,
                    country_code: p.country_code.as_deref(),
                };
                println!(
                    "  city {:?} regions {:?} cc {:?} -> {:?}",
                    p.city,
                    p.regions,
                    p.country_code,
                    g.lookup(&q)
                );
            }
        }
    }
    Ok(())
}
