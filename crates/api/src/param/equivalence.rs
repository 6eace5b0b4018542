//! Property: the typed query parameters accept what the hand parsers they replaced
//! accepted ([`super::oracle`]), with the same values, and refuse the rest with the same
//! 400 messages. With several bad values the typed parser names the first of them in the
//! query string, the old one the first in its own order: the message is then one of the
//! messages the old parser gave for each parameter alone.
#![allow(clippy::unwrap_used)]

use super::oracle::{self, Raw};
use crate::admin::bands::BandListParams;
use crate::extract::Query;
use proptest::prelude::*;

/// What `crate::extract::Query` answers for the query of `pairs`: the value, or the
/// message of the 400.
fn typed<T: serde::de::DeserializeOwned>(pairs: Raw<'_>) -> Result<T, String> {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs.iter())
        .finish();
    let uri: axum::http::Uri = format!("/x?{query}").parse().unwrap();
    let mut parts = axum::http::Request::builder()
        .uri(uri)
        .body(())
        .unwrap()
        .into_parts()
        .0;
    let got = futures::executor::block_on(
        <Query<T> as axum::extract::FromRequestParts<()>>::from_request_parts(&mut parts, &()),
    );
    got.map(|q| q.0).map_err(|e| e.to_string())
}

/// Checks the typed answer against the old one, for the whole query and each parameter
/// alone.
fn same<A: std::fmt::Debug, B: std::fmt::Debug>(
    pairs: Raw<'_>,
    new: Result<A, String>,
    old: impl Fn(Raw<'_>) -> Result<B, crate::error::ApiError>,
) -> Result<(), TestCaseError> {
    match (new, old(pairs)) {
        (Ok(new), Ok(old)) => prop_assert_eq!(format!("{new:?}"), format!("{old:?}")),
        (Err(new), Err(_)) => {
            let alone: Vec<String> = pairs
                .iter()
                .filter_map(|p| old(std::slice::from_ref(p)).err())
                .map(|e| e.to_string())
                .collect();
            prop_assert!(alone.contains(&new), "{new:?} not among {alone:?}");
        }
        (new, old) => prop_assert!(false, "typed {new:?}, old {old:?}"),
    }
    Ok(())
}

/// A value: often one a client sends, else text of the characters parsers trip on.
fn value(samples: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(samples).prop_map(str::to_string),
        "[-0-9a-zA-Z.,% \\t\\x01]{0,12}",
        Just("x".repeat(101)),
    ]
}

const MAP: &[&str] = &[
    "",
    " ",
    "1,2,3,4",
    "-10,35,30,60",
    "5,0,4,1",
    "0,0,181,0",
    "NaN,1,2,3",
    "3",
    "20",
    "21",
    "-1",
    "1990",
    "199x",
    "black",
    "Doom, black",
    "polka",
    "black,polka",
    " , ",
    "families",
    "FAMILIES",
    "Families",
    "Norway",
    "NO",
    "Black Metal",
    "\u{1}",
];

fn map_query() -> impl Strategy<Value = Vec<(&'static str, String)>> {
    let names = [
        "bbox",
        "zoom",
        "genre",
        "country",
        "status",
        "year_min",
        "year_max",
        "family",
        "breakdown",
        "unknown",
    ];
    proptest::sample::subsequence(names.to_vec(), 0..=names.len()).prop_flat_map(|keys| {
        keys.into_iter()
            .map(|k| value(MAP).prop_map(move |v| (k, v)))
            .collect::<Vec<_>>()
    })
}

const BANDS: &[&str] = &[
    "",
    " ",
    "666",
    " 42 ",
    "-3",
    "abc",
    "1.5",
    "9999",
    "true",
    "false",
    "1",
    "0",
    "yes",
    "TRUE",
    "name",
    "-updated_at",
    "ma_id",
    "NAME",
    "bogus",
    "Norway",
    "50%_off\\",
    "\u{7f}",
];

fn bands_query() -> impl Strategy<Value = Vec<(&'static str, String)>> {
    let names = [
        "q",
        "location_q",
        "themes_q",
        "genre",
        "country",
        "status",
        "has_lat",
        "has_location",
        "has_conflict",
        "sort",
        "limit",
        "offset",
        "unknown",
    ];
    proptest::sample::subsequence(names.to_vec(), 0..=names.len()).prop_flat_map(|keys| {
        keys.into_iter()
            .map(|k| value(BANDS).prop_map(move |v| (k, v)))
            .collect::<Vec<_>>()
    })
}

fn borrowed<'a>(q: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    q.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// The old clusters' answer, with the breakdown's spelling now in any case (CONTRACT does
/// not name it; the map sends `families`).
fn old_clusters(
    raw: Raw<'_>,
) -> Result<(bandmap_index::map::ClusterQuery, bool), crate::error::ApiError> {
    let lower: Vec<(&str, String)> = raw
        .iter()
        .map(|(k, v)| {
            let v = if *k == "breakdown" && v.trim().eq_ignore_ascii_case("families") {
                "families".to_string()
            } else {
                v.to_string()
            };
            (*k, v)
        })
        .collect();
    let lower: Vec<(&str, &str)> = lower.iter().map(|(k, v)| (*k, v.as_str())).collect();
    oracle::clusters(&lower)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn clusters_parse_as_before(q in map_query()) {
        let pairs = borrowed(&q);
        let new = typed::<crate::public::clusters::ClustersParams>(&pairs).map(|p| {
            let (view, breakdown) = p.request();
            let query = bandmap_index::map::ClusterQuery {
                bbox: view.bbox,
                zoom: view.zoom,
                filter: view.filter,
            };
            (query, breakdown)
        });
        same(&pairs, new, old_clusters)?;
    }

    #[test]
    fn the_map_filters_parse_as_before(q in map_query()) {
        let pairs: Vec<(&str, &str)> = borrowed(&q)
            .into_iter()
            .filter(|(k, _)| !["bbox", "zoom", "breakdown"].contains(k))
            .collect();
        let new = typed::<crate::public::params::MapFilterParams>(&pairs).map(|p| p.filter());
        same(&pairs, new, oracle::filter)?;
    }

    #[test]
    fn the_flows_limit_parses_as_before(v in value(&["", "1", "50", "200", "201", "0", "x"])) {
        let pairs = [("limit", v.as_str())];
        let new = typed::<crate::public::flows::params::FlowsParams>(&pairs)
            .map(|p| p.parse().1.limit);
        same(&pairs, new, |raw| oracle::flows_limit(raw.first().map(|p| p.1)))?;
    }

    #[test]
    fn the_band_list_parses_as_before(q in bands_query()) {
        let pairs = borrowed(&q);
        let new = typed::<BandListParams>(&pairs).map(BandListParams::into_filter);
        same(&pairs, new, oracle::band_list)?;
    }
}

#[test]
fn a_parameter_given_twice_is_refused_as_before() {
    let new = typed::<crate::public::clusters::ClustersParams>(&[("zoom", "3"), ("zoom", "4")]);
    assert_eq!(
        new.unwrap_err(),
        "invalid query: Failed to deserialize query string: duplicate field `zoom`"
    );
}

#[test]
fn enum_values_in_another_case_are_accepted() {
    let p = typed::<crate::public::clusters::ClustersParams>(&[
        ("breakdown", "FAMILIES"),
        ("family", "BLACK,Doom"),
    ])
    .unwrap();
    let (view, breakdown) = p.request();
    assert!(breakdown);
    assert_ne!(view.filter, bandmap_index::map::Filter::default());
}

#[test]
fn a_blank_flag_is_absent() {
    let f = typed::<BandListParams>(&[("has_lat", " ")])
        .unwrap()
        .into_filter();
    assert_eq!(f.has_lat, None);
}
