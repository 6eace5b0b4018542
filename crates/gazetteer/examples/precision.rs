//! The evaluation of issues 13 and 30 at full size (run by `bench/gazetteer-precision.sh`):
//! generates the rows from a seed, scores them offline under the rules before issue 13,
//! before issue 30 (the GeoNames file alone) and in force (with issue 30's tables), in
//! this one run, and prints the figures, the list of wrong rows and a sample of the
//! unresolved ones. Also scores the held-out real set and issue 30's real-forms set.
//!
//! `cargo run --release -p bandmap-gazetteer --example precision -- [rows] [seed] [unresolved to list]`

use std::collections::BTreeMap;
use std::error::Error;
use std::path::PathBuf;
use std::time::Instant;

use bandmap_gazetteer::eval::{self, Class, Form, Row, Score};
use bandmap_gazetteer::{Gazetteer, Lookup, Query, Rules, haversine_km};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().map_or(Ok(100_000), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(13), |a| a.parse())?;
    let list: usize = args.next().map_or(Ok(40), |a| a.parse())?;
    let path = std::env::var_os("GAZETTEER_PATH").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv"),
        PathBuf::from,
    );
    let t = Instant::now();
    let g = Gazetteer::load(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let plain =
        Gazetteer::load_geonames_only(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("gazetteer: {} places ({})", g.len(), path.display());
    let set = eval::generate(&g, seed, rows);
    println!(
        "generated: {} rows from seed {seed} (towns > {} inhabitants)",
        set.len(),
        eval::MIN_POPULATION
    );
    let mut by_form: BTreeMap<Form, Vec<Row>> = BTreeMap::new();
    for r in &set {
        by_form.entry(r.form).or_default().push(r.clone());
    }
    // Issue 13's rules added one at a time, from issue 5's to the rules in force.
    let current = Rules {
        current_names_first: true,
        ..Rules::ISSUE_5
    };
    let villages = Rules {
        dominance: Rules::DEFAULT.dominance,
        ..current
    };
    // Issue 13's steps on the GeoNames file alone, then issue 30's tables and rules.
    let steps = [
        ("before (issue 5 rules)", Rules::ISSUE_5, &plain),
        ("  + current names before alternates", current, &plain),
        ("  + a town before villages", villages, &plain),
        (
            "  + commas (comma names, Town, Town) = issue 13, before issue 30",
            Rules::ISSUE_13,
            &plain,
        ),
        (
            "after: + issue 30 (tables, areas, near spellings, regions alone) = in force",
            Rules::DEFAULT,
            &g,
        ),
    ];
    let mut after = Score::default();
    for (name, rules, g) in steps {
        let t = Instant::now();
        let s = eval::score(g, &set, &rules);
        println!(
            "{name}: {} [{:.1} s]",
            s.summary(),
            t.elapsed().as_secs_f64()
        );
        if rules == Rules::ISSUE_5 || rules == Rules::ISSUE_13 || rules == Rules::DEFAULT {
            for (form, rows) in &by_form {
                let f = eval::score(g, rows, &rules);
                println!("    {form:?}: {}", f.summary());
            }
            let (held_resolved, held_wrong, held_n) = held_out(g, &rules);
            println!(
                "    held-out real set: {held_n} locations, placed {held_resolved}, wrong {held_wrong}"
            );
        }
        after = s;
    }
    real_forms(&plain, &g);
    println!("wrong rows (after): {}", after.wrong.len());
    for w in &after.wrong {
        println!(
            "  WRONG row {} {:?} ({}) place {:?} -> {} at {:.0} km",
            w.row, w.text, w.country_code, w.place, w.matched, w.km
        );
    }
    println!(
        "unresolved towns (after): {} (first {list})",
        after.unresolved.len()
    );
    for u in after.unresolved.iter().take(list) {
        println!(
            "  unresolved row {} {:?} ({}): {}",
            u.row, u.text, u.country_code, u.town
        );
    }
    println!("total time {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// Issue 30's real-forms set: before (issue 13's rules, GeoNames file alone) and after,
/// per class, with every wrong row and every unresolved one.
fn real_forms(plain: &Gazetteer, g: &Gazetteer) {
    let set = match eval::parse_real(include_str!("../tests/data/real_forms.tsv")) {
        Ok(s) => s,
        Err(e) => {
            println!("real-forms set: {e}");
            return;
        }
    };
    let rows: Vec<Row> = set.iter().map(|r| r.row.clone()).collect();
    let before = eval::score(plain, &rows, &Rules::ISSUE_13);
    let after = eval::score(g, &rows, &Rules::DEFAULT);
    println!("real-forms set before: {}", before.summary());
    println!("real-forms set after:  {}", after.summary());
    for class in Class::ALL {
        let part: Vec<Row> = set
            .iter()
            .filter(|r| r.class == class)
            .map(|r| r.row.clone())
            .collect();
        let b = eval::score(plain, &part, &Rules::ISSUE_13);
        let a = eval::score(g, &part, &Rules::DEFAULT);
        println!(
            "    {class}: {} rows, {} towns: right {} -> {}, wrong {} -> {}",
            part.len(),
            a.towns,
            b.right,
            a.right,
            b.wrong.len(),
            a.wrong.len()
        );
    }
    for w in &after.wrong {
        println!(
            "  real-forms WRONG {:?} ({}) -> {} at {:.0} km",
            w.text, w.country_code, w.matched, w.km
        );
    }
    for u in &after.unresolved {
        println!("  real-forms unresolved {:?} ({})", u.text, u.country_code);
    }
}

/// The held-out real set of issue 5 (`tests/data/eval_locations.tsv`), split the way its
/// test splits it: (placed, wrong, size).
fn held_out(g: &Gazetteer, rules: &Rules) -> (usize, usize, usize) {
    let raw = include_str!("../tests/data/eval_locations.tsv");
    let (mut placed, mut wrong, mut n) = (0, 0, 0);
    for line in raw
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let c: Vec<&str> = line.split('\t').collect();
        let (Some(text), Some(cc), Some(lat), Some(lon)) =
            (c.first(), c.get(1), c.get(2), c.get(3))
        else {
            continue;
        };
        let (Ok(lat), Ok(lon)) = (lat.parse::<f64>(), lon.parse::<f64>()) else {
            continue;
        };
        n += 1;
        let mut parts = text.split(", ").map(str::trim);
        let city = parts.next().unwrap_or_default();
        let regions: Vec<String> = parts.map(str::to_string).collect();
        let q = Query {
            city,
            regions: &regions,
            country_code: Some(cc),
        };
        if let Lookup::Found(m) = g.lookup_rules(&q, rules) {
            placed += 1;
            if haversine_km(lat, lon, m.lat, m.lon) > eval::RIGHT_KM {
                wrong += 1;
            }
        }
    }
    (placed, wrong, n)
}
