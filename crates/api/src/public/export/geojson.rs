//! The GeoJSON writer of the export: a FeatureCollection whose `attribution` member
//! carries the credits, one Point feature per exported point, written in chunks.

use super::Point;
use serde_json::json;

/// The opening of the collection.
pub fn head(credits: &str) -> String {
    let attribution = serde_json::to_string(credits).unwrap_or_else(|_| "\"\"".to_string());
    format!(
        "{{\"type\":\"FeatureCollection\",\"attribution\":{attribution},\
         \"license\":\"Places: GeoNames, CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)\",\
         \"features\":["
    )
}

/// The features of one batch; `first`: the batch opens the list (no leading comma).
pub fn features(points: &[Point], first: bool) -> String {
    let mut out = String::with_capacity(points.len() * 320);
    for (n, p) in points.iter().enumerate() {
        if !(first && n == 0) {
            out.push(',');
        }
        let feature = json!({
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [p.lon, p.lat]},
            "properties": p,
        });
        out.push_str(&feature.to_string());
        out.push('\n');
    }
    out
}

/// The closing of the collection.
pub fn tail() -> String {
    "]}\n".to_string()
}
