//! Tuning of the LLM worker (docs/llm.md): per-model rate limits and prices (unset: the
//! worker's table of known models), and the retry policy (unset: the defaults declared in
//! `vars.rs`, which the worker takes from here).

use crate::ConfigError;
use crate::parse::Reader;
use crate::vars::{self as v, Variable};
use std::collections::HashMap;
use std::time::Duration;

/// Overrides of one model's limits and price (`…_PRIMARY` or `…_FALLBACK`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelTuning {
    /// `LLM_RPM_*`: requests per minute.
    pub rpm: Option<u32>,
    /// `LLM_TPM_*`: tokens per minute.
    pub tpm: Option<u32>,
    /// `LLM_PRICE_INPUT_*`: USD per million prompt tokens.
    pub price_input: Option<f64>,
    /// `LLM_PRICE_OUTPUT_*`: USD per million completion tokens.
    pub price_output: Option<f64>,
}

/// The LLM worker's model overrides and retry policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LlmTuning {
    /// The model of `LLM_MODEL_PRIMARY`.
    pub primary: ModelTuning,
    /// The model of `LLM_MODEL_FALLBACK`.
    pub fallback: ModelTuning,
    /// `LLM_MAX_ATTEMPTS`: API calls per row per pass (at least 1).
    pub max_attempts: u32,
    /// `LLM_BACKOFF_BASE_MS`: first backoff delay.
    pub backoff_base: Duration,
    /// `LLM_BACKOFF_MAX_SECS`: largest single wait.
    pub backoff_max: Duration,
}

impl Default for LlmTuning {
    /// No model override, the retry policy declared in `vars.rs` (what an empty
    /// environment reads).
    fn default() -> LlmTuning {
        let unset = HashMap::new();
        match tuning(&Reader::new(&unset)) {
            Ok(t) => t,
            // The declared defaults are constants; a test reads them.
            Err(e) => unreachable!("a declared LLM default is invalid: {e}"),
        }
    }
}

const POSITIVE: &str = "a whole number above 0";
const PRICE: &str = "a finite price in USD per million tokens, at least 0";

pub(crate) fn tuning(r: &Reader<'_>) -> Result<LlmTuning, ConfigError> {
    Ok(LlmTuning {
        primary: ModelTuning {
            rpm: positive(r, v::LLM_RPM_PRIMARY)?,
            tpm: positive(r, v::LLM_TPM_PRIMARY)?,
            price_input: price(r, v::LLM_PRICE_INPUT_PRIMARY)?,
            price_output: price(r, v::LLM_PRICE_OUTPUT_PRIMARY)?,
        },
        fallback: ModelTuning {
            rpm: positive(r, v::LLM_RPM_FALLBACK)?,
            tpm: positive(r, v::LLM_TPM_FALLBACK)?,
            price_input: price(r, v::LLM_PRICE_INPUT_FALLBACK)?,
            price_output: price(r, v::LLM_PRICE_OUTPUT_FALLBACK)?,
        },
        max_attempts: positive_or_declared(r, v::LLM_MAX_ATTEMPTS)?,
        backoff_base: Duration::from_millis(u64::from(positive_or_declared(
            r,
            v::LLM_BACKOFF_BASE_MS,
        )?)),
        backoff_max: Duration::from_secs(u64::from(positive_or_declared(
            r,
            v::LLM_BACKOFF_MAX_SECS,
        )?)),
    })
}

/// A whole number above 0; unset, the declared default.
fn positive_or_declared(r: &Reader<'_>, var: Variable) -> Result<u32, ConfigError> {
    match r.number::<u32>(var, POSITIVE)? {
        0 => Err(r.fail(var, "0", POSITIVE)),
        n => Ok(n),
    }
}

fn positive(r: &Reader<'_>, var: Variable) -> Result<Option<u32>, ConfigError> {
    let Some(v) = r.raw(var) else {
        return Ok(None);
    };
    match v.parse::<u32>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(r.fail(var, v, POSITIVE)),
    }
}

fn price(r: &Reader<'_>, var: Variable) -> Result<Option<f64>, ConfigError> {
    let Some(v) = r.raw(var) else {
        return Ok(None);
    };
    match v.parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(Some(p)),
        _ => Err(r.fail(var, v, PRICE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_retry_policy_is_the_declared_one() {
        let t = LlmTuning::default();
        assert_eq!(t.max_attempts.to_string(), v::LLM_MAX_ATTEMPTS.default);
        assert_eq!(
            t.backoff_base.as_millis().to_string(),
            v::LLM_BACKOFF_BASE_MS.default
        );
        assert_eq!(
            t.backoff_max.as_secs().to_string(),
            v::LLM_BACKOFF_MAX_SECS.default
        );
        assert_eq!(t.primary, ModelTuning::default());
        assert_eq!(t.fallback, ModelTuning::default());
    }

    #[test]
    fn a_set_retry_policy_overrides_and_zero_is_refused() {
        let vars: HashMap<String, String> =
            [("LLM_MAX_ATTEMPTS", "7"), ("LLM_BACKOFF_BASE_MS", "250")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let t = tuning(&Reader::new(&vars)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.max_attempts, 7);
        assert_eq!(t.backoff_base, Duration::from_millis(250));
        assert_eq!(t.backoff_max, Duration::from_secs(60));
        let zero: HashMap<String, String> =
            [("LLM_MAX_ATTEMPTS".to_string(), "0".to_string())].into();
        let err = tuning(&Reader::new(&zero)).err();
        assert!(err.is_some_and(|e| e.to_string().contains("LLM_MAX_ATTEMPTS")));
    }
}
