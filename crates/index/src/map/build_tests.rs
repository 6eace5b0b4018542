//! The snapshot built from staged columns (`Snapshot::from_staged`) against the build it
//! replaced, kept here as the reference: rows sorted as 24-byte `(morton, location id,
//! arrival)` keys, bands numbered as first met in that order, then grouped by genre id. The
//! content, the fingerprint (the ETag source) and so every answer must not change.

use crate::map::family::Family;
use crate::map::flows::paths::Paths;
use crate::map::groups::Groups;
use crate::map::intern::Interner;
use crate::map::snapshot::Points;
use crate::map::{Bbox, ClusterQuery, Filter, PointRow, Snapshot, geojson, grid};
use proptest::prelude::*;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A point as the snapshot holds it, strings resolved: coordinates by their bits, Morton
/// code, band number, location id, step order, step label, raw location.
type PointView = (u64, u64, u64, u32, i64, i32, Option<String>, String);
/// A band, strings resolved: id, name, genre, country, code, status, year, family.
type BandView = (
    i64,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i32>,
    u8,
);

struct Reference {
    fingerprint: u64,
    points: Vec<PointView>,
    bands: Vec<BandView>,
    paths: (Vec<u32>, Vec<u32>, Vec<u64>),
}

/// The former build, on the rows as they arrived.
fn reference(rows: &[PointRow]) -> Reference {
    // Interned in arrival order, as the former staging did: the genre ids order the bands.
    let mut strings = Interner::default();
    let genre_id: Vec<u32> = rows
        .iter()
        .map(|r| {
            strings.intern_opt(r.step_label.as_deref());
            let g = strings.intern_opt(r.genre.as_deref());
            strings.intern_opt(r.country.as_deref());
            strings.intern_opt(r.country_code.as_deref());
            strings.intern_opt(r.status.as_deref());
            g
        })
        .collect();
    let mut keyed: Vec<(u64, i64, u32)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let m = grid::morton(grid::cell_x(r.lon), grid::cell_y(r.lat));
            (m, r.location_id, i as u32)
        })
        .collect();
    keyed.sort_unstable();
    let mut fp = std::hash::DefaultHasher::new();
    env!("CARGO_PKG_VERSION").hash(&mut fp);
    let mut band_of: HashMap<i64, u32> = HashMap::new();
    let mut first_row: Vec<usize> = Vec::new();
    let mut point_band: Vec<u32> = Vec::new();
    for &(_, _, i) in &keyed {
        let r = &rows[i as usize];
        r.location_id.hash(&mut fp);
        r.ma_id.hash(&mut fp);
        r.lon.to_bits().hash(&mut fp);
        r.lat.to_bits().hash(&mut fp);
        r.step_order.hash(&mut fp);
        r.parsed_step.hash(&mut fp);
        r.step_label.as_deref().hash(&mut fp);
        r.location_raw.as_str().hash(&mut fp);
        r.name.as_str().hash(&mut fp);
        r.genre.as_deref().hash(&mut fp);
        r.country.as_deref().hash(&mut fp);
        r.country_code.as_deref().hash(&mut fp);
        r.status.as_deref().hash(&mut fp);
        r.formed_year.hash(&mut fp);
        let j = *band_of.entry(r.ma_id).or_insert_with(|| {
            first_row.push(i as usize);
            first_row.len() as u32 - 1
        });
        point_band.push(j);
    }
    let mut order: Vec<u32> = (0..first_row.len() as u32).collect();
    order.sort_by_key(|&j| genre_id[first_row[j as usize]]);
    let mut new_of = vec![0u32; order.len()];
    for (k, &j) in order.iter().enumerate() {
        new_of[j as usize] = k as u32;
    }
    let points: Vec<PointView> = keyed
        .iter()
        .zip(&point_band)
        .map(|(&(m, _, i), &j)| {
            let r = &rows[i as usize];
            (
                r.lon.to_bits(),
                r.lat.to_bits(),
                m,
                new_of[j as usize],
                r.location_id,
                r.step_order,
                r.step_label.clone(),
                r.location_raw.clone(),
            )
        })
        .collect();
    let bands: Vec<BandView> = order
        .iter()
        .map(|&j| {
            let r = &rows[first_row[j as usize]];
            (
                r.ma_id,
                r.name.clone(),
                r.genre.clone(),
                r.country.clone(),
                r.country_code.clone(),
                r.status.clone(),
                r.formed_year,
                Family::of_genre(r.genre.as_deref()) as u8,
            )
        })
        .collect();
    // The flows' segments from the former columns and path steps.
    let columns = Points {
        lon: points.iter().map(|p| f64::from_bits(p.0)).collect(),
        lat: points.iter().map(|p| f64::from_bits(p.1)).collect(),
        morton: points.iter().map(|p| p.2).collect(),
        band: points.iter().map(|p| p.3).collect(),
        location_id: points.iter().map(|p| p.4).collect(),
        step_order: points.iter().map(|p| p.5).collect(),
        step_label: vec![0; points.len()],
        location_raw: vec![0; points.len()],
    };
    let path_step: Vec<i32> = keyed
        .iter()
        .map(|&(_, _, i)| rows[i as usize].parsed_step)
        .collect();
    let band_points = Groups::build(
        bands.len(),
        columns.band.iter().enumerate().map(|(i, &b)| (b, i as u32)),
    );
    let p = Paths::build(&columns, &band_points, &path_step);
    Reference {
        fingerprint: fp.finish(),
        points,
        bands,
        paths: (p.from, p.to, p.to_morton),
    }
}

fn points_of(s: &Snapshot) -> Vec<PointView> {
    let p = &s.points;
    (0..s.len())
        .map(|i| {
            (
                p.lon[i].to_bits(),
                p.lat[i].to_bits(),
                p.morton[i],
                p.band[i],
                p.location_id[i],
                p.step_order[i],
                s.string(p.step_label[i]).map(str::to_string),
                s.texts.get(p.location_raw[i]).to_string(),
            )
        })
        .collect()
}

fn bands_of(s: &Snapshot) -> Vec<BandView> {
    let b = &s.bands;
    let text = |id: u32| s.string(id).map(str::to_string);
    (0..b.ma_id.len())
        .map(|j| {
            (
                b.ma_id[j],
                s.texts.get(b.name[j]).to_string(),
                text(b.genre[j]),
                text(b.country[j]),
                text(b.country_code[j]),
                text(b.status[j]),
                b.formed_year[j],
                b.family[j],
            )
        })
        .collect()
}

/// Bands with fields drawn from a few values each (missing ones included), points on a few
/// places (Morton ties), location ids that may repeat, and now and then a row whose band
/// fields disagree with its band's other rows.
fn arb_rows(unique_ids: bool) -> impl Strategy<Value = Vec<PointRow>> {
    const GENRES: [Option<&str>; 5] = [
        Some("Black Metal"),
        Some("Doom Metal"),
        Some("Black/Doom Metal"),
        Some("Heavy Metal"),
        None,
    ];
    const PLACES: [(f64, f64); 6] = [
        (10.75, 59.91),
        (10.75, 59.91),
        (5.32, 60.39),
        (-3.7, 40.42),
        (24.94, 60.17),
        (10.7501, 59.9101),
    ];
    let band = (0usize..5, 0usize..3, proptest::option::of(1970i32..1980));
    let row = (
        0usize..12,
        0usize..6,
        -0.5f64..0.5,
        0i32..3,
        proptest::option::of(0usize..2),
        0u8..12,
        0i64..40,
    );
    (
        proptest::collection::vec(band, 1..12),
        proptest::collection::vec(row, 0..150),
    )
        .prop_map(move |(bands, rows)| {
            rows.iter()
                .enumerate()
                .map(|(i, &(b, place, jitter, step, label, odd, id))| {
                    let b = b % bands.len();
                    let (genre, status, year) = bands[b];
                    // One row in twelve disagrees with its band (genre or name).
                    let (genre, name) = match odd {
                        0 => (GENRES[(genre + 1) % 5], format!("band {b}")),
                        1 => (GENRES[genre], format!("band {b} (other)")),
                        _ => (GENRES[genre], format!("band {b}")),
                    };
                    let (lon, lat) = PLACES[place];
                    let jitter = if place == 5 { jitter * 1e-3 } else { 0.0 };
                    PointRow {
                        location_id: if unique_ids { i as i64 * 7 % 1009 } else { id },
                        ma_id: 100 + b as i64,
                        lon: lon + jitter,
                        lat: lat + jitter,
                        step_order: step,
                        parsed_step: step,
                        step_label: label.map(|l| ["later", "early"][l].to_string()),
                        location_raw: format!("place {place}"),
                        name,
                        genre: genre.map(str::to_string),
                        country: (b % 3 != 0).then(|| "Norway".to_string()),
                        country_code: (b % 3 != 0).then(|| "NO".to_string()),
                        status: Some(["Active", "Split-up", "On hold"][status].to_string()),
                        formed_year: year,
                    }
                })
                .collect()
        })
}

/// The answers the snapshot gives to a few queries (zooms, a genre filter, the breakdown).
fn answers(s: &Snapshot) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for zoom in [3u8, 8, 14] {
        for genre in [None, Some("black"), Some("doom")] {
            let q = ClusterQuery {
                bbox: Bbox::WORLD,
                zoom,
                filter: Filter::new(genre, None, None, None, None),
            };
            out.push(geojson::write_with(s, &s.query_with(&q, true), true));
        }
    }
    out
}

proptest! {
    /// Same rows in the same order: the same fingerprint, columns (band numbers included)
    /// and flow segments as the former build.
    #[test]
    fn the_staged_build_equals_the_former_one(rows in arb_rows(false)) {
        let want = reference(&rows);
        let snap = Snapshot::build(7, rows);
        prop_assert_eq!(snap.fingerprint, want.fingerprint);
        prop_assert_eq!(points_of(&snap), want.points);
        prop_assert_eq!(bands_of(&snap), want.bands);
        let p = &snap.flows.paths;
        prop_assert_eq!((p.from.clone(), p.to.clone(), p.to_morton.clone()), want.paths);
    }

    /// Same rows in another arrival order (location ids unique, as in the database): the same
    /// fingerprint, points, bands and answers.
    #[test]
    fn the_arrival_order_changes_nothing(
        (rows, shuffled) in arb_rows(true).prop_flat_map(|rows| {
            let shuffled = Just(rows.clone()).prop_shuffle();
            (Just(rows), shuffled)
        }),
    ) {
        let a = Snapshot::build(7, rows);
        let b = Snapshot::build(7, shuffled);
        prop_assert_eq!(a.fingerprint, b.fingerprint);
        let with_ids = |s: &Snapshot| -> Vec<(PointView, i64)> {
            points_of(s)
                .into_iter()
                .map(|mut p| {
                    let ma_id = s.bands.ma_id[p.3 as usize];
                    p.3 = 0;
                    (p, ma_id)
                })
                .collect()
        };
        prop_assert_eq!(with_ids(&a), with_ids(&b));
        let sorted = |s: &Snapshot| {
            let mut v = bands_of(s);
            v.sort_by_key(|b| b.0);
            v
        };
        prop_assert_eq!(sorted(&a), sorted(&b));
        prop_assert_eq!(answers(&a), answers(&b));
    }
}

/// Rows of one band that disagree: each row's own fields count in the fingerprint, the band
/// takes those of its first point in snapshot order, whichever arrived first.
#[test]
fn a_band_takes_the_fields_of_its_first_point_in_snapshot_order() {
    let row = |location_id: i64, lon: f64, genre: &str, name: &str| PointRow {
        location_id,
        ma_id: 1,
        lon,
        lat: 60.0,
        step_order: 0,
        parsed_step: 0,
        step_label: None,
        location_raw: "x".into(),
        name: name.into(),
        genre: Some(genre.into()),
        country: None,
        country_code: None,
        status: None,
        formed_year: None,
    };
    let east = row(1, 20.0, "Doom Metal", "B");
    let west = row(2, 5.0, "Black Metal", "A");
    let same_as_west = row(3, 6.0, "Black Metal", "A");
    let rows = vec![east, west, same_as_west];
    let want = reference(&rows);
    let snap = Snapshot::build(1, rows);
    assert_eq!(snap.fingerprint, want.fingerprint);
    assert_eq!(bands_of(&snap), want.bands);
    assert_eq!(snap.bands.ma_id.len(), 1);
    assert_eq!(snap.texts.get(snap.bands.name[0]), "A");
    assert_eq!(snap.string(snap.bands.genre[0]), Some("Black Metal"));
    assert_eq!(points_of(&snap), want.points);
}
