//! Held-out evaluation on the real Europe file: share of band locations resolved and
//! share resolved wrongly (> 25 km from the truth). Targets of issue 5: 0 wrong,
//! ≥ 75 % resolved. Skipped (with a message) only when the data file is absent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use bandmap_gazetteer::{Dominance, Gazetteer, Lookup, Query, haversine_km};

const WRONG_KM: f64 = 25.0;
/// Locations of the held-out set resolved under issue 5's rules, before issue 13.
const HELD_OUT_RESOLVED_ISSUE_5: usize = 654;

struct Case {
    text: String,
    cc: String,
    lat: f64,
    lon: f64,
}

fn cases() -> Vec<Case> {
    let raw = include_str!("../data/eval_locations.tsv");
    raw.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 4, "bad eval line {l:?}");
            Case {
                text: c[0].to_string(),
                cc: c[1].to_string(),
                lat: c[2].parse().unwrap(),
                lon: c[3].parse().unwrap(),
            }
        })
        .collect()
}

/// A deliberately simple split (the real parser lives in crates/location).
fn split(text: &str) -> (String, Vec<String>) {
    let mut parts = text.split(", ").map(str::trim);
    let city = parts.next().unwrap_or("").to_string();
    (city, parts.map(str::to_string).collect())
}

/// The real data file, or None when it is absent and the environment allows skipping.
fn europe_path(test: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv");
    if !path.exists() {
        // The test command (scripts/test.sh) fetches the data first and sets this, so there
        // the evaluation can never be skipped silently.
        assert!(
            std::env::var_os("BANDMAP_REQUIRE_GAZETTEER").is_none(),
            "{} is absent but BANDMAP_REQUIRE_GAZETTEER is set",
            path.display()
        );
        eprintln!(
            "SKIPPED {test}: {} is absent; run scripts/fetch-gazetteer.sh",
            path.display()
        );
        return None;
    }
    Some(path)
}

/// Resolved and wrong (> 25 km) counts under one population rule.
fn score(g: &Gazetteer, cases: &[Case], dominance: Option<Dominance>) -> (usize, usize) {
    let (mut resolved, mut wrong) = (0, 0);
    for c in cases {
        let (city, regions) = split(&c.text);
        let q = Query {
            city: &city,
            regions: &regions,
            country_code: Some(&c.cc),
        };
        if let Lookup::Found(m) = g.lookup_with(&q, dominance) {
            resolved += 1;
            if haversine_km(c.lat, c.lon, m.lat, m.lon) > WRONG_KM {
                wrong += 1;
            }
        }
    }
    (resolved, wrong)
}

/// The decision of docs/gazetteer.md on the population ("dominance") rule: figures of
/// the held-out set without it, with a loose one and with the rule in force, which must
/// keep 0 wrong and ≥ 75 % resolved.
#[test]
fn dominance_rules_compared_on_the_held_out_set() {
    let Some(path) = europe_path("dominance_rules_compared_on_the_held_out_set") else {
        return;
    };
    let g = Gazetteer::load(&path).expect("load europe.tsv");
    let cases = cases();
    let n = cases.len() as f64;
    let rules: [(&str, Option<Dominance>); 5] = [
        ("none (ambiguous unless the region decides)", None),
        (
            "most populous of several (any size, ratio 1)",
            Some(Dominance {
                min_population: 0,
                ratio: 1,
                town_ratio: 0,
            }),
        ),
        (
            "population >= 10,000 and ratio >= 5",
            Some(Dominance {
                min_population: 10_000,
                ratio: 5,
                town_ratio: 0,
            }),
        ),
        (
            "issue 5: population >= 50,000 and ratio >= 20",
            Some(Dominance {
                town_ratio: 0,
                ..Dominance::DEFAULT
            }),
        ),
        (
            "in force: issue 5's, or a town >= 15,000 by its main name >= 5x villages only",
            Some(Dominance::DEFAULT),
        ),
    ];
    let mut in_force = (0, 0);
    for (name, rule) in rules {
        let (resolved, wrong) = score(&g, &cases, rule);
        println!(
            "dominance {name}: resolved {resolved}/{} ({:.1} %), wrong {wrong} ({:.1} %)",
            cases.len(),
            100.0 * resolved as f64 / n,
            100.0 * wrong as f64 / n
        );
        if rule == Some(Dominance::DEFAULT) {
            in_force = (resolved, wrong);
        }
    }
    // The places only the rule in force resolves, and the loose rule's wrong picks: the
    // cases the decision rests on.
    for c in &cases {
        let (city, regions) = split(&c.text);
        let q = Query {
            city: &city,
            regions: &regions,
            country_code: Some(&c.cc),
        };
        let loose = Some(Dominance {
            min_population: 0,
            ratio: 1,
            town_ratio: 0,
        });
        let found = |d| match g.lookup_with(&q, d) {
            Lookup::Found(m) => Some(haversine_km(c.lat, c.lon, m.lat, m.lon)),
            _ => None,
        };
        match (found(None), found(Some(Dominance::DEFAULT)), found(loose)) {
            (None, Some(km), _) => {
                println!("  by dominance: {:?} ({}) at {km:.1} km", c.text, c.cc)
            }
            (_, _, Some(km)) if km > WRONG_KM => {
                println!("  loose rule wrong: {:?} ({}) at {km:.0} km", c.text, c.cc)
            }
            _ => {}
        }
    }
    let (none_resolved, _) = score(&g, &cases, None);
    assert!(in_force.0 >= none_resolved, "a rule can only add matches");
    assert_eq!(in_force.1, 0, "the rule in force resolves nothing wrongly");
    assert!(100.0 * in_force.0 as f64 / n >= 75.0);
}

#[test]
fn europe_eval() {
    let Some(path) = europe_path("europe_eval") else {
        return;
    };
    let t = Instant::now();
    let g = Gazetteer::load(&path).expect("load europe.tsv");
    eprintln!(
        "loaded {} places in {:.0} ms",
        g.len(),
        t.elapsed().as_secs_f64() * 1e3
    );

    let cases = cases();
    assert!(
        cases.len() >= 200,
        "eval set must hold at least 200 locations"
    );
    let (mut resolved, mut wrong, mut ambiguous, mut not_found, mut trusted) = (0, 0, 0, 0, 0);
    for c in &cases {
        let (city, regions) = split(&c.text);
        let q = Query {
            city: &city,
            regions: &regions,
            country_code: Some(&c.cc),
        };
        match g.lookup(&q) {
            Lookup::Found(m) => {
                resolved += 1;
                if m.confidence >= 0.7 {
                    trusted += 1;
                }
                let d = haversine_km(c.lat, c.lon, m.lat, m.lon);
                if d > WRONG_KM {
                    wrong += 1;
                    eprintln!(
                        "WRONG {:?} ({}) -> {} {:?} at {:.1} km, conf {:.2} via {}",
                        c.text, c.cc, m.geonameid, m.name, d, m.confidence, m.matched_on
                    );
                } else if d > 5.0 {
                    eprintln!(
                        "far   {:?} ({}) -> {:?} at {:.1} km",
                        c.text, c.cc, m.name, d
                    );
                }
            }
            Lookup::Ambiguous { candidates } => {
                ambiguous += 1;
                eprintln!("ambiguous ({candidates}) {:?} ({})", c.text, c.cc);
            }
            Lookup::NotFound => {
                not_found += 1;
                eprintln!("not found {:?} ({})", c.text, c.cc);
            }
            Lookup::RegionOnly { region } => {
                not_found += 1;
                eprintln!("region only ({region}) {:?} ({})", c.text, c.cc);
            }
        }
    }
    let n = cases.len() as f64;
    let resolved_pct = 100.0 * resolved as f64 / n;
    let wrong_pct = 100.0 * wrong as f64 / n;
    println!(
        "europe_eval: {} locations, resolved {resolved} ({resolved_pct:.1} %), wrong {wrong} ({wrong_pct:.1} %), confidence>=0.7 {trusted}, ambiguous {ambiguous}, not found {not_found}",
        cases.len()
    );
    eprintln!(
        "europe_eval: {} locations, resolved {resolved} ({resolved_pct:.1} %), wrong {wrong} ({wrong_pct:.1} %), ambiguous {ambiguous}, not found {not_found}",
        cases.len()
    );
    assert_eq!(wrong, 0, "no location may resolve to a wrong place");
    assert!(resolved_pct >= 75.0, "resolved {resolved_pct:.1} % < 75 %");
    // Issue 13: no fewer placed than before its rules (654 of 660 under issue 5's).
    assert!(
        resolved >= HELD_OUT_RESOLVED_ISSUE_5,
        "resolved {resolved} < {HELD_OUT_RESOLVED_ISSUE_5}"
    );
}
