//! Parsing of the admin query parameters that the shared extractors leave as text: empty
//! values mean "no filter", enumerations and integers are checked here so a bad value is
//! our 400 (CONTRACT §4), never a 500.

use crate::error::ApiError;

/// A value that must be one of `allowed` (exact); absent or empty → None.
pub fn one_of(
    name: &str,
    value: Option<&str>,
    allowed: &[&str],
) -> Result<Option<String>, ApiError> {
    // Case-insensitive, like every status filter (CONTRACT §11): `ERROR` means `error`.
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    match value.map(|v| allowed.iter().find(|a| a.eq_ignore_ascii_case(v))) {
        None => Ok(None),
        Some(Some(known)) => Ok(Some((*known).to_string())),
        Some(None) => Err(ApiError::bad_request(format!(
            "{name} must be one of: {}",
            allowed.join(", ")
        ))),
    }
}

/// A value of a closed vocabulary read straight into its enum (`all`: every value, each
/// shown as its stored name), case-insensitive like [`one_of`]; absent or empty → None,
/// another value → 400 naming the parameter and listing the names.
pub fn variant<T: Copy + std::fmt::Display>(
    name: &str,
    value: Option<&str>,
    all: &[T],
) -> Result<Option<T>, ApiError> {
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    match value.map(|v| all.iter().find(|a| a.to_string().eq_ignore_ascii_case(v))) {
        None => Ok(None),
        Some(Some(known)) => Ok(Some(*known)),
        Some(None) => Err(ApiError::bad_request(format!(
            "{name} must be one of: {}",
            all.iter().map(T::to_string).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// An optional integer; anything else → 400.
pub fn int(name: &str, value: Option<&str>) -> Result<Option<i64>, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => v
            .parse::<i64>()
            .map(Some)
            .map_err(|_| ApiError::bad_request(format!("{name} must be an integer"))),
    }
}

/// An optional boolean (`true`, `false`, `1`, `0`); anything else → 400.
pub fn boolean(name: &str, value: Option<&str>) -> Result<Option<bool>, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => crate::extract::parse_bool(name, v).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters() {
        assert!(one_of("kind", Some("runs"), &["run", "admin"]).is_err());
        assert_eq!(one_of("kind", Some(""), &["run"]).unwrap(), None);
        assert_eq!(
            one_of("status", Some(" ERROR "), &["done", "error"]).unwrap(),
            Some("error".to_string()),
            "case-insensitive, answered in the stored spelling"
        );
        use bandmap_db::runs::Level;
        assert_eq!(
            variant("level", Some(" WARN "), Level::ALL).unwrap(),
            Some(Level::Warn)
        );
        assert_eq!(variant("level", Some(""), Level::ALL).unwrap(), None);
        assert!(variant("level", Some("loud"), Level::ALL).is_err());
        assert!(int("min_id", Some("1.5")).is_err());
        assert_eq!(int("min_id", Some("-3")).unwrap(), Some(-3));
        assert!(boolean("city_null", Some("yes")).is_err());
    }
}
