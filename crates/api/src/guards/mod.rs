//! What holds floods back, shared by the handlers and the accept loop: the per-client rate
//! limit of the public endpoints, the login gate (the lockout's in-memory front), held
//! refusals, and the shared answers of short searches. Defined here, outside the handler
//! modules, so the application state holds them without importing a handler.

pub mod login_gate;
pub mod public_limiter;
pub mod short_answers;
pub mod tarpit;

use bandmap_config::Config;
use std::sync::Arc;

/// The guards of one server (a field of [`crate::state::AppState`]).
#[derive(Clone, Debug)]
pub struct Guards {
    /// The in-memory login gate (lockout front, password-check slots); its refused
    /// attempts are written by [`crate::auth::lockout::flusher`].
    pub login_gate: Arc<login_gate::LoginGate>,
    /// Per-client rate limit of the public endpoints that touch the database.
    pub public_limiter: Arc<public_limiter::PublicLimiter>,
    /// Held refusals (429s are sent after `HTTP_REFUSAL_DELAY_MS`).
    pub tarpit: Arc<tarpit::Tarpit>,
    /// Shared answers of short search texts (the SQL search).
    pub short_answers: Arc<short_answers::ShortAnswers>,
}

impl Guards {
    /// The guards `config` sets.
    pub fn new(config: &Config) -> Guards {
        Guards {
            login_gate: Arc::new(login_gate::LoginGate::new(config.server.login_concurrency)),
            public_limiter: Arc::new(public_limiter::PublicLimiter::new(
                config.limits.public_rate,
            )),
            tarpit: Arc::new(tarpit::Tarpit::new(&config.limits.http)),
            short_answers: Arc::default(),
        }
    }
}
