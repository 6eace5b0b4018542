//! Optional tuning of the LLM worker (docs/llm.md): per-model rate limits and prices, and
//! the retry policy. Unset means the worker's defaults (its table of known models).

use crate::ConfigError;
use crate::parse::Reader;
use crate::vars::{self as v, Variable};

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

/// Overrides of the LLM worker's defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LlmTuning {
    /// The model of `LLM_MODEL_PRIMARY`.
    pub primary: ModelTuning,
    /// The model of `LLM_MODEL_FALLBACK`.
    pub fallback: ModelTuning,
    /// `LLM_MAX_ATTEMPTS`: API calls per row per pass.
    pub max_attempts: Option<u32>,
    /// `LLM_BACKOFF_BASE_MS`: first backoff delay in milliseconds.
    pub backoff_base_ms: Option<u32>,
    /// `LLM_BACKOFF_MAX_SECS`: largest single wait in seconds.
    pub backoff_max_secs: Option<u32>,
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
        max_attempts: positive(r, v::LLM_MAX_ATTEMPTS)?,
        backoff_base_ms: positive(r, v::LLM_BACKOFF_BASE_MS)?,
        backoff_max_secs: positive(r, v::LLM_BACKOFF_MAX_SECS)?,
    })
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
