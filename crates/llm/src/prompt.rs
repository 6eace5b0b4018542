//! The prompt and the canonical chat-completions request. The request is a struct (fixed
//! field order, independent of serde_json features), serialised once: those exact bytes are
//! both the HTTP body and the input of the sha256 cache key, so "identical request" means
//! identical model, messages and parameters.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// What the worker knows about the place to resolve.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptInput {
    /// Band name.
    pub band_name: String,
    /// The place text of the step (`band_locations.location_raw`).
    pub location_raw: String,
    /// The band's full `location_text`.
    pub location_text: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// The last query the geocoder tried (`band_locations.query`).
    pub failed_query: Option<String>,
    /// Why it failed (`band_locations.error`).
    pub failed_error: Option<String>,
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
pub const SYSTEM_PROMPT: &str = "You locate heavy metal bands. Given a band and the place text \
the band's page gives, reply with ONE JSON object and nothing else: \
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

/// The user message: one fact per line; absent facts are left out.
#[must_use]
pub fn user_message(input: &PromptInput) -> String {
    let mut lines = vec![
        format!("Band: {}", clip(&input.band_name, 200)),
        format!("Place to locate: {}", clip(&input.location_raw, 500)),
    ];
    if let Some(t) = input
        .location_text
        .as_deref()
        .filter(|t| !t.trim().is_empty())
    {
        lines.push(format!("Full location text of the band: {}", clip(t, 1000)));
    }
    if let Some(c) = input.country.as_deref().filter(|c| !c.trim().is_empty()) {
        lines.push(format!("Country of the band: {}", clip(c, 100)));
    }
    if let Some(q) = input
        .failed_query
        .as_deref()
        .filter(|q| !q.trim().is_empty())
    {
        lines.push(format!("The geocoder could not resolve: {}", clip(q, 500)));
    }
    if let Some(e) = input
        .failed_error
        .as_deref()
        .filter(|e| !e.trim().is_empty())
    {
        lines.push(format!("Geocoder error: {}", clip(e, 500)));
    }
    lines.push("Answer in JSON.".to_string());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> PromptInput {
        PromptInput {
            band_name: "Darkthrone".into(),
            location_raw: "Kolbotn, Viken".into(),
            location_text: Some("Kolbotn, Viken".into()),
            country: Some("Norway".into()),
            failed_query: Some("Kolbotn, Viken, NO".into()),
            failed_error: Some("below threshold".into()),
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
        assert!(user.contains("Kolbotn, Viken, NO") && user.contains("Darkthrone"));
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
        other.failed_query = None;
        assert_ne!(
            a.cache_key(),
            ChatRequest::new("m", &other, 256).cache_key()
        );
        assert_eq!(a.cache_key().len(), 64);
    }
}
