//! Settings of the LLM worker that `bandmap_config::LlmConfig` does not carry: per-model
//! rate limits (RPM/TPM), the price table, retry and backoff parameters. Defaults come from
//! the provider's published free-tier limits and prices (docs/llm.md); optional overrides
//! are read from `LLM_RPM_PRIMARY`-style environment variables.

use std::collections::HashMap;
use std::time::Duration;

/// Requests and tokens per minute allowed for one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimits {
    /// Requests per minute.
    pub rpm: u32,
    /// Tokens (prompt + completion) per minute.
    pub tpm: u32,
}

/// USD per one million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Input (prompt) tokens.
    pub input_per_mtok: f64,
    /// Output (completion) tokens.
    pub output_per_mtok: f64,
}

impl Price {
    /// Cost of one call in USD.
    #[must_use]
    pub fn cost(&self, prompt_tokens: u32, completion_tokens: u32) -> f64 {
        (f64::from(prompt_tokens) * self.input_per_mtok
            + f64::from(completion_tokens) * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// Limits and price of one model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// Model id sent to the API.
    pub id: String,
    /// Local rate limits.
    pub limits: RateLimits,
    /// Price; `None` when unknown (the cost is then stored as NULL).
    pub price: Option<Price>,
}

/// Everything the worker needs beyond `LlmConfig`.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    /// The large model, tried first.
    pub primary: ModelSettings,
    /// The small model, used when the primary is saturated.
    pub fallback: ModelSettings,
    /// API calls per row before the row is left `llm_needed` with an error.
    pub max_attempts: u32,
    /// First backoff delay; doubles per attempt (with jitter).
    pub backoff_base: Duration,
    /// Largest single backoff or rate-limit wait.
    pub backoff_max: Duration,
    /// Timeout of one HTTP request.
    pub request_timeout: Duration,
    /// Idle poll period (CONTRACT §10: at most 5 s).
    pub idle_poll: Duration,
    /// Completion token cap sent as `max_tokens`.
    pub max_tokens: u32,
}

/// Free-tier limits and published prices of the models the reference lists.
fn known_model(id: &str) -> (RateLimits, Option<Price>) {
    let (rpm, tpm, price) = match id {
        "llama-3.3-70b-versatile" => (30, 12_000, Some((0.59, 0.79))),
        "llama-3.1-8b-instant" => (30, 6_000, Some((0.05, 0.08))),
        "openai/gpt-oss-20b" => (30, 8_000, Some((0.075, 0.30))),
        "openai/gpt-oss-120b" => (30, 8_000, Some((0.15, 0.60))),
        "meta-llama/llama-4-scout-17b-16e-instruct" => (30, 30_000, Some((0.11, 0.34))),
        "qwen/qwen3-32b" => (60, 6_000, Some((0.29, 0.59))),
        // Unknown model: the most conservative free-tier figures, price unknown.
        _ => (30, 6_000, None),
    };
    (
        RateLimits { rpm, tpm },
        price.map(|(i, o)| Price {
            input_per_mtok: i,
            output_per_mtok: o,
        }),
    )
}

/// An override variable that is present but not a valid number.
#[derive(Debug, thiserror::Error)]
#[error("{var}={value:?} is not {expected}")]
pub struct SettingsError {
    /// Variable name.
    pub var: String,
    /// Its value.
    pub value: String,
    /// What was expected.
    pub expected: &'static str,
}

impl LlmSettings {
    /// Defaults for the two configured models.
    #[must_use]
    pub fn defaults(primary: &str, fallback: &str) -> Self {
        let model = |id: &str| {
            let (limits, price) = known_model(id);
            ModelSettings {
                id: id.to_string(),
                limits,
                price,
            }
        };
        Self {
            primary: model(primary),
            fallback: model(fallback),
            max_attempts: 4,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(60),
            request_timeout: Duration::from_secs(60),
            idle_poll: Duration::from_secs(5),
            max_tokens: 256,
        }
    }

    /// Defaults plus the overrides of the process environment.
    pub fn from_env(cfg: &bandmap_config::LlmConfig) -> Result<Self, SettingsError> {
        let vars: HashMap<String, String> = std::env::vars().collect();
        Self::from_map(cfg, &vars)
    }

    /// Defaults plus the overrides found in `vars` (see docs/llm.md for the names).
    pub fn from_map(
        cfg: &bandmap_config::LlmConfig,
        vars: &HashMap<String, String>,
    ) -> Result<Self, SettingsError> {
        let mut s = Self::defaults(&cfg.model_primary, &cfg.model_fallback);
        let r = Overrides(vars);
        for (suffix, m) in [("PRIMARY", &mut s.primary), ("FALLBACK", &mut s.fallback)] {
            r.u32(&format!("LLM_RPM_{suffix}"), &mut m.limits.rpm)?;
            r.u32(&format!("LLM_TPM_{suffix}"), &mut m.limits.tpm)?;
            let input = r.price(&format!("LLM_PRICE_INPUT_{suffix}"))?;
            let output = r.price(&format!("LLM_PRICE_OUTPUT_{suffix}"))?;
            if input.is_some() || output.is_some() {
                let base = m.price.unwrap_or(Price {
                    input_per_mtok: 0.0,
                    output_per_mtok: 0.0,
                });
                m.price = Some(Price {
                    input_per_mtok: input.unwrap_or(base.input_per_mtok),
                    output_per_mtok: output.unwrap_or(base.output_per_mtok),
                });
            }
        }
        r.u32("LLM_MAX_ATTEMPTS", &mut s.max_attempts)?;
        s.max_attempts = s.max_attempts.max(1);
        let mut base_ms = u32::try_from(s.backoff_base.as_millis()).unwrap_or(u32::MAX);
        r.u32("LLM_BACKOFF_BASE_MS", &mut base_ms)?;
        s.backoff_base = Duration::from_millis(u64::from(base_ms));
        let mut max_s = u32::try_from(s.backoff_max.as_secs()).unwrap_or(u32::MAX);
        r.u32("LLM_BACKOFF_MAX_SECS", &mut max_s)?;
        s.backoff_max = Duration::from_secs(u64::from(max_s));
        Ok(s)
    }

    /// Settings of `model` (primary or fallback), if it is one of them.
    #[must_use]
    pub fn model(&self, id: &str) -> Option<&ModelSettings> {
        [&self.primary, &self.fallback]
            .into_iter()
            .find(|m| m.id == id)
    }
}

struct Overrides<'a>(&'a HashMap<String, String>);

impl Overrides<'_> {
    fn raw(&self, var: &str) -> Option<&str> {
        self.0.get(var).map(|v| v.trim()).filter(|v| !v.is_empty())
    }

    fn u32(&self, var: &str, slot: &mut u32) -> Result<(), SettingsError> {
        if let Some(v) = self.raw(var) {
            *slot = v
                .parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| SettingsError {
                    var: var.to_string(),
                    value: v.to_string(),
                    expected: "a whole number above 0",
                })?;
        }
        Ok(())
    }

    fn price(&self, var: &str) -> Result<Option<f64>, SettingsError> {
        let Some(v) = self.raw(var) else {
            return Ok(None);
        };
        v.parse::<f64>()
            .ok()
            .filter(|p| p.is_finite() && *p >= 0.0)
            .map(Some)
            .ok_or_else(|| SettingsError {
                var: var.to_string(),
                value: v.to_string(),
                expected: "a finite price in USD per million tokens, at least 0",
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> bandmap_config::LlmConfig {
        bandmap_config::LlmConfig {
            base_url: url::Url::parse("http://127.0.0.1:1/v1").unwrap_or_else(|_| unreachable!()),
            api_key: None,
            model_primary: "llama-3.3-70b-versatile".into(),
            model_fallback: "llama-3.1-8b-instant".into(),
        }
    }

    #[test]
    fn defaults_come_from_the_free_tier_table() {
        let s = LlmSettings::from_map(&cfg(), &HashMap::new()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            s.primary.limits,
            RateLimits {
                rpm: 30,
                tpm: 12_000
            }
        );
        assert_eq!(
            s.fallback.limits,
            RateLimits {
                rpm: 30,
                tpm: 6_000
            }
        );
        let p = s.primary.price.unwrap_or_else(|| unreachable!());
        assert!((p.cost(1_000_000, 1_000_000) - 1.38).abs() < 1e-9);
    }

    #[test]
    fn overrides_apply_and_bad_values_are_named() {
        let vars: HashMap<String, String> = [
            ("LLM_RPM_PRIMARY", "5"),
            ("LLM_TPM_FALLBACK", "900"),
            ("LLM_PRICE_OUTPUT_FALLBACK", "1.5"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let s = LlmSettings::from_map(&cfg(), &vars).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.primary.limits.rpm, 5);
        assert_eq!(s.fallback.limits.tpm, 900);
        let p = s.fallback.price.unwrap_or_else(|| unreachable!());
        assert!((p.input_per_mtok - 0.05).abs() < 1e-12);
        assert!((p.output_per_mtok - 1.5).abs() < 1e-12);

        let bad: HashMap<String, String> =
            [("LLM_TPM_PRIMARY".to_string(), "lots".to_string())].into();
        let err = LlmSettings::from_map(&cfg(), &bad).err();
        assert!(err.is_some_and(|e| e.to_string().contains("LLM_TPM_PRIMARY")));
    }
}
