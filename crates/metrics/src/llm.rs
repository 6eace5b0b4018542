//! The LLM worker's API calls, tokens and cost per model, as this process made them. The
//! all-time totals of every process come from `llm_cache` ([`crate::db_gauges`]).

use metrics::{Unit, counter, describe_counter, describe_gauge, gauge};

/// Chat-completion requests sent, by `model` and `outcome` (`ok`, `rate_limited`,
/// `server_error`, `invalid_json`, `refused`, `transport_error`, `bad_body`).
pub const CALLS: &str = "bandmap_llm_api_calls_total";
/// Tokens billed, by `model` and `kind` (`prompt`, `completion`).
pub const TOKENS: &str = "bandmap_llm_tokens_total";
/// USD spent by this process since it started, by `model` (a gauge: the exporter's
/// counters are whole numbers).
pub const COST: &str = "bandmap_llm_cost_usd";

pub(crate) fn describe() {
    describe_counter!(
        CALLS,
        Unit::Count,
        "LLM chat-completion requests sent by this process, by model and outcome"
    );
    describe_counter!(
        TOKENS,
        Unit::Count,
        "LLM tokens billed to this process, by model and kind"
    );
    describe_gauge!(
        COST,
        "USD spent on LLM calls by this process since it started, by model"
    );
}

/// An answered call (a reply, valid or not) of `model` (a model id from the configuration).
pub fn answered(model: &str, prompt_tokens: u32, completion_tokens: u32, cost_usd: Option<f64>) {
    let model = model.to_string();
    counter!(CALLS, "model" => model.clone(), "outcome" => "ok").increment(1);
    counter!(TOKENS, "model" => model.clone(), "kind" => "prompt")
        .increment(u64::from(prompt_tokens));
    counter!(TOKENS, "model" => model.clone(), "kind" => "completion")
        .increment(u64::from(completion_tokens));
    if let Some(cost) = cost_usd.filter(|c| c.is_finite() && *c >= 0.0) {
        gauge!(COST, "model" => model).increment(cost);
    }
}

/// A failed call of `model`; `outcome` is one of the fixed names of [`CALLS`].
pub fn failed(model: &str, outcome: &'static str) {
    counter!(CALLS, "model" => model.to_string(), "outcome" => outcome).increment(1);
}
