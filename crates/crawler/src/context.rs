//! The crawler's context: database, upstream client, URL builder, settings, clock, shutdown
//! signal, and the fetch helpers that apply politeness (rule 5) and abandon a request on
//! shutdown.

use crate::error::ItemError;
use bandmap_config::Config;
use bandmap_time::{Clock, SystemClock};
use bandmap_upstream::{SolverConfig, UpstreamClient, UpstreamMode, UpstreamUrls};
use futures::future::BoxFuture;
use serde_json::Value;
use sqlx::PgPool;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Timing settings of the crawler (from `CrawlerConfig`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Politeness delay after every upstream request, failed or not (rule 5).
    pub delay: Duration,
    /// Pause between countries of a full crawl (rule 8).
    pub country_pause: Duration,
    /// Rule 1 interval.
    pub full_crawl_interval_days: u32,
    /// Period of the automatic incremental crawl.
    pub incremental_interval: Duration,
    /// Human description of the page source, for the heartbeat.
    pub source: String,
}

/// Test seam: called at each batch checkpoint with (run id, batch number), before the cancel
/// flag is read. Tests use it to set the flag between batches, or to panic.
pub type BatchHook = Arc<dyn Fn(i64, u64) -> BoxFuture<'static, ()> + Send + Sync>;

/// Counters of politeness waits, for tests and benchmarks (waits are counted, not timed).
#[derive(Debug, Default)]
pub struct Waits {
    /// Politeness delays taken after upstream requests.
    pub politeness: AtomicU64,
    /// Pauses taken between countries.
    pub country_pauses: AtomicU64,
}

/// Everything a job needs.
pub struct Crawler {
    pub(crate) pool: PgPool,
    pub(crate) settings: Settings,
    pub(crate) client: Arc<UpstreamClient>,
    pub(crate) urls: UpstreamUrls,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) shutdown: CancellationToken,
    pub(crate) waits: Waits,
    pub(crate) hook: Option<BatchHook>,
    pub(crate) instance: bandmap_db::run_owner::Instance,
}

impl std::fmt::Debug for Crawler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crawler")
            .field("settings", &self.settings)
            .field("urls", &self.urls)
            .finish_non_exhaustive()
    }
}

impl Crawler {
    /// Builds the crawler from the configuration (the client is created, no request made).
    pub fn from_config(
        pool: PgPool,
        config: &Config,
        shutdown: CancellationToken,
    ) -> anyhow::Result<Self> {
        let (mode, source) = match &config.upstream.mode {
            bandmap_config::UpstreamMode::Solver => (
                UpstreamMode::Solver,
                format!("solver {}", config.upstream.solver_url),
            ),
            bandmap_config::UpstreamMode::Recorded(dir) => (
                UpstreamMode::Recorded(dir.clone()),
                format!("recorded {}", dir.display()),
            ),
        };
        let client = UpstreamClient::new(
            &mode,
            SolverConfig::new(config.upstream.solver_url.as_str()),
        )?;
        let urls = UpstreamUrls::new(config.upstream.base_url.as_str())?;
        let c = &config.crawler;
        Ok(Self {
            pool,
            settings: Settings {
                delay: c.delay,
                country_pause: c.country_pause,
                full_crawl_interval_days: c.full_crawl_interval_days,
                incremental_interval: c.incremental_interval,
                source,
            },
            client: Arc::new(client),
            urls,
            clock: Arc::new(SystemClock),
            shutdown,
            waits: Waits::default(),
            hook: None,
            instance: bandmap_db::run_owner::Instance::new(bandmap_db::Service::Crawler),
        })
    }

    /// Replaces the upstream client (tests: a solver client with a short backoff).
    #[must_use]
    pub fn with_client(mut self, client: UpstreamClient) -> Self {
        self.client = Arc::new(client);
        self
    }

    /// Replaces the clock.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Installs a batch hook (tests).
    #[must_use]
    pub fn with_batch_hook(mut self, hook: BatchHook) -> Self {
        self.hook = Some(hook);
        self
    }

    /// The database pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The upstream client (its counters: `client().stats()`).
    pub fn client(&self) -> &UpstreamClient {
        &self.client
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The owner recorded on this instance's runs (takes the instance lock on first use).
    pub async fn owner(&self) -> Result<Option<bandmap_db::runs::Owner>, bandmap_db::DbError> {
        self.instance.owner(&self.pool).await
    }

    /// Releases the instance lock: other replicas' recovery may then close its runs.
    pub async fn release_instance(&self) {
        self.instance.release().await;
    }

    /// Politeness delays taken so far.
    pub fn politeness_waits(&self) -> u64 {
        self.waits.politeness.load(Ordering::Relaxed)
    }

    /// Pauses between countries taken so far.
    pub fn country_pauses(&self) -> u64 {
        self.waits.country_pauses.load(Ordering::Relaxed)
    }

    /// Sleeps `d`, or returns `Err(Stopped)` as soon as shutdown is requested.
    pub(crate) async fn sleep(&self, d: Duration) -> Result<(), ItemError> {
        if self.shutdown.is_cancelled() {
            return Err(ItemError::Stopped);
        }
        if d.is_zero() {
            return Ok(());
        }
        tokio::select! {
            () = tokio::time::sleep(d) => Ok(()),
            () = self.shutdown.cancelled() => Err(ItemError::Stopped),
        }
    }

    /// The pause between two countries of a full crawl.
    pub(crate) async fn country_pause(&self) -> Result<(), ItemError> {
        self.waits.country_pauses.fetch_add(1, Ordering::Relaxed);
        self.sleep(self.settings.country_pause).await
    }

    /// Waits the politeness delay after a request, whatever its outcome (rule 5).
    async fn polite(&self) -> Result<(), ItemError> {
        self.waits.politeness.fetch_add(1, Ordering::Relaxed);
        self.sleep(self.settings.delay).await
    }

    /// Fetches an HTML page, then waits the politeness delay.
    pub(crate) async fn fetch_html(&self, url: &str) -> Result<String, ItemError> {
        let r = tokio::select! {
            r = self.client.get_html(url) => r,
            () = self.shutdown.cancelled() => return Err(ItemError::Stopped),
        };
        self.polite().await?;
        Ok(r?)
    }

    /// Fetches a JSON endpoint, then waits the politeness delay.
    pub(crate) async fn fetch_json(&self, url: &str) -> Result<Value, ItemError> {
        let r = tokio::select! {
            r = self.client.get_json(url) => r,
            () = self.shutdown.cancelled() => return Err(ItemError::Stopped),
        };
        self.polite().await?;
        Ok(r?)
    }
}
