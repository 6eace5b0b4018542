//! Dispatch of each command to its service.

use crate::cli::Command;
use anyhow::Context;
use bandmap_config::{Config, PoolBudget};
use bandmap_db::PgPool;
use bandmap_db::connect::{PoolSize, RetryPolicy, connect};
use bandmap_runtime::{Service, ServiceFactory, supervise};
use futures::FutureExt;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Longest wait of a public request for a database connection before it is answered 503
/// (the public pool is small on purpose; waiting longer only piles requests up).
const PUBLIC_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

/// Runs the chosen command.
pub async fn dispatch(command: Command, config: Config) -> anyhow::Result<()> {
    // One TLS crypto provider for every outbound HTTPS client (reqwest is built without one).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    tokio::spawn(wait_for_signal(trigger));
    match command {
        Command::Migrate => {
            let pool = open(&config, small_budget(), None).await?;
            let report = bandmap_db::migrate::run(&pool).await?;
            println!(
                "migrations: {} applied, {} already applied",
                report.applied.len(),
                report.skipped
            );
            Ok(())
        }
        Command::Serve => {
            migrate_first(&config).await?;
            if config.metrics_addr.is_some() {
                // The scrape-time database gauges get a pool of their own, apart from the
                // admin and public pools of the server.
                let pool = open(&config, small_budget(), None).await?;
                metrics(&config, &pool, &shutdown).await?;
            }
            serve(config, shutdown).await
        }
        Command::All => {
            let pool = open_and_migrate(&config).await?;
            metrics(&config, &pool, &shutdown).await?;
            run_all(pool, Arc::new(config), shutdown).await
        }
        Command::Crawler => background(&config, bandmap_crawler::run, shutdown).await,
        Command::Geocoder => background(&config, bandmap_geocode::run, shutdown).await,
        Command::Enqueue => background(&config, bandmap_enqueue::run, shutdown).await,
        Command::Llm => background(&config, bandmap_llm::run, shutdown).await,
        Command::Import { file } => import(&config, &file).await,
        Command::HashPassword => hash_password(),
    }
}

fn hash_password() -> anyhow::Result<()> {
    let mut password = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut password)
        .context("reading the password")?;
    let password = password.trim_end_matches(['\n', '\r']);
    anyhow::ensure!(!password.is_empty(), "empty password on standard input");
    let hash = bandmap_accounts::hash(password)?;
    println!("{hash}");
    Ok(())
}

/// `bandmap import FILE`: the same upsert path as the crawler and the import endpoint.
async fn import(config: &Config, file: &std::path::Path) -> anyhow::Result<()> {
    let pool = open_and_migrate(config).await?;
    let report = bandmap_import::import_file(&pool, file)
        .await
        .with_context(|| format!("importing {}", file.display()))?;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}

/// Two connections, no statement timeout: migrations and one-shot commands.
fn small_budget() -> PoolBudget {
    PoolBudget {
        max_connections: 2,
        statement_timeout: None,
    }
}

async fn open(
    config: &Config,
    budget: PoolBudget,
    acquire_timeout: Option<Duration>,
) -> anyhow::Result<PgPool> {
    connect(
        &config.database_url,
        PoolSize {
            max_connections: budget.max_connections,
            statement_timeout: budget.statement_timeout,
            acquire_timeout,
        },
        RetryPolicy::default(),
    )
    .await
    .context("connecting to PostgreSQL (DATABASE_URL)")
}

/// Rule 25: every start applies migrations (under the advisory lock) before serving.
async fn migrate_first(config: &Config) -> anyhow::Result<()> {
    let pool = open(config, small_budget(), None).await?;
    bandmap_db::migrate::run(&pool)
        .await
        .context("applying migrations")?;
    pool.close().await;
    Ok(())
}

/// Migrations, then the pool of the background workers (`DB_POOL_WORKER_MAX`, no
/// statement timeout).
async fn open_and_migrate(config: &Config) -> anyhow::Result<PgPool> {
    let pool = open(config, config.limits.pools.worker, None).await?;
    bandmap_db::migrate::run(&pool)
        .await
        .context("applying migrations")?;
    Ok(pool)
}

/// Signature shared by every background service's entry point.
type ServiceRun =
    fn(PgPool, Arc<Config>, CancellationToken) -> BoxFuture<'static, anyhow::Result<()>>;

/// Runs one background service on its own (migrations first, rule 25).
async fn background<F, Fut>(
    config: &Config,
    run: F,
    shutdown: CancellationToken,
) -> anyhow::Result<()>
where
    F: FnOnce(PgPool, Arc<Config>, CancellationToken) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let pool = open_and_migrate(config).await?;
    metrics(config, &pool, &shutdown).await?;
    run(pool, Arc::new(config.clone()), shutdown).await
}

/// `METRICS_ADDR` set: this process records metrics and serves `GET /metrics` there (every
/// service command, so separately run workers show their own counters).
async fn metrics(
    config: &Config,
    pool: &PgPool,
    shutdown: &CancellationToken,
) -> anyhow::Result<()> {
    if let Some(addr) = config.metrics_addr {
        bandmap_metrics::start(addr, pool.clone(), shutdown.clone()).await?;
    }
    Ok(())
}

/// The background services of `bandmap all` that need nothing shared, by name.
fn background_services() -> Vec<(&'static str, ServiceRun)> {
    vec![
        (Service::Crawler.as_str(), |p, c, s| {
            bandmap_crawler::run(p, c, s).boxed()
        }),
        (Service::Enqueue.as_str(), |p, c, s| {
            bandmap_enqueue::run(p, c, s).boxed()
        }),
    ]
}

/// One geocoder for the whole process, built on first use: the geocoding worker and the LLM
/// worker then share one provider rate limiter (rule 14's spacing holds across both) and
/// one gazetteer in memory. A failed build is that service's failure (the supervisor
/// retries it), not the process's.
type SharedGeocoder = Arc<tokio::sync::OnceCell<bandmap_geocode::Geocoder>>;

async fn shared_geocoder(
    cell: &SharedGeocoder,
    pool: &PgPool,
    config: &Config,
) -> anyhow::Result<bandmap_geocode::Geocoder> {
    let geocoder = cell
        .get_or_try_init(|| bandmap_geocode::Geocoder::new(pool.clone(), &config.geocoder))
        .await?;
    Ok(geocoder.clone())
}

/// The geocoding and LLM workers of `bandmap all`, around one [`SharedGeocoder`].
fn geocoding_services(
    pool: &PgPool,
    config: &Arc<Config>,
    shutdown: &CancellationToken,
) -> Vec<(&'static str, ServiceFactory)> {
    let cell = SharedGeocoder::default();
    let geocoder: ServiceFactory = Box::new({
        let (pool, config, shutdown, cell) =
            (pool.clone(), config.clone(), shutdown.clone(), cell.clone());
        move || {
            let (pool, config, shutdown, cell) =
                (pool.clone(), config.clone(), shutdown.clone(), cell.clone());
            async move {
                let g = shared_geocoder(&cell, &pool, &config).await?;
                bandmap_geocode::run_with_geocoder(pool, config, g, shutdown).await
            }
            .boxed()
        }
    });
    let llm: ServiceFactory = Box::new({
        let (pool, config, shutdown) = (pool.clone(), config.clone(), shutdown.clone());
        move || {
            let (pool, config, shutdown, cell) =
                (pool.clone(), config.clone(), shutdown.clone(), cell.clone());
            async move {
                let g = shared_geocoder(&cell, &pool, &config).await?;
                bandmap_llm::run_with_geocoder(pool, config, g, shutdown).await
            }
            .boxed()
        }
    });
    vec![
        (Service::Geocoder.as_str(), geocoder),
        (Service::Llm.as_str(), llm),
    ]
}

/// `serve` with its own pools (issue 18): the admin pool (admin API, login, probes,
/// background tasks) and the public pool (card, search, country counts), each with its
/// budget and statement timeout, apart from the workers' pool under `bandmap all`, so no
/// path can take the connections of another.
async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    let pools = config.limits.pools;
    let pool = open(&config, pools.admin, None).await?;
    let public = open(&config, pools.public, Some(PUBLIC_ACQUIRE_TIMEOUT)).await?;
    for why in &config.admin.unusable {
        tracing::warn!("{why}: ignored, admin login is impossible until it is fixed");
    }
    if let Some(why) = &config.server.import_token_unusable {
        tracing::warn!("{why}: ignored, the import endpoint refuses everyone until it is fixed");
    }
    match bandmap_accounts::seed_admin(&pool, &config.admin).await? {
        bandmap_accounts::SeedOutcome::Seeded(user) => {
            tracing::info!(%user, "admin account seeded")
        }
        bandmap_accounts::SeedOutcome::NotConfigured => {
            tracing::warn!(
                "ADMIN_SEED_USERNAME and a password are not set: admin login is impossible"
            )
        }
    }
    let state = bandmap_api::AppState::new(pool, config).with_public_pool(public);
    bandmap_api::serve(state, shutdown).await?;
    Ok(())
}

async fn run_all(
    pool: PgPool,
    config: Arc<Config>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let mut tasks = Vec::new();
    let mut services: Vec<(&'static str, ServiceFactory)> = vec![(
        "serve",
        Box::new({
            let (config, shutdown) = (config.clone(), shutdown.clone());
            move || serve((*config).clone(), shutdown.clone()).boxed()
        }),
    )];
    for (name, run) in background_services() {
        let (pool, config, shutdown) = (pool.clone(), config.clone(), shutdown.clone());
        services.push((
            name,
            Box::new(move || run(pool.clone(), config.clone(), shutdown.clone())),
        ));
    }
    services.extend(geocoding_services(&pool, &config, &shutdown));
    for (name, factory) in services {
        tasks.push(tokio::spawn(supervise(name, factory, shutdown.clone())));
    }
    for t in tasks {
        let _ = t.await;
    }
    Ok(())
}

async fn wait_for_signal(trigger: CancellationToken) {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutdown requested");
    trigger.cancel();
}
