//! Settings of the LLM worker that `bandmap_config::LlmConfig` does not carry: per-model
//! rate limits (RPM/TPM) and the price table, whose defaults come from the provider's
//! published free-tier limits and prices (docs/llm.md), with optional overrides
//! (`LLM_RPM_PRIMARY`-style variables) read and validated in `LlmConfig::tuning`. The retry
//! policy (`LLM_MAX_ATTEMPTS`, `LLM_BACKOFF_*`) is the configuration's, its defaults
//! declared once in `bandmap_config::vars`.

use bandmap_config::{LlmTuning, ModelTuning};
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

impl LlmSettings {
    /// Defaults for the two configured models (the declared retry policy).
    #[must_use]
    pub fn defaults(primary: &str, fallback: &str) -> Self {
        Self::tuned(primary, fallback, &LlmTuning::default())
    }

    /// The two models with `t`'s overrides and retry policy.
    fn tuned(primary: &str, fallback: &str, t: &LlmTuning) -> Self {
        let model = |id: &str| {
            let (limits, price) = known_model(id);
            ModelSettings {
                id: id.to_string(),
                limits,
                price,
            }
        };
        let mut s = Self {
            primary: model(primary),
            fallback: model(fallback),
            max_attempts: t.max_attempts.max(1),
            backoff_base: t.backoff_base,
            backoff_max: t.backoff_max,
            request_timeout: Duration::from_secs(60),
            idle_poll: Duration::from_secs(5),
            max_tokens: 256,
        };
        for (m, o) in [(&mut s.primary, t.primary), (&mut s.fallback, t.fallback)] {
            m.apply(o);
        }
        s
    }

    /// Defaults plus the overrides of the configuration (`LLM_RPM_PRIMARY`…, docs/llm.md).
    #[must_use]
    pub fn from_config(cfg: &bandmap_config::LlmConfig) -> Self {
        Self::tuned(&cfg.model_primary, &cfg.model_fallback, &cfg.tuning)
    }

    /// Settings of `model` (primary or fallback), if it is one of them.
    #[must_use]
    pub fn model(&self, id: &str) -> Option<&ModelSettings> {
        [&self.primary, &self.fallback]
            .into_iter()
            .find(|m| m.id == id)
    }
}

impl ModelSettings {
    /// Applies a model's overrides; a price override completes the known price (or 0).
    fn apply(&mut self, o: ModelTuning) {
        self.limits.rpm = o.rpm.unwrap_or(self.limits.rpm);
        self.limits.tpm = o.tpm.unwrap_or(self.limits.tpm);
        if o.price_input.is_some() || o.price_output.is_some() {
            let base = self.price.unwrap_or(Price {
                input_per_mtok: 0.0,
                output_per_mtok: 0.0,
            });
            self.price = Some(Price {
                input_per_mtok: o.price_input.unwrap_or(base.input_per_mtok),
                output_per_mtok: o.price_output.unwrap_or(base.output_per_mtok),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::HashMap;

    /// The LLM configuration read from `vars` (the models are the defaults).
    fn cfg(
        vars: &[(&str, &str)],
    ) -> Result<bandmap_config::LlmConfig, bandmap_config::ConfigError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        bandmap_config::Config::from_map(&vars).map(|c| c.llm)
    }

    fn settings(vars: &[(&str, &str)]) -> LlmSettings {
        LlmSettings::from_config(&cfg(vars).unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn defaults_come_from_the_free_tier_table() {
        let s = settings(&[]);
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
    fn the_retry_defaults_are_the_declared_ones() {
        use bandmap_config::vars as v;
        for s in [settings(&[]), LlmSettings::defaults("a", "b")] {
            assert_eq!(s.max_attempts.to_string(), v::LLM_MAX_ATTEMPTS.default);
            assert_eq!(
                s.backoff_base.as_millis().to_string(),
                v::LLM_BACKOFF_BASE_MS.default
            );
            assert_eq!(
                s.backoff_max.as_secs().to_string(),
                v::LLM_BACKOFF_MAX_SECS.default
            );
        }
        let s = settings(&[("LLM_BACKOFF_MAX_SECS", "5")]);
        assert_eq!(s.backoff_max, Duration::from_secs(5));
    }

    #[test]
    fn overrides_apply_and_bad_values_are_named() {
        let s = settings(&[
            ("LLM_RPM_PRIMARY", "5"),
            ("LLM_TPM_FALLBACK", "900"),
            ("LLM_PRICE_OUTPUT_FALLBACK", "1.5"),
        ]);
        assert_eq!(s.primary.limits.rpm, 5);
        assert_eq!(s.fallback.limits.tpm, 900);
        let p = s.fallback.price.unwrap_or_else(|| unreachable!());
        assert!((p.input_per_mtok - 0.05).abs() < 1e-12);
        assert!((p.output_per_mtok - 1.5).abs() < 1e-12);

        let err = cfg(&[("LLM_TPM_PRIMARY", "lots")]).err();
        assert!(err.is_some_and(|e| e.to_string().contains("LLM_TPM_PRIMARY")));
    }
}
