//! Property tests: on arbitrary Unicode and on strings assembled from the grammar's own
//! tokens, `parse` never panics, numbers its steps 0..n, returns clean non-empty names,
//! and re-parsing a place's `raw` gives back that place.

use bandmap_location::{Step, countries, parse};
use proptest::prelude::*;

/// Pieces of MA location grammar plus troublemakers (controls, combining marks, stray
/// parentheses, scripts), so random concatenations hit the interesting paths often.
const TOKENS: &[&str] = &[
    "Oslo",
    "Bergen",
    "Vestland",
    "Møre and Romsdal",
    "Norway",
    "UK",
    "England",
    "NO",
    "CA",
    "Georgia",
    "Macedonia",
    "Luxembourg",
    "Hong Kong",
    "İstanbul",
    "ı",
    "Αθήνα",
    "Москва",
    "(early)",
    "(mid)",
    "(later)",
    "(early/mid)",
    "(1990-1995)",
    "(Syracuse)",
    "(",
    ")",
    ",",
    ", ",
    ";",
    "; ",
    "/",
    " / ",
    "\\",
    " ",
    "  ",
    "N/A",
    "n/a",
    "Unknown",
    "?",
    "-",
    ".",
    "'",
    "\u{0}",
    "\t",
    "\n",
    "\u{7f}",
    "\u{85}",
    "\u{200B}",
    "\u{301}",
    "\u{308}",
    "e",
    "St.",
    "&",
];

fn grammar_string() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..16).prop_map(|v| v.concat())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), grammar_string()]
}

fn band() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        prop::sample::select(vec![
            "NO", "GB", "US", "GR", "Norway", "XX", "zz", "Nowhere"
        ])
        .prop_map(|s| Some(s.to_owned())),
        any::<String>().prop_map(Some),
    ]
}

fn has_control(s: &str) -> bool {
    s.chars().any(char::is_control)
}

fn check_invariants(steps: &[Step]) -> Result<(), TestCaseError> {
    for (i, step) in steps.iter().enumerate() {
        prop_assert_eq!(step.order, i32::try_from(i).unwrap_or(-1));
        prop_assert!(!step.label.trim().is_empty());
        prop_assert!(!has_control(&step.label));
        prop_assert!(!step.places.is_empty());
        for p in &step.places {
            prop_assert!(!p.city.is_empty());
            prop_assert_eq!(p.city.trim(), p.city.as_str());
            prop_assert!(!p.raw.is_empty());
            prop_assert!(p.raw.starts_with(p.city.as_str()));
            prop_assert!(![&p.raw, &p.city].iter().any(|s| has_control(s)));
            prop_assert!(p.regions.iter().all(|r| !r.is_empty() && !has_control(r)));
            if let Some(cc) = &p.country_code {
                prop_assert!(countries::by_code(cc).is_some_and(|c| !c.is_pseudo()));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn never_panics_and_output_is_clean(text in any_text(), band in band()) {
        let steps = parse(&text, band.as_deref());
        check_invariants(&steps)?;
        prop_assert_eq!(&steps, &parse(&text, band.as_deref()));
    }

    #[test]
    fn raw_reparses_to_the_same_place(text in any_text(), band in band()) {
        for step in parse(&text, band.as_deref()) {
            for place in step.places {
                let again = parse(&place.raw, band.as_deref());
                prop_assert_eq!(again.len(), 1, "raw {:?}", place.raw);
                prop_assert_eq!(&again[0].places, &vec![place.clone()]);
            }
        }
    }

    #[test]
    fn surrounding_whitespace_and_controls_do_not_matter(text in any_text()) {
        let padded = format!(" \t{text}\u{0} \n");
        prop_assert_eq!(parse(&padded, Some("NO")), parse(&text, Some("NO")));
    }

    #[test]
    fn and_and_ampersand_never_split(a in "[a-z]{3,8}", b in "[a-z]{3,8}", amp in any::<bool>()) {
        let name = format!("X{a} {} X{b}", if amp { "&" } else { "and" });
        let steps = parse(&name, Some("NO"));
        prop_assert_eq!(steps.len(), 1);
        prop_assert_eq!(steps[0].places.len(), 1);
        prop_assert_eq!(&steps[0].places[0].city, &name);
    }

    #[test]
    fn slashes_always_split(a in "[a-z]{3,8}", b in "[a-z]{3,8}", back in any::<bool>()) {
        let text = format!("X{a}{}X{b}", if back { " \\ " } else { "/" });
        let steps = parse(&text, Some("NO"));
        prop_assert_eq!(steps.len(), 1);
        let cities: Vec<&str> = steps[0].places.iter().map(|p| p.city.as_str()).collect();
        let (xa, xb) = (format!("X{a}"), format!("X{b}"));
        let expected: Vec<&str> = if a == b { vec![&xa] } else { vec![&xa, &xb] };
        prop_assert_eq!(cities, expected);
    }
}
