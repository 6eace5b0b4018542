//! Parsing of a closed vocabulary in a JSON body (a query parameter is typed instead:
//! [`crate::param::OneOf`]): case-insensitive, a 400 naming the field and listing the
//! values (CONTRACT §4), never a 500.

use crate::error::ApiError;
use crate::param::{FromParam, OneOf, Vocabulary};

/// A value of a closed vocabulary read straight into its enum, case-insensitive (CONTRACT
/// §11: `ERROR` means `error`); absent or empty → None, another value → 400 naming `name`
/// and listing the names.
pub fn variant<T: Vocabulary>(name: &str, value: Option<&str>) -> Result<Option<T>, ApiError> {
    match value.filter(|v| !OneOf::<T>::is_blank(v)) {
        None => Ok(None),
        Some(v) => OneOf::<T>::from_param(name, v)
            .map(|o| Some(o.0))
            .map_err(ApiError::bad_request),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::param::{Flag, Integer};
    use bandmap_db::band_locations::GeocodeStatus;
    use bandmap_db::runs::Level;

    #[test]
    fn filters() {
        assert!(OneOf::<Level>::from_param("level", "runs").is_err());
        assert!(OneOf::<Level>::is_blank(""));
        assert_eq!(
            variant::<GeocodeStatus>("status", Some(" ERROR ")).unwrap(),
            Some(GeocodeStatus::Error),
            "case-insensitive, answered in the stored spelling"
        );
        assert_eq!(
            variant::<Level>("level", Some(" WARN ")).unwrap(),
            Some(Level::Warn)
        );
        assert_eq!(variant::<Level>("level", Some("")).unwrap(), None);
        assert!(variant::<Level>("level", Some("loud")).is_err());
        assert!(Integer::from_param("min_id", "1.5").is_err());
        assert_eq!(Integer::from_param("min_id", "-3").unwrap(), Integer(-3));
        assert!(Flag::from_param("city_null", "yes").is_err());
    }
}
