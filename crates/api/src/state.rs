//! Shared state of the handlers: the pools, the configuration, the clock, the read models
//! ([`ReadModels`]) and the guards ([`Guards`]), neither of them defined by a handler
//! module.

use crate::guards::Guards;
use crate::read_models::ReadModels;
use bandmap_config::Config;
use bandmap_time::{Clock, SystemClock};
use sqlx::PgPool;
use std::ops::Deref;
use std::sync::Arc;

/// State handed to every handler: one reference-counted handle on [`AppShared`].
///
/// axum clones a route's state for every request it answers, before any extractor runs.
/// Cloned field by field, that was fourteen reference counts written by every worker
/// thread and dropped after each request, `/healthz` and the map included (`perf`: ~5 % of
/// a busy `serve`, docs/performance.md "One handle on the state"); behind one `Arc` it is
/// one. The fields are read through `Deref` (`state.pool`, `state.read.map`).
#[derive(Clone, Debug)]
pub struct AppState(Arc<AppShared>);

/// What [`AppState`] shares.
#[derive(Clone, Debug)]
pub struct AppShared {
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
    /// The in-memory read models (refreshed by [`crate::background::start`]).
    pub read: ReadModels,
    /// The rate limit, the login gate, the held refusals and the shared short answers.
    pub guards: Guards,
}

impl Deref for AppState {
    type Target = AppShared;

    fn deref(&self) -> &AppShared {
        &self.0
    }
}

impl AppState {
    /// State with the system clock; one pool for every path.
    pub fn new(pool: PgPool, config: Config) -> Self {
        crate::jwt_crypto::install();
        Self(Arc::new(AppShared {
            guards: Guards::new(&config),
            public_pool: pool.clone(),
            pool,
            config: Arc::new(config),
            clock: Arc::new(SystemClock),
            read: ReadModels::new(),
        }))
    }

    /// The public endpoints use `public` instead of the admin pool.
    #[must_use]
    pub fn with_public_pool(mut self, public: PgPool) -> Self {
        Arc::make_mut(&mut self.0).public_pool = public;
        self
    }

    /// Time comes from `clock` (tests move it by hand).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        Arc::make_mut(&mut self.0).clock = clock;
        self
    }
}
