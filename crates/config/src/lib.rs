//! Typed configuration: every environment variable of CONTRACT §2, read once at start and
//! validated. A bad value stops the process with a message naming the variable.
//!
//! Services receive the parts they need as plain values; there is no global settings object.

mod error;
mod limits;
mod llm;
mod parse;
mod sections;
pub mod vars;

pub use error::ConfigError;
pub use limits::{HttpLimits, LimitsConfig, PoolBudget, PoolsConfig, RateConfig, RetentionConfig};
pub use llm::{LlmTuning, ModelTuning};
pub use sections::*;
pub use vars::{DEFAULT_TILE_URL, VARIABLES, Variable};

use std::collections::HashMap;

/// Reads the environment (after loading `.env` from the working directory when present).
pub fn from_env() -> Result<Config, ConfigError> {
    // A missing .env is normal; a malformed one is reported.
    match dotenvy::dotenv() {
        Ok(_) => {}
        Err(e) if e.not_found() => {}
        Err(e) => return Err(ConfigError::DotEnv(e.to_string())),
    }
    let vars: HashMap<String, String> = std::env::vars().collect();
    Config::from_map(&vars)
}
