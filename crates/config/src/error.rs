//! Configuration errors; each names the variable at fault.

/// Why the configuration could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A variable holds a value that cannot be used.
    #[error("invalid value for {var}: {reason} (got {value:?})")]
    Invalid {
        /// Name of the environment variable.
        var: &'static str,
        /// The offending value (never a secret: secrets are reported without their value).
        value: String,
        /// What was expected.
        reason: String,
    },
    /// The `.env` file exists but cannot be read.
    #[error("cannot read .env: {0}")]
    DotEnv(String),
}
