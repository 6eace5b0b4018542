//! Recorded mode (`LLM_MODE=recorded:DIR`): the answers of the model are read from
//! `DIR/answers.tsv` instead of asking the API, the way `UPSTREAM_MODE=recorded:DIR` reads
//! upstream pages from files. It is what lets the offline demo show the LLM view, its costs
//! and its chart on the first run with no key. Everything after the answer (validation,
//! `llm_cache` rows, cost, the geocoding of the city) is the production code path.
//!
//! File format (UTF-8, tab-separated, `#` comments, one header line):
//! `band  place  city  region  country  confidence`, where `band` and `place` are the
//! `Band:` and `Place to locate:` lines of the prompt, and an empty `city`/`region`/`country`
//! is JSON `null`. A question with no recorded answer is refused like an API 404 ("not
//! recorded"): the row stays `llm_needed` with that error and nothing is invented.
//!
//! Token counts are estimated at four characters per token (the usual rule of thumb of
//! the tokenizers), so the cost shown is what the same call would roughly cost on the API.

use crate::client::{ChatError, ChatReply};
use crate::prompt::ChatRequest;
use crate::rate_headers::RateHeaders;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Name of the answers file inside the recording directory.
pub const ANSWERS_FILE: &str = "answers.tsv";

/// Recorded answers, keyed by (band, place).
#[derive(Debug, Clone, Default)]
pub struct Recording {
    file: PathBuf,
    answers: HashMap<(String, String), Value>,
}

/// Why a recording cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The file is missing or unreadable.
    #[error("cannot read recorded LLM answers {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line does not have the six columns or a valid confidence.
    #[error("{path} line {line}: {reason}")]
    Line {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

fn nullable(s: &str) -> Value {
    let s = s.trim();
    if s.is_empty() {
        Value::Null
    } else {
        Value::String(s.to_string())
    }
}

impl Recording {
    /// Reads `dir/answers.tsv`.
    pub fn load(dir: &Path) -> Result<Self, RecordingError> {
        let file = dir.join(ANSWERS_FILE);
        let path = file.display().to_string();
        let text = std::fs::read_to_string(&file).map_err(|source| RecordingError::Io {
            path: path.clone(),
            source,
        })?;
        Self::parse(file, &text)
    }

    /// Parses the text of an answers file (`file` names it in errors).
    pub fn parse(file: PathBuf, text: &str) -> Result<Self, RecordingError> {
        let path = file.display().to_string();
        let mut answers = HashMap::new();
        let mut header_seen = false;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if !header_seen {
                header_seen = true;
                continue;
            }
            let fail = |reason: String| RecordingError::Line {
                path: path.clone(),
                line: i + 1,
                reason,
            };
            let cols: Vec<&str> = line.split('\t').collect();
            let [band, place, city, region, country, confidence] = cols.as_slice() else {
                return Err(fail(format!("{} columns, expected 6", cols.len())));
            };
            let confidence: f64 = confidence
                .trim()
                .parse()
                .ok()
                .filter(|c: &f64| (0.0..=1.0).contains(c))
                .ok_or_else(|| fail(format!("confidence {confidence:?} is not in [0, 1]")))?;
            let extraction = json!({
                "city": nullable(city),
                "region": nullable(region),
                "country": nullable(country),
                "confidence": confidence,
            });
            answers.insert(
                (band.trim().to_string(), place.trim().to_string()),
                extraction,
            );
        }
        Ok(Self { file, answers })
    }

    /// Number of recorded answers.
    #[must_use]
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether nothing is recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// The answer to `request`, shaped as the API's chat completion.
    pub fn complete(&self, request: &ChatRequest) -> Result<ChatReply, ChatError> {
        let user = request
            .messages
            .iter()
            .find(|m| m.role == "user")
            .map(|m| m.content.as_str())
            .unwrap_or_default();
        let line = |prefix: &str| {
            user.lines()
                .find_map(|l| l.strip_prefix(prefix))
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        let (band, place) = (line("Band: "), line("Place to locate: "));
        let Some(extraction) = self.answers.get(&(band.clone(), place.clone())) else {
            return Err(ChatError::Refused {
                status: 404,
                message: format!(
                    "not recorded: no answer for band {band:?}, place {place:?} in {}",
                    self.file.display()
                ),
            });
        };
        let content = extraction.to_string();
        let prompt_chars: usize = request
            .messages
            .iter()
            .map(|m| m.content.chars().count())
            .sum();
        let prompt_tokens = u32::try_from(prompt_chars.div_ceil(4)).unwrap_or(u32::MAX);
        let completion_tokens =
            u32::try_from(content.chars().count().div_ceil(4)).unwrap_or(u32::MAX);
        let raw = json!({
            "id": format!("chatcmpl-recorded-{}", &request.cache_key()[..16]),
            "object": "chat.completion",
            "model": request.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens.saturating_add(completion_tokens)},
            "x_recorded": {"file": self.file.display().to_string()},
        })
        .to_string();
        Ok(ChatReply {
            content,
            prompt_tokens,
            completion_tokens,
            raw,
            rate: RateHeaders::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::PromptInput;

    const TEXT: &str = "# demo\nband\tplace\tcity\tregion\tcountry\tconfidence\n\
Ensiferum\tStadi\tHelsinki\tUusimaa\tFinland\t0.9\n\
Nobody\tSomewhere\t\t\tFinland\t0.2\n";

    fn request(band: &str, place: &str) -> ChatRequest {
        let input = PromptInput {
            band_name: band.into(),
            location_raw: place.into(),
            country: Some("Finland".into()),
            ..Default::default()
        };
        ChatRequest::new("llama-3.3-70b-versatile", &input, 256)
    }

    #[test]
    fn a_recorded_question_is_answered_as_a_completion_with_usage() {
        let r = Recording::parse("answers.tsv".into(), TEXT).unwrap_or_default();
        assert_eq!(r.len(), 2);
        let reply = r.complete(&request("Ensiferum", "Stadi"));
        let Ok(reply) = reply else {
            panic!("{reply:?}");
        };
        let v: Value = serde_json::from_str(&reply.content).unwrap_or_default();
        assert_eq!(v["city"], "Helsinki");
        assert_eq!(v["region"], "Uusimaa");
        assert!(reply.prompt_tokens > 50 && reply.completion_tokens > 5);
        let raw: Value = serde_json::from_str(&reply.raw).unwrap_or_default();
        assert_eq!(raw["model"], "llama-3.3-70b-versatile");
        assert_eq!(raw["choices"][0]["message"]["content"], reply.content);
        let none = r
            .complete(&request("Nobody", "Somewhere"))
            .map(|r| r.content)
            .unwrap_or_default();
        assert!(none.contains("\"city\":null"), "{none}");
    }

    #[test]
    fn an_unrecorded_question_is_refused_not_invented() {
        let r = Recording::parse("answers.tsv".into(), TEXT).unwrap_or_default();
        let err = r.complete(&request("Ensiferum", "Espoo"));
        assert!(
            matches!(&err, Err(ChatError::Refused { status: 404, message }) if message.contains("not recorded")),
            "{err:?}"
        );
    }

    #[test]
    fn a_bad_line_names_the_file_and_line() {
        let bad = "band\tplace\tcity\tregion\tcountry\tconfidence\nA\tB\tC\n";
        let err = Recording::parse("x.tsv".into(), bad)
            .err()
            .map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("x.tsv line 2: 3 columns, expected 6"));
        let bad = "h\nA\tB\tC\t\t\t1.5\n";
        let err = Recording::parse("x.tsv".into(), bad)
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("not in [0, 1]")));
    }
}
