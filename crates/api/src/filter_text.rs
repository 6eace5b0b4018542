//! The one parser of filter text in query parameters, public (map filters, search) and
//! admin (band list, monitoring lists): control characters removed, then trimmed; absent or
//! blank → no filter. A search text longer than the limit is cut; an equality filter longer
//! than the limit is a 400 naming the parameter (cutting it would answer for a different
//! filter than the one asked).

use crate::error::ApiError;
use crate::extract::clean_text;

/// Longest text filter kept (characters).
pub const MAX_FILTER_CHARS: usize = 100;

/// Cleaned of control characters and trimmed; absent or blank → `None`.
pub fn text(raw: Option<&str>) -> Option<String> {
    trimmed(clean_text(raw?, false))
}

/// A search text: cleaned of control characters, cut to [`MAX_FILTER_CHARS`], trimmed;
/// absent or blank → `None`.
pub fn search(raw: Option<&str>) -> Option<String> {
    trimmed(
        clean_text(raw?, false)
            .chars()
            .take(MAX_FILTER_CHARS)
            .collect(),
    )
}

/// An equality filter: [`text`], and more than [`MAX_FILTER_CHARS`] characters → 400
/// naming the parameter.
pub fn bounded(name: &str, raw: Option<&str>) -> Result<Option<String>, ApiError> {
    match text(raw) {
        Some(v) if v.chars().count() > MAX_FILTER_CHARS => Err(ApiError::bad_request(format!(
            "{name} must be at most {MAX_FILTER_CHARS} characters"
        ))),
        other => Ok(other),
    }
}

fn trimmed(s: String) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_and_bounded_filters() {
        assert_eq!(text(Some("  a\u{1}b ")), Some("ab".into()));
        assert_eq!(text(Some("   ")), None);
        assert_eq!(search(Some(" bl\u{1}ack ")).as_deref(), Some("black"));
        assert_eq!(search(Some("  ")), None);
        assert_eq!(search(Some(&"a".repeat(300))), Some("a".repeat(100)));
        assert!(bounded("country", Some(&"x".repeat(101))).is_err());
        assert_eq!(bounded("country", Some("NO")).unwrap(), Some("NO".into()));
        let long = "é".repeat(MAX_FILTER_CHARS);
        assert_eq!(bounded("genre", Some(&long)).unwrap(), Some(long.clone()));
        assert!(bounded("genre", Some(&format!("{long}x"))).is_err());
        assert_eq!(
            bounded("genre", Some(" bl\u{1}ack ")).unwrap().as_deref(),
            Some("black")
        );
        assert_eq!(bounded("genre", Some("  ")).unwrap(), None);
    }
}
