//! [`Point`]: a place on the globe, valid by construction — latitude and longitude finite,
//! within [-90, 90] and [-180, 180] (the bounds the `band_locations` CHECKs hold). Parsed
//! once at the edge (the admin's manual point), so the write that takes one cannot be handed
//! a bad pair.

/// Why a pair of numbers is not a point; the message names the coordinate at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    /// The latitude is not finite or outside [-90, 90].
    #[error("lat must be a finite number in [-90, 90]")]
    Lat,
    /// The longitude is not finite or outside [-180, 180].
    #[error("lon must be a finite number in [-180, 180]")]
    Lon,
}

/// A valid latitude/longitude pair (degrees, WGS 84).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    lat: f64,
    lon: f64,
}

impl Point {
    /// The point at `lat`, `lon`; the latitude is checked first.
    pub fn new(lat: f64, lon: f64) -> Result<Point, PointError> {
        let within = |v: f64, bound: f64| v.is_finite() && (-bound..=bound).contains(&v);
        if !within(lat, 90.0) {
            return Err(PointError::Lat);
        }
        if !within(lon, 180.0) {
            return Err(PointError::Lon);
        }
        Ok(Point { lat, lon })
    }

    /// Latitude in degrees.
    #[must_use]
    pub const fn lat(self) -> f64 {
        self.lat
    }

    /// Longitude in degrees.
    #[must_use]
    pub const fn lon(self) -> f64 {
        self.lon
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_non_finite_values_are_refused() {
        let p = Point::new(59.91, 10.75).unwrap();
        assert_eq!((p.lat(), p.lon()), (59.91, 10.75));
        assert!(Point::new(90.0, -180.0).is_ok());
        assert_eq!(Point::new(90.5, 0.0), Err(PointError::Lat));
        assert_eq!(Point::new(f64::NAN, 0.0), Err(PointError::Lat));
        assert_eq!(Point::new(0.0, 180.1), Err(PointError::Lon));
        assert_eq!(Point::new(0.0, f64::INFINITY), Err(PointError::Lon));
        assert_eq!(
            Point::new(0.0, 200.0).unwrap_err().to_string(),
            "lon must be a finite number in [-180, 180]"
        );
    }
}
