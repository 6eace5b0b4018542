//! Issue 13's thresholds on a bounded sample of the generated set (the full 100,000 rows:
//! `bench/gazetteer-precision.sh`): offline — location parser, gazetteer, rule 15's
//! confidence floor, no provider, no LLM — at least 97 % of the true towns placed within
//! 25 km and at most 0.01 % of them placed wrongly. Skipped (with a message) only when
//! the data file is absent and BANDMAP_REQUIRE_GAZETTEER is unset.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use bandmap_gazetteer::eval::{self, Form};
use bandmap_gazetteer::{Gazetteer, Rules};

/// Rows of the sample: a few thousand, so the test stays a test.
const SAMPLE_ROWS: usize = 4_000;
/// Not the bench's seed (13): the sample is not the set the rules were tuned on.
const SEED: u64 = 2026;

fn europe() -> Option<Gazetteer> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/gazetteer/europe.tsv");
    if !path.exists() {
        assert!(
            std::env::var_os("BANDMAP_REQUIRE_GAZETTEER").is_none(),
            "{} is absent but BANDMAP_REQUIRE_GAZETTEER is set",
            path.display()
        );
        eprintln!(
            "SKIPPED precision: {} is absent; run scripts/fetch-gazetteer.sh",
            path.display()
        );
        return None;
    }
    Some(Gazetteer::load(&path).expect("load europe.tsv"))
}

#[test]
fn generated_sample_meets_the_issue_13_thresholds() {
    let Some(g) = europe() else { return };
    let rows = eval::generate(&g, SEED, SAMPLE_ROWS);
    assert_eq!(rows.len(), SAMPLE_ROWS);
    // Every form of the upstream is in the sample.
    for form in [
        Form::Town,
        Form::TownRegion,
        Form::TownTown,
        Form::Steps,
        Form::NotAvailable,
        Form::Unknown,
    ] {
        assert!(rows.iter().any(|r| r.form == form), "no {form:?} row");
    }
    let before = eval::score(&g, &rows, &Rules::ISSUE_5);
    let after = eval::score(&g, &rows, &Rules::DEFAULT);
    println!("before: {}", before.summary());
    println!("after:  {}", after.summary());
    for w in &after.wrong {
        println!(
            "WRONG row {} {:?} ({}) {:?} -> {} at {:.0} km",
            w.row, w.text, w.country_code, w.place, w.matched, w.km
        );
    }
    assert!(after.towns > SAMPLE_ROWS, "two-town rows name two towns");
    assert!(
        after.right_pct() >= 97.0,
        "placed within 25 km: {:.2} % < 97 %",
        after.right_pct()
    );
    assert!(
        after.wrong.len() * 10_000 <= after.towns,
        "wrong: {} of {} > 0.01 %",
        after.wrong.len(),
        after.towns
    );
    assert!(after.right > before.right, "issue 13's rules place more");
}

#[test]
fn generator_is_deterministic() {
    let Some(g) = europe() else { return };
    let a = eval::generate(&g, 7, 500);
    assert_eq!(a, eval::generate(&g, 7, 500));
    assert_ne!(a, eval::generate(&g, 8, 500));
    for r in &a {
        match r.form {
            Form::NotAvailable | Form::Unknown => assert!(r.truth.is_empty()),
            Form::TownTown | Form::Steps => assert_eq!(r.truth.len(), 2, "{r:?}"),
            Form::Town | Form::TownRegion => assert_eq!(r.truth.len(), 1, "{r:?}"),
        }
    }
}

/// The issue's own examples, on the real data.
#[test]
fn the_issue_13_examples() {
    use bandmap_gazetteer::{Lookup, Query};
    let Some(g) = europe() else { return };
    let look = |city: &str, regions: &[&str], cc: &str| {
        let regions: Vec<String> = regions.iter().map(|s| s.to_string()).collect();
        match g.lookup(&Query {
            city,
            regions: &regions,
            country_code: Some(cc),
        }) {
            Lookup::Found(m) => Some((m.name, m.lat, m.lon)),
            _ => None,
        }
    };
    let near = |got: Option<(String, f64, f64)>, lat: f64, lon: f64| {
        got.is_some_and(|(_, a, b)| bandmap_gazetteer::haversine_km(a, b, lat, lon) < 25.0)
    };
    // Current names beat former and alternate ones.
    assert!(
        near(look("Kaliningrad", &[], "RU"), 54.71, 20.51),
        "Kaliningrad"
    );
    assert!(
        near(look("Kuybyshev", &[], "RU"), 55.45, 78.31),
        "Kuybyshev is not Samara"
    );
    assert!(near(look("Eger", &[], "HU"), 47.90, 20.37), "Eger");
    // A town before villages.
    assert!(
        near(look("Hengelo", &[], "NL"), 52.27, 6.79),
        "Hengelo, Overijssel"
    );
    // Two towns in one step: each is a place.
    assert!(near(
        look("Torres Vedras", &["Odivelas"], "PT"),
        39.09,
        -9.26
    ));
    assert!(near(look("Tukums", &["Riga"], "LV"), 56.97, 23.16));
    // A name with a comma is one place.
    assert!(near(
        look("Sant Pere", &["Santa Caterina i La Ribera"], "ES"),
        41.39,
        2.18
    ));
}
