//! Unit tests on a tiny hand-written file (format of docs/gazetteer.md).

use super::*;

const TINY: &str = "\
# tiny test gazetteer
R\t1\tDE\t1\tDE.02\tBayern\tBavaria|Free State of Bavaria
R\t2\tDE\t1\tDE.07\tNordrhein-Westfalen\tNorth Rhine-Westphalia
R\t3\tNO\t1\tNO.46\tVestland\tHordaland|Sogn og Fjordane
R\t4\tNO\t1\tNO.01\tAkershus\tViken
R\t5\tGB\t1\tGB.ENG\tEngland\t
R\t6\tGB\t2\tGB.ENG.E4\tEssex\t
R\t7\tGB\t2\tGB.ENG.K2\tSouthend-on-Sea\t
R\t8\tIT\t1\tIT.15\tSicilia\tSicily
R\t9\tDE\t1\tDE.01\tBaden-Württemberg\t
P\t1\tMunich\tMünchen|Monaco di Baviera\tDE\tDE.02\t1\t48.13743\t11.57549\t1505005
P\t2\tNeustadt\t\tDE\tDE.02\t1\t49.7\t12.1\t5000
P\t3\tNeustadt\t\tDE\tDE.07\t2\t51.2\t7.0\t4000
P\t4\tNeustadt\t\tDE\tDE.01\t9\t48.0\t8.2\t3000
P\t5\tBergen\tBjörgvin\tNO\tNO.46\t3\t60.39299\t5.32415\t294029
P\t6\tKolbotn\t\tNO\tNO.01\t4\t59.81056\t10.80389\t0
P\t7\tHarlow\t\tGB\tGB.ENG\t5|6\t51.77655\t0.11158\t93300
P\t8\tSouthend-on-Sea\t\tGB\tGB.ENG\t5|7\t51.53782\t0.71433\t175547
P\t9\tNewport\t\tGB\tGB.ENG\t5\t50.7\t-1.3\t25000
P\t10\tNewport\t\tGB\tGB.ENG\t5|6\t51.98\t0.21\t2000
P\t11\tAachen\t\tDE\tDE.07\t2\t50.77664\t6.08342\t265985
P\t12\tAachen\t\tDE\tDE.02\t1\t48.9\t11.0\t600
P\t13\tZürich\tZurich\tCH\tCH.ZH\t\t47.36667\t8.55\t341730
P\t14\tGießen\t\tDE\tDE.05\t\t50.58727\t8.67554\t89802
P\t15\tCatania\t\tIT\tIT.15\t8\t37.49223\t15.07041\t290927
P\t16\tBergen\t\tNL\tNL.07\t\t52.66917\t4.70417\t29715
P\t17\tBergen\t\tNL\tNL.05\t\t51.6\t6.03\t13000
P\t18\tEssen\t\tDE\tDE.07\t2\t51.45657\t7.01228\t593085
P\t19\tEssen Altstadt\tEssen\tDE\tDE.07\t2\t51.455\t7.013\t20000
";

fn gaz() -> Gazetteer {
    match Gazetteer::from_reader(TINY.as_bytes()) {
        Ok(g) => g,
        Err(e) => panic!("tiny gazetteer must load: {e}"),
    }
}

fn look(g: &Gazetteer, city: &str, regions: &[&str], cc: Option<&str>) -> Lookup {
    let regions: Vec<String> = regions.iter().map(|s| s.to_string()).collect();
    g.lookup(&Query {
        city,
        regions: &regions,
        country_code: cc,
    })
}

fn found(l: Lookup) -> Match {
    match l {
        Lookup::Found(m) => m,
        other => panic!("expected Found, got {other:?}"),
    }
}

#[test]
fn loads_all_places() {
    assert_eq!(gaz().len(), 19);
}

#[test]
fn unique_name_in_country() {
    let m = found(look(&gaz(), "bergen", &[], Some("NO")));
    assert_eq!(m.geonameid, 5);
    assert_eq!(m.matched_on, "name");
    assert!((m.confidence - 0.9).abs() < 1e-9);
    assert_eq!(m.admin1.as_deref(), Some("Vestland"));
    assert_eq!(m.granularity, "city");
}

#[test]
fn same_name_without_region_is_ambiguous() {
    assert_eq!(
        look(&gaz(), "Neustadt", &[], Some("DE")),
        Lookup::Ambiguous { candidates: 3 }
    );
    assert_eq!(
        look(&gaz(), "Bergen", &[], Some("NL")),
        Lookup::Ambiguous { candidates: 2 }
    );
    // Across Europe with no country, Bergen is ambiguous too.
    assert!(matches!(
        look(&gaz(), "Bergen", &[], None),
        Lookup::Ambiguous { .. }
    ));
}

#[test]
fn region_singles_out() {
    let m = found(look(&gaz(), "Neustadt", &["Bavaria"], Some("DE")));
    assert_eq!((m.geonameid, m.matched_on), (2, "name+region"));
    assert!((m.confidence - 0.95).abs() < 1e-9);
    let m = found(look(
        &gaz(),
        "Neustadt",
        &["Nordrhein-Westfalen"],
        Some("DE"),
    ));
    assert_eq!(m.geonameid, 3);
    // Folding of region names: missing hyphen, missing umlaut.
    let m = found(look(&gaz(), "Neustadt", &["Baden Wurttemberg"], Some("DE")));
    assert_eq!(m.geonameid, 4);
}

#[test]
fn unknown_region_falls_back_but_never_guesses() {
    // Unknown region text is ignored: unique names still resolve (lower confidence) …
    let m = found(look(&gaz(), "Bergen", &["Bergenhus"], Some("NO")));
    assert_eq!(m.geonameid, 5);
    assert!(m.confidence < 0.9);
    // … shared names stay ambiguous.
    assert_eq!(
        look(&gaz(), "Neustadt", &["Franconia"], Some("DE")),
        Lookup::Ambiguous { candidates: 3 }
    );
}

#[test]
fn old_region_names_are_aliases() {
    assert_eq!(
        found(look(&gaz(), "Bergen", &["Hordaland"], Some("NO"))).matched_on,
        "name+region"
    );
    assert_eq!(
        found(look(&gaz(), "Kolbotn", &["Viken"], Some("NO"))).geonameid,
        6
    );
}

#[test]
fn known_region_without_that_place_is_not_found() {
    // Bavaria has no Bergen in the data: do not fall back to Bergen, Vestland.
    assert_eq!(
        look(&gaz(), "Bergen", &["Vestland"], Some("DE")),
        Lookup::NotFound
    );
    assert_eq!(
        look(&gaz(), "Neustadt", &["Sicily"], Some("IT")),
        Lookup::NotFound
    );
}

#[test]
fn uk_county_and_nation() {
    let m = found(look(&gaz(), "Harlow", &["Essex", "England"], Some("GB")));
    assert_eq!((m.geonameid, m.matched_on), (7, "name+region"));
    // Newport: two in England, one in Essex.
    assert_eq!(
        found(look(&gaz(), "Newport", &["Essex", "England"], Some("GB"))).geonameid,
        10
    );
    assert!(matches!(
        look(&gaz(), "Newport", &["England"], Some("GB")),
        Lookup::Ambiguous { .. }
    ));
    // Southend is its own unitary authority, not in GeoNames' Essex: the nation still holds.
    let m = found(look(
        &gaz(),
        "Southend-on-Sea",
        &["Essex", "England"],
        Some("GB"),
    ));
    assert_eq!((m.geonameid, m.matched_on), (8, "name+admin1"));
}

#[test]
fn alternates_and_folding() {
    let g = gaz();
    let m = found(look(&g, "München", &["Bayern"], Some("DE")));
    assert_eq!((m.geonameid, m.matched_on), (1, "alternate+region"));
    let m = found(look(&g, "MUNCHEN", &[], Some("de")));
    assert_eq!((m.geonameid, m.matched_on), (1, "alternate"));
    assert!((m.confidence - 0.85).abs() < 1e-9);
    assert_eq!(found(look(&g, "Zurich", &[], Some("CH"))).geonameid, 13);
    assert_eq!(found(look(&g, "zürich", &[], Some("CH"))).geonameid, 13);
    assert_eq!(found(look(&g, "Giessen", &[], Some("DE"))).geonameid, 14);
    assert_eq!(found(look(&g, "Björgvin", &[], Some("NO"))).geonameid, 5);
}

#[test]
fn dominance_policy() {
    // Aachen (266k) vs a village of 600: ≥ 20× and ≥ 50k → taken, below 0.9.
    let m = found(look(&gaz(), "Aachen", &[], Some("DE")));
    assert_eq!((m.geonameid, m.matched_on), (11, "name+population"));
    assert!(m.confidence >= 0.7 && m.confidence < 0.9);
    // Region confirms it.
    assert_eq!(
        found(look(
            &gaz(),
            "Aachen",
            &["North Rhine-Westphalia"],
            Some("DE")
        ))
        .matched_on,
        "name+region"
    );
}

#[test]
fn same_spot_cluster_is_one_place() {
    let m = found(look(&gaz(), "Essen", &[], Some("DE")));
    assert_eq!(m.geonameid, 18);
}

#[test]
fn country_restricts_and_bad_input_is_not_found() {
    let g = gaz();
    assert_eq!(look(&g, "Munich", &[], Some("AT")), Lookup::NotFound);
    assert_eq!(look(&g, "Munich", &[], Some("Germany")), Lookup::NotFound);
    assert_eq!(look(&g, "", &[], Some("DE")), Lookup::NotFound);
    assert_eq!(look(&g, " - ", &[], Some("DE")), Lookup::NotFound);
    assert_eq!(look(&g, "Atlantis", &[], None), Lookup::NotFound);
    let m = found(look(&g, "Catania", &["Sicily"], None));
    assert!((m.confidence - 0.85).abs() < 1e-9);
}

#[test]
fn malformed_lines_are_errors_with_line_numbers() {
    let bad = "# c\nP\t1\tX\t\tDE\t\t\tnot-a-number\t1\t1\n";
    match Gazetteer::from_reader(bad.as_bytes()) {
        Err(GazetteerError::Format { line: 2, .. }) => {}
        other => panic!("expected a format error on line 2, got {other:?}"),
    }
    assert!(Gazetteer::from_reader("X\t1\n".as_bytes()).is_err());
    assert!(Gazetteer::from_reader("".as_bytes()).is_ok_and(|g| g.is_empty()));
}
