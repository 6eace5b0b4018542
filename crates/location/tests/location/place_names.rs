//! `parse_with` (issue 13): a gazetteer's name knowledge keeps comma names whole and makes
//! "Town, Town" two places of one step; without it (`parse`) nothing changes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_location::{NoNames, PlaceNames, parse, parse_with};

/// Knows one comma name and two pairs of neighbouring towns.
struct Known;

impl PlaceNames for Known {
    fn is_place_name(&self, name: &str, cc: &str) -> bool {
        name == "Sant Pere, Santa Caterina i La Ribera" && cc == "ES"
    }
    fn are_two_towns(&self, first: &str, second: &str, cc: &str) -> bool {
        matches!(
            (first, second, cc),
            ("Torres Vedras", "Odivelas", "PT") | ("Tukums", "Riga", "LV")
        )
    }
}

fn places(text: &str, band: &str) -> Vec<Vec<(String, String, Vec<String>)>> {
    parse_with(text, Some(band), &Known)
        .into_iter()
        .map(|s| {
            s.places
                .into_iter()
                .map(|p| (p.raw, p.city, p.regions))
                .collect()
        })
        .collect()
}

fn p(raw: &str, city: &str, regions: &[&str]) -> (String, String, Vec<String>) {
    (
        raw.to_owned(),
        city.to_owned(),
        regions.iter().map(|r| r.to_string()).collect(),
    )
}

#[test]
fn two_towns_are_two_places_of_one_step() {
    assert_eq!(
        places("Torres Vedras, Odivelas", "Portugal"),
        vec![vec![
            p("Torres Vedras", "Torres Vedras", &[]),
            p("Odivelas", "Odivelas", &[])
        ]]
    );
    // The country written after them stays in each place's text.
    assert_eq!(
        places("Tukums, Riga, Latvia (early); Riga (later)", "LV"),
        vec![
            vec![
                p("Tukums, Latvia", "Tukums", &[]),
                p("Riga, Latvia", "Riga", &[])
            ],
            vec![p("Riga", "Riga", &[])]
        ]
    );
    // Each stored text re-parses to itself.
    let step = &parse_with("Torres Vedras, Odivelas", Some("PT"), &Known)[0];
    for place in &step.places {
        let again = parse_with(&place.raw, Some("PT"), &Known);
        assert_eq!(again[0].places, vec![place.clone()]);
    }
}

#[test]
fn a_comma_inside_a_place_name_does_not_split_it() {
    assert_eq!(
        places("Sant Pere, Santa Caterina i La Ribera, Catalonia", "Spain"),
        vec![vec![p(
            "Sant Pere, Santa Caterina i La Ribera, Catalonia",
            "Sant Pere, Santa Caterina i La Ribera",
            &["Catalonia"]
        )]]
    );
}

#[test]
fn without_names_or_country_nothing_changes() {
    for text in [
        "Torres Vedras, Odivelas",
        "Sant Pere, Santa Caterina i La Ribera",
        "Bergen, Vestland (early); Oslo (later)",
    ] {
        assert_eq!(
            parse_with(text, Some("PT"), &NoNames),
            parse(text, Some("PT"))
        );
    }
    // Another country: the pair is unknown there.
    assert_eq!(
        places("Torres Vedras, Odivelas", "Spain"),
        vec![vec![p(
            "Torres Vedras, Odivelas",
            "Torres Vedras",
            &["Odivelas"]
        )]]
    );
    // No country at all: nothing to ask.
    let steps = parse_with("Torres Vedras, Odivelas", None, &Known);
    assert_eq!(steps[0].places.len(), 1);
}
