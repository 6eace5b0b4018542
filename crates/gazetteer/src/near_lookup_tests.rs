//! Issue 30's near spellings through the whole lookup, on a tiny file (names and places
//! after GeoNames, rounded; Burgstall and Burgstahl made up as two towns one slip from
//! the same written name).

use crate::{Gazetteer, Lookup, Query};

const DATA: &str = "\
R\t1\tDE\t1\tDE.07\tNordrhein-Westfalen\tNorth Rhine-Westphalia
R\t2\tDE\t1\tDE.02\tBayern\tBavaria
R\t3\tDE\t2\tDE.02.091\tOberbayern\tUpper Bavaria
P\t1\tMönchengladbach\t\tDE\tDE.07\t1\t51.18539\t6.44172\t261454
P\t2\tGuntersdorf\t\tDE\tDE.02\t2|3\t48.2\t11.9\t900
P\t3\tBurgstall\t\tDE\tDE.02\t2\t49.5\t11.0\t16000
P\t4\tBurgstahl\t\tDE\tDE.02\t2\t48.9\t12.5\t16500
";

fn look(city: &str, regions: &[&str]) -> Lookup {
    let g = match Gazetteer::from_reader(DATA.as_bytes()) {
        Ok(g) => g,
        Err(e) => panic!("test data must load: {e}"),
    };
    let regions: Vec<String> = regions.iter().map(|s| s.to_string()).collect();
    g.lookup(&Query {
        city,
        regions: &regions,
        country_code: Some("DE"),
    })
}

fn found(l: Lookup) -> (String, &'static str) {
    match l {
        Lookup::Found(m) => (m.name, m.matched_on),
        other => panic!("expected Found, got {other:?}"),
    }
}

#[test]
fn a_spelling_slip_of_a_town_is_that_town() {
    assert_eq!(
        found(look("Moenchengladbach", &[])),
        ("Mönchengladbach".into(), "near")
    );
    assert_eq!(
        found(look("Moenchengladbach", &["North Rhine-Westphalia"])),
        ("Mönchengladbach".into(), "near+region")
    );
}

#[test]
fn a_region_that_does_not_hold_it_refuses_it() {
    assert_eq!(look("Moenchengladbach", &["Bavaria"]), Lookup::NotFound);
}

#[test]
fn a_village_needs_a_small_region_to_confirm_a_typo() {
    assert_eq!(look("Gunthersdorf", &[]), Lookup::NotFound);
    assert_eq!(look("Gunthersdorf", &["Bavaria"]), Lookup::NotFound);
    assert_eq!(
        found(look("Gunthersdorf", &["Upper Bavaria"])),
        ("Guntersdorf".into(), "near+region")
    );
}

#[test]
fn never_across_two_candidates() {
    assert_eq!(
        look("Burgstal", &["Bavaria"]),
        Lookup::Ambiguous { candidates: 2 }
    );
}
