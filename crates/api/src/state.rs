//! Shared state of the handlers.

use crate::public::rate_limit::PublicLimiter;
use bandmap_config::Config;
use bandmap_time::{Clock, SystemClock};
use sqlx::PgPool;
use std::sync::Arc;

/// State handed to every handler.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Database pool of the admin API, authentication, probes and the server's background
    /// tasks.
    pub pool: PgPool,
    /// Database pool of the public endpoints that query the database (band card, search,
    /// country counts): its own connection budget and a short `statement_timeout`, so a
    /// flood of public requests cannot take the connections the admin API, the login and
    /// the probes need (issue 18). The same pool as [`AppState::pool`] unless
    /// [`AppState::with_public_pool`] sets one.
    pub public_pool: PgPool,
    /// The configuration read at start.
    pub config: Arc<Config>,
    /// Time source.
    pub clock: Arc<dyn Clock>,
    /// The in-memory map index (loaded on first use, refreshed by
    /// [`crate::background::start`]).
    pub map: Arc<bandmap_index::map::MapIndex>,
    /// The in-memory band search of the admin list (loaded on first use and at start by
    /// [`crate::background::start`]).
    pub band_search: Arc<bandmap_index::band_search::BandSearch>,
    /// The in-memory login gate (lockout front, password-check slots); its refused
    /// attempts are written by [`crate::auth::lockout::flusher`].
    pub login_gate: Arc<crate::auth::gate::LoginGate>,
    /// Per-client rate limit of the public endpoints that touch the database.
    pub public_limiter: Arc<PublicLimiter>,
    /// The public name search's in-memory copy (refreshed with the map; while it is not
    /// known fresh, searches run in SQL).
    pub name_search: Arc<bandmap_index::name_search::NameSearch>,
    /// Held refusals (429s are sent after `HTTP_REFUSAL_DELAY_MS`).
    pub tarpit: Arc<crate::tarpit::Tarpit>,
    /// Shared answers of short search texts (the SQL search).
    pub short_answers: Arc<crate::public::search::ShortAnswers>,
    /// The offline gazetteer of the admin suggestions, loaded on first use (None inside:
    /// the file could not be read).
    pub gazetteer: Arc<tokio::sync::OnceCell<Option<Arc<bandmap_gazetteer::Gazetteer>>>>,
    /// Country populations of `GET /api/countries`, read on first use from the file beside
    /// the gazetteer.
    pub populations: Arc<bandmap_index::populations::PopulationTable>,
}

impl AppState {
    /// State with the system clock; one pool for every path.
    pub fn new(pool: PgPool, config: Config) -> Self {
        crate::jwt_crypto::install();
        let gate = crate::auth::gate::LoginGate::new(config.server.login_concurrency);
        let public_limiter = Arc::new(PublicLimiter::new(config.limits.public_rate));
        let tarpit = Arc::new(crate::tarpit::Tarpit::new(&config.limits.http));
        Self {
            login_gate: Arc::new(gate),
            public_pool: pool.clone(),
            pool,
            config: Arc::new(config),
            clock: Arc::new(SystemClock),
            map: Arc::new(bandmap_index::map::MapIndex::new()),
            band_search: Arc::new(bandmap_index::band_search::BandSearch::new()),
            public_limiter,
            name_search: Arc::new(bandmap_index::name_search::NameSearch::new()),
            tarpit,
            short_answers: Arc::default(),
            gazetteer: Arc::new(tokio::sync::OnceCell::new()),
            populations: Arc::default(),
        }
    }

    /// The public endpoints use `public` instead of the admin pool.
    #[must_use]
    pub fn with_public_pool(mut self, public: PgPool) -> Self {
        self.public_pool = public;
        self
    }
}
