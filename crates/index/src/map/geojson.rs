//! Writing an answer as a GeoJSON FeatureCollection, straight into bytes (no intermediate
//! JSON tree). Coordinates are finite by construction (database CHECKs).

use crate::map::family::{Family, Mix};
use crate::map::query::{Feature, QueryResult};
use crate::map::snapshot::Snapshot;
use std::fmt::Write as _;

/// Serialises `result` (features of `snap`). When `result` carries the family breakdown,
/// each cluster gets `"families":{"black":N,…}` (non-zero families, in [`Family::ALL`]
/// order) and each single point `"family":"…"`; otherwise the bytes are those of the
/// CONTRACT's shape alone.
pub fn write(snap: &Snapshot, result: &QueryResult) -> Vec<u8> {
    write_with(snap, result, result.mixes.is_some())
}

/// [`write`], with `families` forcing the points' `family` member (zoom ≥ 17 answers have
/// no cluster, so no mixes, but their points still carry their family).
pub fn write_with(snap: &Snapshot, result: &QueryResult, families: bool) -> Vec<u8> {
    let mut s = String::with_capacity(64 + result.features.len() * 160);
    s.push_str(r#"{"type":"FeatureCollection","features":["#);
    for (n, f) in result.features.iter().enumerate() {
        if n > 0 {
            s.push(',');
        }
        match *f {
            Feature::Cluster {
                lon,
                lat,
                count,
                expansion_zoom,
                ..
            } => {
                point_head(&mut s, lon, lat);
                let _ = write!(
                    s,
                    r#""cluster":true,"count":{count},"expansion_zoom":{expansion_zoom}"#
                );
                if let Some(mix) = result.mixes.as_ref().and_then(|m| m.get(n)) {
                    families_member(&mut s, mix);
                }
                s.push_str("}}");
            }
            Feature::Point { idx, .. } => {
                single(&mut s, snap, idx as usize);
                if families {
                    let band = snap.points.band[idx as usize];
                    let _ = write!(s, r#","family":"{}""#, snap.band_family(band).name());
                }
                s.push_str("}}");
            }
        }
    }
    s.push(']');
    if result.truncated {
        s.push_str(r#","truncated":true"#);
    }
    s.push('}');
    s.into_bytes()
}

fn point_head(s: &mut String, lon: f64, lat: f64) {
    let _ = write!(
        s,
        r#"{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{},{}]}},"properties":{{"#,
        finite(lon),
        finite(lat)
    );
}

fn finite(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

fn single(s: &mut String, snap: &Snapshot, i: usize) {
    let p = &snap.points;
    let b = &snap.bands;
    let band = p.band[i] as usize;
    point_head(s, p.lon[i], p.lat[i]);
    let _ = write!(s, r#""cluster":false,"ma_id":{},"name":"#, b.ma_id[band]);
    json_str(s, Some(snap.texts.get(b.name[band])));
    s.push_str(r#","genre":"#);
    json_str(s, snap.string(b.genre[band]));
    s.push_str(r#","country":"#);
    json_str(s, snap.string(b.country[band]));
    s.push_str(r#","status":"#);
    json_str(s, snap.string(b.status[band]));
    match b.formed_year[band] {
        Some(y) => {
            let _ = write!(s, r#","formed_year":{y}"#);
        }
        None => s.push_str(r#","formed_year":null"#),
    }
    let _ = write!(s, r#","location_id":{},"location_raw":"#, p.location_id[i]);
    json_str(s, Some(snap.texts.get(p.location_raw[i])));
    s.push_str(r#","step_label":"#);
    json_str(s, snap.string(p.step_label[i]));
    let _ = write!(s, r#","step_order":{}"#, p.step_order[i]);
}

/// `,"families":{"black":3,"doom":1}`: the non-zero counts in family order.
fn families_member(s: &mut String, mix: &Mix) {
    s.push_str(r#","families":{"#);
    let mut first = true;
    for f in Family::ALL {
        let n = mix[f as usize];
        if n == 0 {
            continue;
        }
        if !first {
            s.push(',');
        }
        first = false;
        let _ = write!(s, r#""{}":{n}"#, f.name());
    }
    s.push('}');
}

fn json_str(s: &mut String, v: Option<&str>) {
    match v {
        None => s.push_str("null"),
        Some(v) => match serde_json::to_string(v) {
            Ok(q) => s.push_str(&q),
            Err(_) => s.push_str("null"),
        },
    }
}
