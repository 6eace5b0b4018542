//! Property tests: no parser panics, whatever the input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_upstream::parse::{
    block_page, parse_band_page, parse_change_page, parse_country_page, parse_discography,
    unwrap_json,
};
use proptest::prelude::*;

/// Strings made of HTML-ish and JSON-ish pieces, so inputs get past the first checks.
fn htmlish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<pre>".to_owned()),
        Just("</pre>".to_owned()),
        Just("<title>".to_owned()),
        Just("<h1 class=\"band_name\"><a href='https://x/bands/a/12'>".to_owned()),
        Just("<div id=\"band_stats\"><dl><dt>Formed in:</dt><dd>".to_owned()),
        Just("<table class=\"discog\"><tr><td><a href=\"/albums/a/b/3\">".to_owned()),
        Just("<table class=\"lineupTable\"><tr class=\"lineupRow\"><td>".to_owned()),
        Just("\"sEcho\": ,".to_owned()),
        Just("{\"aaData\":[[\"<a href='/bands/x/1'>x</a>\"".to_owned()),
        Just("&amp;&#x;&nbsp;é".to_owned()),
        "\\PC{0,12}",
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(s in "\\PC{0,400}") {
        let _ = unwrap_json(&s);
        let _ = block_page(&s);
        let _ = parse_band_page(&s);
        let _ = parse_discography(&s);
    }

    #[test]
    fn htmlish_strings(s in htmlish()) {
        let _ = block_page(&s);
        let _ = parse_band_page(&s);
        let _ = parse_discography(&s);
        if let Ok(v) = unwrap_json(&s) {
            let _ = parse_country_page(&v);
            let _ = parse_change_page(&v);
        }
    }

    #[test]
    fn arbitrary_rows(cells in proptest::collection::vec(proptest::collection::vec("\\PC{0,40}", 0..7), 0..8)) {
        let v = serde_json::json!({"iTotalRecords": "12", "aaData": cells});
        let page = parse_country_page(&v).unwrap();
        prop_assert_eq!(page.rows.len() + page.skipped, cells.len());
        let page = parse_change_page(&v).unwrap();
        prop_assert_eq!(page.rows.len() + page.skipped, cells.len());
    }
}
