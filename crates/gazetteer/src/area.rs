//! The area of a region: the box its places span (issue 30). GeoNames gives no outline,
//! but a county's places trace it; a town inside the box of the county a band names lies
//! in that county "geographically" even when GeoNames files it under a unitary authority
//! ("Southampton, Hampshire").

use crate::Gazetteer;

/// Latitude and longitude bounds, degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Area {
    lat_min: f32,
    lat_max: f32,
    lon_min: f32,
    lon_max: f32,
}

impl Area {
    const EMPTY: Area = Area {
        lat_min: f32::INFINITY,
        lat_max: f32::NEG_INFINITY,
        lon_min: f32::INFINITY,
        lon_max: f32::NEG_INFINITY,
    };

    fn extend(&mut self, lat: f64, lon: f64) {
        let (lat, lon) = (lat as f32, lon as f32);
        self.lat_min = self.lat_min.min(lat);
        self.lat_max = self.lat_max.max(lat);
        self.lon_min = self.lon_min.min(lon);
        self.lon_max = self.lon_max.max(lon);
    }

    /// Whether the point lies in the box (an empty area holds nothing).
    pub(crate) fn holds(&self, lat: f64, lon: f64) -> bool {
        let (lat, lon) = (lat as f32, lon as f32);
        (self.lat_min..=self.lat_max).contains(&lat) && (self.lon_min..=self.lon_max).contains(&lon)
    }
}

/// One area per region, from the GeoNames places that refer to it (a former municipality
/// added from the table does not widen it).
pub(crate) fn compute(g: &Gazetteer) -> Vec<Area> {
    let mut areas = vec![Area::EMPTY; g.regions.len()];
    for p in g.places.iter().filter(|p| !p.former) {
        for &r in g.place_regions(p) {
            if let Some(a) = areas.get_mut(r as usize) {
                a.extend(p.lat, p.lon);
            }
        }
    }
    areas
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_holds_its_corners_and_nothing_outside() {
        let mut a = Area::EMPTY;
        assert!(!a.holds(0.0, 0.0), "an empty area holds nothing");
        a.extend(50.0, -1.0);
        a.extend(51.0, 1.0);
        assert!(a.holds(50.0, -1.0) && a.holds(51.0, 1.0) && a.holds(50.5, 0.0));
        assert!(!a.holds(51.01, 0.0) && !a.holds(50.5, 1.01) && !a.holds(49.9, 0.0));
    }
}
