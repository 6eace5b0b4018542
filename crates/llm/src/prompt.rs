//! The prompt and the canonical chat-completions request. The request is a struct (fixed
//! field order, independent of serde_json features), serialised once: those exact bytes are
//! both the HTTP body and the input of the sha256 cache key, so "identical request" means
//! identical model, messages and parameters.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// The stable facts of the place to resolve — and nothing else (rule 21, issue 13).
///
/// The request, hence its sha256 cache key, is built from these fields only: the place
/// text of the row and the band's country. Nothing that changes between attempts (the
/// geocoder's last query or error, "no result" vs "no result (cached)") and nothing that
/// differs between bands naming the same place (band name, the rest of the band's
/// location text) may enter it, so the same place is never sent twice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptInput {
    /// The place text of the row (`band_locations.location_raw`): what the row is.
    pub location_raw: String,
    /// The band's country name (`band_locations.country`).
    pub country: Option<String>,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    /// `system` or `user`.
    pub role: &'static str,
    /// Text.
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct ResponseFormat {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The chat-completions request body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    /// Model id.
    pub model: String,
    /// System then user message.
    pub messages: Vec<Message>,
    /// Always 0: the same input gives the same answer, which makes caching sound.
    pub temperature: f64,
    /// Completion cap.
    pub max_tokens: u32,
    response_format: ResponseFormat,
}

/// The system message: the task and the JSON shape (JSON mode requires the word JSON).
pub const SYSTEM_PROMPT: &str = "You locate heavy metal bands. Given the place text a band's \
page gives and the band's country, reply with ONE JSON object and nothing else: \
{\"city\": string|null, \"region\": string|null, \"country\": string|null, \"confidence\": number}. \
\"city\" is the city, town or village meant, spelled as in an atlas (no district, no \
parenthesis, no \"near\"); for \"near X\" or a suburb give the settlement X. \
\"region\" is its state, province or county when known. \"country\" is the country name in \
English. \"confidence\" is between 0 and 1. If the text names no settlement (only a region, \
a country, or something unusable), \"city\" is null. Never invent a place.";

impl ChatRequest {
    /// The request for `input` sent to `model`.
    #[must_use]
    pub fn new(model: &str, input: &PromptInput, max_tokens: u32) -> Self {
        Self {
            model: model.to_string(),
            messages: vec![
                Message {
                    role: "system",
                    content: SYSTEM_PROMPT.to_string(),
                },
                Message {
                    role: "user",
                    content: user_message(input),
                },
            ],
            temperature: 0.0,
            max_tokens,
            response_format: ResponseFormat {
                kind: "json_object",
            },
        }
    }

    /// The canonical serialisation (the HTTP body).
    #[must_use]
    pub fn canonical(&self) -> String {
        // A struct of strings and numbers always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// sha256 (hex) of the canonical request: the `llm_cache.key`.
    #[must_use]
    pub fn cache_key(&self) -> String {
        hex::encode(Sha256::digest(self.canonical().as_bytes()))
    }

    /// The messages as readable text, for `llm_cache.prompt`.
    #[must_use]
    pub fn prompt_text(&self) -> String {
        self.messages
            .iter()
            .map(|m| format!("[{}]\n{}", m.role, m.content))
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

fn clip(s: &str, max_chars: usize) -> String {
    s.chars().take(max_chars).collect()
}

/// The user message: one fact per line; an absent country is left out. Whitespace around
/// the facts is trimmed so that `"Kolbotn "` and `"Kolbotn"` are one request.
#[must_use]
pub fn user_message(input: &PromptInput) -> String {
    let mut lines = vec![format!(
        "Place to locate: {}",
        clip(input.location_raw.trim(), 500)
    )];
    if let Some(c) = input
        .country
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        lines.push(format!("Country of the band: {}", clip(c, 100)));
    }
    lines.push("Answer in JSON.".to_string());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> PromptInput {
        PromptInput {
            location_raw: "Kolbotn, Viken".into(),
            country: Some("Norway".into()),
        }
    }

    #[test]
    fn request_asks_for_json_mode_at_temperature_zero() {
        let body: serde_json::Value =
            serde_json::from_str(&ChatRequest::new("m", &input(), 256).canonical())
                .unwrap_or_default();
        assert_eq!(body["response_format"]["type"], "json_object");
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["model"], "m");
        let user = body["messages"][1]["content"].as_str().unwrap_or_default();
        assert_eq!(
            user,
            "Place to locate: Kolbotn, Viken\nCountry of the band: Norway\nAnswer in JSON."
        );
    }

    #[test]
    fn cache_key_depends_on_model_and_content_only() {
        let a = ChatRequest::new("m", &input(), 256);
        assert_eq!(
            a.cache_key(),
            ChatRequest::new("m", &input(), 256).cache_key()
        );
        assert_ne!(
            a.cache_key(),
            ChatRequest::new("n", &input(), 256).cache_key()
        );
        let mut other = input();
        other.country = Some("Sweden".into());
        assert_ne!(
            a.cache_key(),
            ChatRequest::new("m", &other, 256).cache_key()
        );
        let mut spaced = input();
        spaced.location_raw = " Kolbotn, Viken ".into();
        assert_eq!(
            a.cache_key(),
            ChatRequest::new("m", &spaced, 256).cache_key()
        );
        assert_eq!(a.cache_key().len(), 64);
    }
}
