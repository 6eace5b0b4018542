//! The extraction the model must return (CONTRACT §11):
//! `{"city": string|null, "region": string|null, "country": string|null, "confidence": number}`.
//! Parsing is strict about types and lenient about blank strings (a blank city is null).
//! Anything else is a [`Malformed`] reply: an error of that row, never a crash.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A validated extraction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extraction {
    /// City, town or village; `None` when the model found none.
    pub city: Option<String>,
    /// State, province or county.
    pub region: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// Model's confidence in [0, 1].
    pub confidence: f64,
}

/// Why a reply was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed LLM reply: {0}")]
pub struct Malformed(pub String);

const MAX_FIELD_CHARS: usize = 200;

fn text_field(
    obj: &serde_json::Map<String, Value>,
    name: &str,
) -> Result<Option<String>, Malformed> {
    match obj.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.is_empty() || s.eq_ignore_ascii_case("null") || s.eq_ignore_ascii_case("unknown") {
                Ok(None)
            } else if s.chars().count() > MAX_FIELD_CHARS || s.chars().any(char::is_control) {
                Err(Malformed(format!(
                    "\"{name}\" is not a plausible place name"
                )))
            } else {
                Ok(Some(s.to_string()))
            }
        }
        Some(other) => Err(Malformed(format!(
            "\"{name}\" must be a string or null, got {}",
            kind(other)
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Extraction {
    /// Parses and validates the assistant message content.
    pub fn parse(content: &str) -> Result<Self, Malformed> {
        let value: Value = serde_json::from_str(content.trim())
            .map_err(|e| Malformed(format!("content is not JSON ({e})")))?;
        Self::from_value(&value)
    }

    /// Validates an already parsed value (also used for cached rows).
    pub fn from_value(value: &Value) -> Result<Self, Malformed> {
        let obj = value
            .as_object()
            .ok_or_else(|| Malformed(format!("expected a JSON object, got {}", kind(value))))?;
        let confidence = match obj.get("confidence") {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            Some(other) => {
                return Err(Malformed(format!(
                    "\"confidence\" must be a number, got {}",
                    kind(other)
                )));
            }
            None => return Err(Malformed("\"confidence\" is missing".into())),
        };
        if !(0.0..=1.0).contains(&confidence) {
            return Err(Malformed(format!(
                "\"confidence\" must be between 0 and 1, got {confidence}"
            )));
        }
        Ok(Self {
            city: text_field(obj, "city")?,
            region: text_field(obj, "region")?,
            country: text_field(obj, "country")?,
            confidence,
        })
    }

    /// The JSON stored in `llm_cache.extraction`.
    #[must_use]
    pub fn to_value(&self) -> Value {
        serde_json::json!({
            "city": self.city,
            "region": self.region,
            "country": self.country,
            "confidence": self.confidence,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_replies_parse() {
        let e = Extraction::parse(
            r#"{"city":"Oslo","region":null,"country":"Norway","confidence":0.9}"#,
        );
        assert_eq!(e.map(|e| e.city), Ok(Some("Oslo".to_string())));
        let e =
            Extraction::parse(r#"{"city":"  ","region":"Viken","country":null,"confidence":0}"#);
        assert_eq!(
            e.map(|e| (e.city, e.region)),
            Ok((None, Some("Viken".into())))
        );
    }

    #[test]
    fn malformed_replies_are_rejected() {
        for bad in [
            "",
            "not json",
            "[1,2]",
            r#"{"city":"Oslo"}"#,
            r#"{"city":3,"confidence":0.5}"#,
            r#"{"city":"Oslo","confidence":"high"}"#,
            r#"{"city":"Oslo","confidence":7}"#,
            r#"{"city":["Oslo"],"confidence":0.5}"#,
        ] {
            assert!(Extraction::parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
