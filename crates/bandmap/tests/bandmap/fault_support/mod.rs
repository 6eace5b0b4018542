//! Shared by the `fault_*` tests: the real `bandmap` binary as a child process (its whole
//! output kept in a log file), the offline pipeline's environment on a private PostgreSQL
//! cluster, and polling with a generous deadline (a safety net, never an assertion on
//! speed: the machine is shared and slow).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub use bandmap_test_support::PrivateCluster;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Longest wait for anything the pipeline should do by itself.
pub const DEADLINE: Duration = Duration::from_secs(240);

/// Secrets of the pipeline's environment (each unique, so a leak is unambiguous).
pub const ADMIN_PASSWORD: &str = "fault-admin-password-7f3a9c";
pub const JWT_SECRET: &str = "fault-jwt-secret-5b1e0d7c9a2f4e6b8d0c1a3e5f7b9d2c";
pub const IMPORT_TOKEN: &str = "fault-import-token-3c8e1f6a0b9d-7f2e5a91c04d";

/// Root of the repository.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A free port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A temporary directory deleted on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "bandmap-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The offline pipeline's environment: recorded demo upstream, offline gazetteer, no
/// provider, no delays, a heartbeat every second, the admin seed and secrets.
pub fn pipeline_env(database_url: &str, port: u16) -> Vec<(String, String)> {
    let root = repo();
    let gazetteer = root.join("data/gazetteer/europe.tsv");
    assert!(
        gazetteer.exists(),
        "{} is missing: run scripts/fetch-gazetteer.sh (scripts/test.sh does)",
        gazetteer.display()
    );
    [
        ("DATABASE_URL", database_url.to_string()),
        ("BIND_ADDR", format!("127.0.0.1:{port}")),
        (
            "UPSTREAM_MODE",
            format!("recorded:{}", root.join("demo/upstream").display()),
        ),
        ("GAZETTEER_PATH", gazetteer.display().to_string()),
        ("GEOCODER_PROVIDER", "none".to_string()),
        ("CRAWLER_DELAY_MS", "0".to_string()),
        ("CRAWLER_COUNTRY_PAUSE_MS", "0".to_string()),
        ("HEARTBEAT_INTERVAL_SECS", "1".to_string()),
        ("MAP_TILE_URL", "none".to_string()),
        ("ADMIN_SEED_USERNAME", "admin".to_string()),
        ("ADMIN_SEED_PASSWORD", ADMIN_PASSWORD.to_string()),
        ("ADMIN_JWT_SECRET", JWT_SECRET.to_string()),
        ("BANDMAP_IMPORT_TOKEN", IMPORT_TOKEN.to_string()),
        ("RUST_LOG", "info".to_string()),
        ("NO_COLOR", "1".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Replaces or adds `key` in an environment list.
pub fn set(env: &mut Vec<(String, String)>, key: &str, value: impl Into<String>) {
    env.retain(|(k, _)| k != key);
    env.push((key.to_string(), value.into()));
}

/// A `bandmap` child process; killed (SIGKILL) when dropped.
pub struct Bandmap {
    pub child: Child,
    pub log: PathBuf,
}

impl Bandmap {
    /// Starts `bandmap ARGS` with exactly `env` (plus PATH), in `dir` (no `.env` there),
    /// stdout and stderr appended to `dir/NAME.log`.
    pub fn start(dir: &Path, name: &str, args: &[&str], env: &[(String, String)]) -> Bandmap {
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_bandmap"))
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        Bandmap { child, log }
    }

    /// Runs `bandmap ARGS` to completion; panics with its output when it fails.
    pub fn run(dir: &Path, args: &[&str], env: &[(String, String)]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_bandmap"))
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "bandmap {args:?} failed:\n{text}");
        text
    }

    /// `kill -9`: no shutdown code runs.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then waits for the exit (bounded by [`DEADLINE`]); returns whether it
    /// exited with status 0.
    pub fn terminate(&mut self) -> bool {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let end = Instant::now() + DEADLINE;
        while Instant::now() < end {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// Everything it printed so far.
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The last lines of its output (for failure messages).
    pub fn tail(&self) -> String {
        let text = self.output();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// The last lines of its output that are not heartbeats (a service idling beats every
    /// second, which would push what went wrong out of [`Bandmap::tail`]).
    pub fn events(&self) -> String {
        let text = self.output();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.to_ascii_lowercase().contains("heartbeat"))
            .collect();
        lines[lines.len().saturating_sub(60)..].join("\n")
    }
}

impl Drop for Bandmap {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// Polls `check` every 250 ms until it holds (true) or [`DEADLINE`] has passed (false).
async fn holds_in_time<F, Fut>(mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let end = Instant::now() + DEADLINE;
    loop {
        if check().await {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Polls `check` every 250 ms until it holds; panics with `what` and `context()` after
/// [`DEADLINE`].
pub async fn wait_for<F, Fut>(what: &str, context: impl Fn() -> String, check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    assert!(
        holds_in_time(check).await,
        "never happened: {what}\n{}",
        context()
    );
}

/// [`wait_for`] on the pipeline: on failure the message also holds where the pipeline
/// stands in `db` ([`pipeline_state`]) and the process's last lines that are not heartbeats.
pub async fn wait_for_pipeline<F, Fut>(what: &str, process: &Bandmap, db: &sqlx::PgPool, check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    if !holds_in_time(check).await {
        panic!(
            "never happened: {what}\n{}\n--- last lines that are not heartbeats ---\n{}",
            pipeline_state(db).await,
            process.events()
        );
    }
}

/// A private cluster with one database `bandmap` (PostGIS in it) owned by the superuser.
pub fn cluster_with_database() -> (PrivateCluster, String) {
    let cluster = PrivateCluster::start();
    cluster.create_database("bandmap", "postgres");
    let url = cluster.url("bandmap");
    (cluster, url)
}

/// A small pool on the private cluster (it reconnects by itself after a restart).
pub async fn pool(url: &str) -> sqlx::PgPool {
    sqlx::postgres::PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(Duration::from_secs(5))
        .connect(url)
        .await
        .unwrap()
}

/// Rows of one kind: status, error, attempts, waits, due in s, claimed s ago, count.
type RowGroup = (
    String,
    Option<String>,
    i32,
    i32,
    Option<f64>,
    Option<f64>,
    i64,
);
/// A crawl run: id, type, status, error.
type Run = (i64, String, String, Option<String>);

/// Where the pipeline stands, for a failure message: the location rows grouped by status,
/// error, attempts, waits and when they are due, and the crawl runs by status.
pub async fn pipeline_state(pool: &sqlx::PgPool) -> String {
    let rows: Result<Vec<RowGroup>, _> = sqlx::query_as(
        "SELECT geocode_status, left(error, 160), attempts, wait_count,
                round(extract(epoch FROM next_attempt_at - now()))::float8,
                round(extract(epoch FROM now() - claimed_at))::float8, count(*)
         FROM band_locations
         WHERE geocode_status NOT IN ('done', 'country_only')
         GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 7 DESC LIMIT 20",
    )
    .fetch_all(pool)
    .await;
    let runs: Result<Vec<Run>, _> =
        sqlx::query_as("SELECT id, type, status, error FROM crawl_run ORDER BY id")
            .fetch_all(pool)
            .await;
    let mut out = String::from(
        "rows not done (status, error, attempts, waits, due in s, claimed s ago, count):\n",
    );
    match rows {
        Ok(rows) => rows
            .iter()
            .for_each(|r| out.push_str(&format!("  {r:?}\n"))),
        Err(e) => out.push_str(&format!("  unreadable: {e}\n")),
    }
    out.push_str("crawl runs (id, type, status, error):\n");
    match runs {
        Ok(runs) => runs
            .iter()
            .for_each(|r| out.push_str(&format!("  {r:?}\n"))),
        Err(e) => out.push_str(&format!("  unreadable: {e}\n")),
    }
    out
}

/// One integer from SQL; `None` while the database does not answer.
pub async fn count(pool: &sqlx::PgPool, sql: &str) -> Option<i64> {
    sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(pool)
        .await
        .ok()
}

/// Status code of `GET url` (0 when nothing answers).
pub async fn status(client: &reqwest::Client, url: &str) -> u16 {
    match client.get(url).send().await {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}

/// HTTP client with a short timeout (a hung server fails the poll, not the test runner).
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}
