//! Flows on hand-made snapshots: the fixture (Bergen → Oslo three times, Oslo →
//! Berlin once) at a town zoom and a country zoom, the override rule, and a property test
//! against a plain recount (every pair, the limit and `other`, the places on the clusters).

use super::*;
use crate::map::PointRow;
use crate::map::family::COUNT;
use crate::map::query::{Bbox, ClusterQuery, Feature};
use crate::map::snapshot::Snapshot;
use crate::map::{Family, Filter, grid};
use proptest::prelude::*;
use std::collections::BTreeMap;

const BERGEN: (f64, f64) = (5.3221, 60.3913);
const OSLO: (f64, f64) = (10.7522, 59.9139);
const BERLIN: (f64, f64) = (13.4050, 52.5200);

/// One step: (band, parsed_step, step_order, place, raw text).
type Step = (i64, i32, i32, (f64, f64), &'static str);

/// One row per step.
fn rows(steps: &[Step]) -> Vec<PointRow> {
    steps
        .iter()
        .enumerate()
        .map(|(i, &(band, parsed, order, (lon, lat), raw))| PointRow {
            location_id: i as i64 + 1,
            ma_id: band,
            lon,
            lat,
            step_order: order,
            parsed_step: parsed,
            step_label: None,
            location_raw: raw.to_string(),
            name: format!("Band {band}"),
            genre: Some(
                if band % 2 == 0 {
                    "Black Metal"
                } else {
                    "Death Metal"
                }
                .into(),
            ),
            country: Some("Norway".into()),
            country_code: Some("NO".into()),
            status: Some("Active".into()),
            formed_year: Some(1990 + band as i32),
        })
        .collect()
}

fn fixture() -> Vec<Step> {
    vec![
        (1, 0, 0, BERGEN, "Bergen, Vestland"),
        (1, 1, 1, OSLO, "Oslo"),
        (2, 0, 0, BERGEN, "Bergen"),
        (2, 1, 1, OSLO, "Oslo"),
        (3, 0, 0, BERGEN, "Bergen"),
        (3, 1, 1, OSLO, "Oslo"),
        (4, 0, 0, OSLO, "Oslo"),
        (4, 1, 1, BERLIN, "Berlin"),
    ]
}

fn ask(snap: &Snapshot, zoom: u8) -> FlowAnswer<'_> {
    snap.flows(&FlowQuery {
        bbox: Bbox::WORLD,
        zoom,
        filter: Filter::default(),
        limit: DEFAULT_LIMIT,
    })
}

/// `(from label, to label, count)` of each listed flow.
fn named<'a>(a: &FlowAnswer<'a>) -> Vec<(Option<&'a str>, Option<&'a str>, u32)> {
    a.flows
        .iter()
        .map(|f| {
            (
                a.places[f.from as usize].label,
                a.places[f.to as usize].label,
                f.count,
            )
        })
        .collect()
}

#[test]
fn three_bands_bergen_to_oslo_and_one_oslo_to_berlin() {
    let snap = Snapshot::build(1, rows(&fixture()));
    let z8 = ask(&snap, 8);
    assert_eq!(
        named(&z8),
        vec![
            (Some("Bergen"), Some("Oslo"), 3),
            (Some("Oslo"), Some("Berlin"), 1)
        ]
    );
    assert_eq!(z8.total, 4, "4 consecutive placed step pairs");
    assert_eq!(z8.other, Other::default());
    let oslo = z8.places.iter().find(|p| p.label == Some("Oslo")).unwrap();
    assert_eq!((oslo.incoming, oslo.outgoing), (3, 1));
    assert_eq!((oslo.lon, oslo.lat), OSLO);
    // Black (even ids) and death (odd ids) moves.
    let bergen_oslo = z8.flows[0].families;
    assert_eq!(bergen_oslo[Family::Black as usize], 1);
    assert_eq!(bergen_oslo[Family::Death as usize], 2);

    // Zoom 3: Bergen and Oslo share one cell, their move is inside it; the cell's flow to
    // Berlin carries the sum of its towns' moves there.
    let level = flow_level(&Bbox::WORLD, 3);
    let key = |(lon, lat): (f64, f64)| {
        grid::key_at(grid::morton(grid::cell_x(lon), grid::cell_y(lat)), level)
    };
    assert_eq!(key(BERGEN), key(OSLO));
    let z3 = ask(&snap, 3);
    assert_eq!(z3.flows.len(), 1);
    assert_eq!(z3.flows[0].count, 1);
    assert_eq!(z3.total, 1);
    let norway = &z3.places[z3.flows[0].from as usize];
    assert_eq!(norway.label, None, "two towns in the cell");
    assert_eq!(norway.main, "Oslo", "four points in Oslo, three in Bergen");

    let mut more = fixture();
    more.push((5, 0, 0, BERGEN, "Bergen"));
    more.push((5, 1, 1, BERLIN, "Berlin"));
    let snap = Snapshot::build(1, rows(&more));
    assert_eq!(
        named(&ask(&snap, 8))[1..],
        [
            (Some("Bergen"), Some("Berlin"), 1),
            (Some("Oslo"), Some("Berlin"), 1)
        ]
    );
    let z3 = ask(&snap, 3);
    assert_eq!(z3.flows.len(), 1);
    assert_eq!(
        z3.flows[0].count, 2,
        "Bergen→Berlin + Oslo→Berlin in one cell pair"
    );
}

#[test]
fn a_manual_override_keeps_the_place_of_the_step_it_corrects() {
    // Step 1 of band 1 corrected by hand (step_order -1): the path stays Bergen → Oslo →
    // Berlin, not Oslo → Bergen → Berlin.
    let steps = vec![
        (1, 0, 0, BERGEN, "Bergen"),
        (1, 1, -1, OSLO, "Oslo"),
        (1, 2, 2, BERLIN, "Berlin"),
    ];
    let snap = Snapshot::build(1, rows(&steps));
    assert_eq!(
        named(&ask(&snap, 8)),
        vec![
            (Some("Bergen"), Some("Oslo"), 1),
            (Some("Oslo"), Some("Berlin"), 1)
        ]
    );
}

#[test]
fn the_places_of_one_step_are_no_move() {
    // Bergen (early); Oslo / Berlin (later): one move, from Bergen to the later step's
    // first place; Oslo and Berlin were the band's places at once.
    let steps = vec![
        (1, 0, 0, BERGEN, "Bergen"),
        (1, 1, 1, OSLO, "Oslo"),
        (1, 1, 1, BERLIN, "Berlin"),
    ];
    let snap = Snapshot::build(1, rows(&steps));
    assert_eq!(
        named(&ask(&snap, 8)),
        vec![(Some("Bergen"), Some("Oslo"), 1)]
    );
}

#[test]
fn the_limit_sums_the_rest_into_other() {
    let snap = Snapshot::build(1, rows(&fixture()));
    let a = snap.flows(&FlowQuery {
        bbox: Bbox::WORLD,
        zoom: 8,
        filter: Filter::default(),
        limit: 1,
    });
    assert_eq!(named(&a), vec![(Some("Bergen"), Some("Oslo"), 3)]);
    assert_eq!(a.other, Other { flows: 1, count: 1 });
    assert_eq!(a.total, 4);
    let oslo = a.places.iter().find(|p| p.label == Some("Oslo")).unwrap();
    assert_eq!(
        (oslo.incoming, oslo.outgoing),
        (3, 1),
        "totals count unlisted flows"
    );
}

#[test]
fn the_bands_of_a_flow() {
    let snap = Snapshot::build(1, rows(&fixture()));
    let q = FlowQuery {
        bbox: Bbox::WORLD,
        zoom: 8,
        filter: Filter::default(),
        limit: MAX_LIMIT,
    };
    let a = snap.flows(&q);
    let f = a.flows[0];
    let xy = |p: u32| aggregate::cell_xy(a.places[p as usize].key);
    let bands = snap.flow_bands(&q, xy(f.from), xy(f.to));
    assert_eq!(bands.count, 3);
    assert_eq!(bands.bands, 3);
    let names: Vec<&str> = bands.items.iter().map(|b| b.name).collect();
    assert_eq!(names, ["Band 1", "Band 2", "Band 3"]);
}

fn brute(snap: &Snapshot, q: &FlowQuery) -> BTreeMap<(u64, u64), [u32; COUNT]> {
    let level = flow_level(&q.bbox, q.zoom);
    let ix = (!q.filter.is_empty()).then(|| snap.filter_index(&q.filter));
    let mut by_band: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for i in 0..snap.len() {
        by_band.entry(snap.points.band[i]).or_default().push(i);
    }
    let mut out = BTreeMap::new();
    for (_, mut pts) in by_band {
        pts.sort_by_key(|&i| (snap.points.location_id[i], 0));
        // rows() numbers location ids in path order, steps ascending per band.
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            if let Some(ix) = &ix
                && (ix.bits[a / 64] >> (a % 64)) & 1 == 0
            {
                continue;
            }
            let (ka, kb) = (
                grid::key_at(snap.points.morton[a], level),
                grid::key_at(snap.points.morton[b], level),
            );
            let inside = |i: usize| q.bbox.contains(snap.points.lon[i], snap.points.lat[i]);
            if ka == kb || !(inside(a) || inside(b)) {
                continue;
            }
            out.entry((ka, kb)).or_insert([0; COUNT])[usize::from(snap.mix.at(a))] += 1;
        }
    }
    out
}

fn random_rows(moves: &[(u8, u8, u8)]) -> Vec<PointRow> {
    const TOWNS: [(f64, f64); 6] = [
        BERGEN,
        OSLO,
        BERLIN,
        (2.35, 48.86),
        (2.36, 48.87),
        (18.07, 59.33),
    ];
    let mut steps = Vec::new();
    for (band, &(a, b, c)) in moves.iter().enumerate() {
        for (step, town) in [a, b, c].into_iter().enumerate() {
            if town < 6 {
                steps.push((
                    band as i64 + 1,
                    step as i32,
                    step as i32,
                    TOWNS[town as usize],
                    "Town",
                ));
            }
        }
    }
    rows(&steps)
}

proptest! {
    /// Every pair equals a plain recount; the listed flows are the largest, `other` the
    /// rest; each place on screen sits exactly on the cluster of its cell.
    #[test]
    fn flows_equal_a_plain_recount(
        moves in proptest::collection::vec((0u8..8, 0u8..8, 0u8..8), 1..60),
        zoom in 0u8..=18,
        small in any::<bool>(),
        family in prop_oneof![Just(0u16), Just(Family::Black.bit())],
        limit in 1usize..6,
    ) {
        let snap = Snapshot::build(1, random_rows(&moves));
        let bbox = if small {
            Bbox { min_lon: 4.0, min_lat: 55.0, max_lon: 12.0, max_lat: 61.0 }
        } else {
            Bbox::WORLD
        };
        let q = FlowQuery { bbox, zoom, filter: Filter::default().with_families(family), limit };
        let want = brute(&snap, &q);
        let a = snap.flows(&q);
        let level = flow_level(&q.bbox, q.zoom);
        let ix = (!q.filter.is_empty()).then(|| snap.filter_index(&q.filter));
        let got: BTreeMap<(u64, u64), [u32; COUNT]> = snap
            .flow_pairs(level, &q.bbox, ix.as_ref().map(|i| i.bits.as_slice()))
            .into_iter()
            .map(|p| ((p.from, p.to), p.families))
            .collect();
        prop_assert_eq!(&got, &want);
        let total: u32 = want.values().map(|m| m.iter().sum::<u32>()).sum();
        prop_assert_eq!(a.total, total);
        let listed: u32 = a.flows.iter().map(|f| f.count).sum();
        prop_assert_eq!(listed + a.other.count, total);
        prop_assert!(a.flows.len() <= limit);
        prop_assert!(a.flows.windows(2).all(|w| w[0].count >= w[1].count));
        let smallest = a.flows.last().map_or(0, |f| f.count);
        let unlisted_max = want.values().map(|m| m.iter().sum::<u32>()).filter(|&n| n > smallest).count();
        prop_assert!(unlisted_max <= a.flows.len());
        // Places on screen sit on the clusters.
        let clusters = snap.query(&ClusterQuery { bbox: q.bbox, zoom: q.zoom, filter: q.filter.clone() });
        if !clusters.plan.individual {
            let at: BTreeMap<u64, (f64, f64, u32)> = clusters.features.iter().map(|f| match *f {
                Feature::Cluster { key, lon, lat, count, .. } => (key, (lon, lat, count)),
                Feature::Point { key, idx } => (key, (snap.points.lon[idx as usize], snap.points.lat[idx as usize], 1)),
            }).collect();
            for p in &a.places {
                if let Some(&(lon, lat, n)) = at.get(&p.key) {
                    prop_assert_eq!((p.lon, p.lat, p.points), (lon, lat, n));
                }
            }
        }
    }
}
