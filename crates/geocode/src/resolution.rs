//! The outcome of resolving one place, and the acceptance rule (rule 15).

/// Granularities that never pass rule 15.
pub const COARSE_GRANULARITIES: [&str; 4] = ["country", "state", "county", "region"];

/// The outcome of [`crate::Geocoder::resolve`].
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// A result that passed rule 15.
    Accepted(Resolved),
    /// Every tier and fallback failed (below threshold, coarse, no result).
    Rejected {
        /// Why, for each tier and query (the row's `error`).
        error: String,
        /// The provider queries tried, most specific first.
        queries: Vec<String>,
    },
    /// The provider refused in a way retrying will not fix (401, 4xx other than 429).
    Fatal {
        /// The provider's message.
        error: String,
    },
    /// The gazetteer could not decide and no provider can be asked: the row must wait.
    Unavailable {
        /// Why (provider disabled, key missing) and what the gazetteer said.
        reason: String,
    },
    /// 429, 5xx or network failure after the retries.
    Transient {
        /// The last error.
        error: String,
    },
}

/// An accepted result.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Latitude, WGS84.
    pub lat: f64,
    /// Longitude, WGS84.
    pub lon: f64,
    /// `gazetteer`, `geoapify` (the LLM worker stores `llm+geoapify`).
    pub provider: String,
    /// 0..1.
    pub confidence: f64,
    /// `city`, `suburb`, `postcode`, …
    pub granularity: String,
    /// The query sent, or what the gazetteer matched.
    pub query: String,
}

/// Rule 15: confidence ≥ `min_confidence` (a missing confidence is unknown, never
/// accepted) and a granularity that is not coarse. `Err` says why, for the row's `error`.
pub fn accept(
    confidence: Option<f64>,
    granularity: &str,
    min_confidence: f64,
) -> Result<f64, String> {
    let g = granularity.trim().to_ascii_lowercase();
    if COARSE_GRANULARITIES.contains(&g.as_str()) {
        return Err(format!("too coarse ({g})"));
    }
    match confidence {
        None => Err("no confidence given".to_string()),
        Some(c) if !c.is_finite() => Err("no confidence given".to_string()),
        Some(c) if c < min_confidence => Err(format!("confidence {c:.2} < {min_confidence:.2}")),
        Some(c) => Ok(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_15_table() {
        assert_eq!(accept(Some(0.7), "city", 0.7), Ok(0.7));
        assert_eq!(accept(Some(1.0), "suburb", 0.7), Ok(1.0));
        assert!(accept(Some(0.69), "city", 0.7).is_err());
        assert!(accept(None, "city", 0.7).is_err());
        assert!(accept(Some(f64::NAN), "city", 0.7).is_err());
        for coarse in ["country", "state", "County", "region"] {
            assert!(accept(Some(1.0), coarse, 0.7).is_err(), "{coarse}");
        }
    }
}
