//! The query parameters of the public map (CONTRACT §4, §7), typed ([`crate::param`]):
//! the filters shared by the clusters, the flows, the countries and the exports, and the
//! view (box and zoom, with the filters) shared by the clusters and the flows, with the
//! one ETag of a view's answer. Every malformed value is a 400 naming the parameter; an
//! empty value means "absent".

use crate::param::{self, Bbox, Families, FilterText, Year, Zoom};
use bandmap_index::map::{self, Filter};
use serde::Deserialize;
use std::hash::{Hash, Hasher};
use utoipa::IntoParams;

/// The map's filters: `/api/clusters`, `/api/flows`, `/api/countries`, the exports.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MapFilterParams {
    /// Country name or ISO2 code (case-insensitive equality); over 100 characters → 400.
    #[serde(default, deserialize_with = "param::country")]
    #[param(inline)]
    pub country: Option<FilterText>,
    /// Band status (case-insensitive equality); over 100 characters → 400.
    #[serde(default, deserialize_with = "param::status")]
    #[param(inline)]
    pub status: Option<FilterText>,
    /// Genre (case-insensitive substring); over 100 characters → 400.
    #[serde(default, deserialize_with = "param::genre")]
    #[param(inline)]
    pub genre: Option<FilterText>,
    /// Lowest formation year.
    #[serde(default, deserialize_with = "param::year_min")]
    #[param(inline)]
    pub year_min: Option<Year>,
    /// Highest formation year.
    #[serde(default, deserialize_with = "param::year_max")]
    #[param(inline)]
    pub year_max: Option<Year>,
    /// Genre families to keep, comma-separated, any case, among `black`, `death`, `doom`,
    /// `thrash`, `heavy` (heavy/power), `progressive`, `folk` (folk/pagan), `gothic`
    /// (gothic/symphonic), `grind` (grind/core), `other` (docs/map.md); only bands of
    /// those families count; an unknown name → 400.
    #[serde(default, deserialize_with = "param::family")]
    #[param(inline, example = "black,doom")]
    pub family: Option<Families>,
}

fn text(v: &Option<FilterText>) -> Option<&str> {
    v.as_ref().map(|t| t.0.as_str())
}

impl MapFilterParams {
    /// The map index's filter.
    pub fn filter(&self) -> Filter {
        Filter::new(
            text(&self.genre),
            text(&self.country),
            text(&self.status),
            self.year_min.map(|y| y.0),
            self.year_max.map(|y| y.0),
        )
        .with_families(self.families())
    }

    /// The families kept, as a mask of [`map::Family::bit`]s (0: every family).
    pub fn families(&self) -> u16 {
        self.family.unwrap_or_default().0
    }
}

/// The view of the map: the box and zoom, and the filters. The shared part of the
/// queries of `/api/clusters`, `/api/flows` and `/api/flows/bands`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ViewParams {
    /// `minLon,minLat,maxLon,maxLat` in degrees (default: the whole world); for the flows,
    /// a flow counts when either end is inside.
    #[serde(default, deserialize_with = "param::bbox")]
    #[param(inline, example = "-10,35,30,60")]
    pub bbox: Option<Bbox>,
    /// Zoom 0–20 (default 3); the clusters' points are clustered up to 16, single from
    /// 17; the flows' cells are those of `/api/clusters` at this zoom and bbox.
    #[serde(default, deserialize_with = "param::zoom")]
    #[param(inline)]
    pub zoom: Option<Zoom>,
    /// The filters.
    #[serde(flatten)]
    #[param(ignore)]
    pub filter: MapFilterParams,
}

/// A view, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// Area.
    pub bbox: map::Bbox,
    /// Zoom 0–20.
    pub zoom: u8,
    /// The bands kept.
    pub filter: Filter,
}

impl ViewParams {
    /// The view, defaults filled in.
    pub fn view(&self) -> View {
        View {
            bbox: self.bbox.unwrap_or_default().0,
            zoom: self.zoom.unwrap_or_default().0,
            filter: self.filter.filter(),
        }
    }
}

impl View {
    /// Weak ETag of an answer about this view against the content of a snapshot (`kind`:
    /// the endpoint's letter; `extra`: what else the answer depends on). Not the data
    /// version: a snapshot can be rebuilt with other rows under the same counter value
    /// (docs/map.md).
    pub fn etag(&self, kind: char, fingerprint: u64, extra: impl Hash) -> String {
        let mut h = std::hash::DefaultHasher::new();
        extra.hash(&mut h);
        self.zoom.hash(&mut h);
        for v in [
            self.bbox.min_lon,
            self.bbox.min_lat,
            self.bbox.max_lon,
            self.bbox.max_lat,
        ] {
            v.to_bits().hash(&mut h);
        }
        self.filter.hash(&mut h);
        format!("W/\"{kind}{fingerprint:016x}-{:016x}\"", h.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(q: &str) -> Result<View, String> {
        let uri: axum::http::Uri = format!("/x?{q}").parse().unwrap();
        axum::extract::Query::<ViewParams>::try_from_uri(&uri)
            .map(|p| p.0.view())
            .map_err(|e| {
                crate::param::refusal(&e.body_text())
                    .unwrap_or("?")
                    .to_string()
            })
    }

    #[test]
    fn defaults_and_blanks() {
        let v = view("").unwrap();
        assert_eq!((v.bbox, v.zoom), (map::Bbox::WORLD, 3));
        assert_eq!(view("bbox=%20&zoom=&genre=%01").unwrap(), v);
        assert!(v.filter.is_empty());
    }

    #[test]
    fn family_masks() {
        use map::Family;
        let f = |q: &str| {
            let uri: axum::http::Uri = format!("/x?{q}").parse().unwrap();
            axum::extract::Query::<MapFilterParams>::try_from_uri(&uri).map(|p| p.0.families())
        };
        assert_eq!(f("family=%20,%20").unwrap(), 0);
        assert_eq!(
            f("family=Doom,%20black").unwrap(),
            Family::Black.bit() | Family::Doom.bit()
        );
        assert!(f("family=black,polka").is_err());
        assert!(
            f(&format!("family={}", "black,".repeat(20))).is_err(),
            "over 100"
        );
    }

    #[test]
    fn bbox_rules() {
        assert!(view("bbox=1,2,3,4").is_ok());
        for bad in [
            "1,2,3",
            "1,2,3,4,5",
            "a,2,3,4",
            "1,,3,4",
            "NaN,1,2,3",
            "inf,1,2,3",
            "-181,0,0,0",
            "0,-91,0,0",
            "0,0,181,0",
            "0,0,0,91",
            "5,0,4,1",
            "0,5,1,4",
        ] {
            let message = view(&format!("bbox={bad}")).unwrap_err();
            assert!(message.starts_with("bbox "), "{bad}: {message}");
        }
    }

    #[test]
    fn zoom_and_years() {
        assert_eq!(view("zoom=20").unwrap().zoom, 20);
        for bad in ["21", "-1", "3.5", "x", "256"] {
            assert_eq!(
                view(&format!("zoom={bad}")).unwrap_err(),
                "zoom must be an integer from 0 to 20"
            );
        }
        assert!(view("year_min=1990").is_ok());
        assert_eq!(
            view("year_max=199x").unwrap_err(),
            "year_max must be an integer"
        );
    }
}
