//! The configuration, grouped by the service that reads it.

use crate::ConfigError;
use crate::llm::LlmTuning;
use crate::parse::Reader;
use crate::vars as v;
use secrecy::SecretString;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use url::Url;

/// The whole configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Connection string of PostgreSQL (may hold a password: never logged).
    pub database_url: SecretString,
    /// HTTP server settings.
    pub server: ServerConfig,
    /// Upstream access.
    pub upstream: UpstreamConfig,
    /// Crawler schedule and politeness.
    pub crawler: CrawlerConfig,
    /// Geocoding worker.
    pub geocoder: GeocoderConfig,
    /// Enqueue daemon.
    pub enqueue: EnqueueConfig,
    /// LLM worker.
    pub llm: LlmConfig,
    /// Admin authentication.
    pub admin: AdminConfig,
    /// Pools, rate limits, server limits and retention (issue 18).
    pub limits: crate::LimitsConfig,
    /// Period of heartbeat rows.
    pub heartbeat_interval: Duration,
    /// Log filter.
    pub rust_log: String,
    /// Host part of this process's name in heartbeats (`HOSTNAME`, else `local`).
    pub hostname: String,
    /// Where this process serves `GET /metrics` (`METRICS_ADDR`); `None`: no metrics.
    pub metrics_addr: Option<SocketAddr>,
}

/// Settings of `bandmap serve`.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Listening address.
    pub bind_addr: SocketAddr,
    /// Trust `X-Forwarded-For` / `X-Real-IP` for the client address — only when the
    /// request comes from one of [`ServerConfig::trusted_proxies`].
    pub trust_proxy: bool,
    /// Peers (addresses or networks) whose forwarding headers are believed
    /// (`TRUSTED_PROXIES`, default loopback only); the client address is the right-most
    /// `X-Forwarded-For` entry outside them.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Serve the front end from this folder instead of the copy embedded in the binary.
    pub web_dir: Option<PathBuf>,
    /// Tile URL template of the public map (`{z}`, `{x}`, `{y}`), or `none`.
    pub map_tile_url: String,
    /// The public origin of the site (`PUBLIC_BASE_URL`, e.g. `https://bandmap.example`),
    /// written into canonical links, OpenGraph tags, the sitemap and the embed snippet;
    /// `None`: `http://BIND_ADDR`. Never taken from a request's `Host` header.
    pub public_base_url: Option<url::Url>,
    /// Bearer token of the import endpoint; unset (or shorter than 32 bytes) means the
    /// endpoint refuses everyone.
    pub import_token: Option<SecretString>,
    /// Why a given `BANDMAP_IMPORT_TOKEN` is not used (too short); never holds the value.
    pub import_token_unusable: Option<String>,
    /// Longest time one import may take (`IMPORT_TIME_LIMIT_SECS`), instead of the 30 s of
    /// other requests.
    pub import_time_limit: Duration,
    /// Password checks (bcrypt) running at once (`ADMIN_LOGIN_CONCURRENCY`); a login
    /// arriving when all are busy answers 429.
    pub login_concurrency: usize,
}

/// Where upstream pages come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamMode {
    /// Through the FlareSolverr-compatible challenge solver.
    Solver,
    /// From recorded pages in a directory (offline demo and tests).
    Recorded(PathBuf),
}

/// Upstream access settings.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Base of upstream pages.
    pub base_url: Url,
    /// Solver or recorded pages.
    pub mode: UpstreamMode,
    /// FlareSolverr API endpoint.
    pub solver_url: Url,
}

/// Crawler settings.
#[derive(Debug, Clone)]
pub struct CrawlerConfig {
    /// Politeness delay between upstream requests.
    pub delay: Duration,
    /// Full crawl interval (rule 1).
    pub full_crawl_interval_days: u32,
    /// Pause between countries in a full crawl.
    pub country_pause: Duration,
    /// Period of the automatic incremental crawl.
    pub incremental_interval: Duration,
}

/// External geocoding provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeocoderProvider {
    /// Geoapify forward geocoding.
    Geoapify,
    /// No external calls.
    None,
}

/// Geocoding worker settings.
#[derive(Debug, Clone)]
pub struct GeocoderConfig {
    /// Provider used after the gazetteer and the cache.
    pub provider: GeocoderProvider,
    /// Provider base URL.
    pub base_url: Url,
    /// Provider key.
    pub api_key: Option<SecretString>,
    /// Minimum spacing between provider calls.
    pub min_delay: Duration,
    /// Upper bound of the random extra spacing.
    pub min_jitter: Duration,
    /// Rule 15 threshold.
    pub min_confidence: f64,
    /// Use the offline gazetteer first.
    pub offline: bool,
    /// File of the offline gazetteer.
    pub gazetteer_path: PathBuf,
}

/// Enqueue daemon settings.
#[derive(Debug, Clone)]
pub struct EnqueueConfig {
    /// Automatic scan period (rule 11).
    pub auto_interval: Duration,
}

/// Where the LLM's answers come from (`LLM_MODE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmMode {
    /// The OpenAI-compatible API at `LLM_BASE_URL` (needs `LLM_API_KEY`).
    Api,
    /// Answers recorded in a directory (`DIR/answers.tsv`): the offline demo, no key.
    Recorded(PathBuf),
}

/// LLM worker settings.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// OpenAI-compatible base URL.
    pub base_url: Url,
    /// API or recorded answers.
    pub mode: LlmMode,
    /// API key; absent means the worker idles (in API mode).
    pub api_key: Option<SecretString>,
    /// Primary (large) model.
    pub model_primary: String,
    /// Fallback (small) model.
    pub model_fallback: String,
    /// Optional overrides of the worker's limits, prices and retry policy.
    pub tuning: LlmTuning,
}

impl LlmConfig {
    /// Whether the LLM worker can answer: a key in API mode, always with recorded answers.
    #[must_use]
    pub fn enabled(&self) -> bool {
        matches!(self.mode, LlmMode::Recorded(_)) || self.api_key.is_some()
    }
}

/// Longest account name: a login's username is cut to it before lookup and recording, so
/// the attempts table never stores long attacker-chosen text (issue 31).
pub const MAX_USERNAME_CHARS: usize = 64;

/// Admin authentication settings.
#[derive(Debug, Clone)]
pub struct AdminConfig {
    /// Seeded account name.
    pub seed_username: Option<String>,
    /// Seeded account bcrypt hash.
    pub seed_password_hash: Option<SecretString>,
    /// Seeded account plaintext password (hashed at start).
    pub seed_password: Option<SecretString>,
    /// Session-token signing secret (at least 32 bytes).
    pub jwt_secret: Option<SecretString>,
    /// Why admin login is impossible although settings were given (a short
    /// `ADMIN_JWT_SECRET`, a malformed `ADMIN_SEED_PASSWORD_HASH`): such a value is dropped
    /// and noted here, never a start failure, so no command — workers above all — depends
    /// on admin settings (CONTRACT §2, issue 19 point 5). Never holds a secret's value.
    pub unusable: Vec<String>,
}

fn secret(r: &Reader<'_>, var: v::Variable) -> Option<SecretString> {
    r.optional(var).map(SecretString::from)
}

impl Config {
    /// Builds the configuration from a variable map (the environment, or a test's map).
    pub fn from_map(vars: &HashMap<String, String>) -> Result<Config, ConfigError> {
        Self::read(&Reader::new(vars))
    }

    /// Reads every declared variable (`vars.rs`) through `r`.
    pub(crate) fn read(r: &Reader<'_>) -> Result<Config, ConfigError> {
        Ok(Config {
            database_url: SecretString::from(r.postgres_url(v::DATABASE_URL)?),
            server: server(r)?,
            upstream: upstream(r)?,
            crawler: CrawlerConfig {
                delay: r.millis(v::CRAWLER_DELAY_MS)?,
                full_crawl_interval_days: r.number(
                    v::CRAWLER_FULL_CRAWL_INTERVAL_DAYS,
                    "a whole number of days",
                )?,
                country_pause: r.millis(v::CRAWLER_COUNTRY_PAUSE_MS)?,
                incremental_interval: r.minutes(v::CRAWLER_INCREMENTAL_INTERVAL_MIN)?,
            },
            geocoder: geocoder(r)?,
            enqueue: EnqueueConfig {
                auto_interval: r.minutes(v::ENQUEUE_AUTO_INTERVAL_MIN)?,
            },
            llm: LlmConfig {
                base_url: r.url(v::LLM_BASE_URL)?,
                mode: llm_mode(r)?,
                api_key: secret(r, v::LLM_API_KEY),
                model_primary: r.string(v::LLM_MODEL_PRIMARY),
                model_fallback: r.string(v::LLM_MODEL_FALLBACK),
                tuning: crate::llm::tuning(r)?,
            },
            admin: admin(r)?,
            limits: crate::limits::limits(r)?,
            heartbeat_interval: {
                let secs: u64 = r.number(
                    v::HEARTBEAT_INTERVAL_SECS,
                    "a whole number of seconds (at least 1)",
                )?;
                if secs == 0 {
                    return Err(r.fail(
                        v::HEARTBEAT_INTERVAL_SECS,
                        "0",
                        "a whole number of seconds (at least 1)",
                    ));
                }
                std::time::Duration::from_secs(secs)
            },
            rust_log: r.string(v::RUST_LOG),
            hostname: r.string(v::HOSTNAME),
            metrics_addr: match r.optional(v::METRICS_ADDR) {
                None => None,
                Some(_) => Some(r.socket_addr(v::METRICS_ADDR)?),
            },
        })
    }
}

/// Shortest accepted `BANDMAP_IMPORT_TOKEN`, in bytes.
pub const IMPORT_TOKEN_MIN_BYTES: usize = 32;

fn server(r: &Reader<'_>) -> Result<ServerConfig, ConfigError> {
    let token = r.optional(v::BANDMAP_IMPORT_TOKEN);
    let import_token_unusable = token
        .as_ref()
        .filter(|t| t.len() < IMPORT_TOKEN_MIN_BYTES)
        .map(|_| format!("BANDMAP_IMPORT_TOKEN is shorter than {IMPORT_TOKEN_MIN_BYTES} bytes"));
    let login_concurrency: usize = r.number(
        v::ADMIN_LOGIN_CONCURRENCY,
        "a whole number of password checks (at least 1)",
    )?;
    if login_concurrency == 0 {
        return Err(r.fail(
            v::ADMIN_LOGIN_CONCURRENCY,
            "0",
            "a whole number of password checks (at least 1)",
        ));
    }
    let import_secs: u64 = r.number(
        v::IMPORT_TIME_LIMIT_SECS,
        "a whole number of seconds (at least 1)",
    )?;
    if import_secs == 0 {
        return Err(r.fail(
            v::IMPORT_TIME_LIMIT_SECS,
            "0",
            "a whole number of seconds (at least 1)",
        ));
    }
    Ok(ServerConfig {
        bind_addr: r.socket_addr(v::BIND_ADDR)?,
        trust_proxy: r.boolean(v::TRUST_PROXY)?,
        trusted_proxies: trusted_proxies(r)?,
        web_dir: r.optional(v::WEB_DIR).map(PathBuf::from),
        map_tile_url: tile_url(r)?,
        public_base_url: public_base_url(r)?,
        import_token: token
            .filter(|t| t.len() >= IMPORT_TOKEN_MIN_BYTES)
            .map(SecretString::from),
        import_token_unusable,
        import_time_limit: Duration::from_secs(import_secs),
        login_concurrency,
    })
}

/// `TRUSTED_PROXIES`: comma-separated addresses or CIDR networks (`10.0.0.5`,
/// `172.16.0.0/12`, `::1`); default loopback only.
fn trusted_proxies(r: &Reader<'_>) -> Result<Vec<ipnet::IpNet>, ConfigError> {
    const VAR: v::Variable = v::TRUSTED_PROXIES;
    let value = r.string(VAR);
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            item.parse::<ipnet::IpNet>()
                .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    r.fail(
                        VAR,
                        item,
                        "comma-separated addresses or CIDR networks (10.0.0.5, 172.16.0.0/12, ::1)",
                    )
                })
        })
        .collect()
}

/// `PUBLIC_BASE_URL`: an http(s) origin (scheme, host, optional port; no path, query or
/// fragment), or unset.
fn public_base_url(r: &Reader<'_>) -> Result<Option<url::Url>, ConfigError> {
    const VAR: v::Variable = v::PUBLIC_BASE_URL;
    let Some(value) = r.optional(VAR) else {
        return Ok(None);
    };
    let reason = "an http(s) origin such as https://bandmap.example (no path, query or fragment)";
    let trimmed = value.trim_end_matches('/');
    match url::Url::parse(trimmed) {
        Ok(u)
            if matches!(u.scheme(), "http" | "https")
                && u.host_str().is_some()
                && u.path() == "/"
                && u.query().is_none()
                && u.fragment().is_none()
                && u.username().is_empty()
                && u.password().is_none() =>
        {
            Ok(Some(u))
        }
        _ => Err(r.fail(VAR, &value, reason)),
    }
}

/// `MAP_TILE_URL`: `none`, or an http(s) URL or same-origin path holding `{z}`, `{x}` and
/// `{y}` (the map page accepts nothing else).
fn tile_url(r: &Reader<'_>) -> Result<String, ConfigError> {
    const VAR: v::Variable = v::MAP_TILE_URL;
    let value = r.string(VAR);
    if value == "none" {
        return Ok(value);
    }
    let placeholders = ["{z}", "{x}", "{y}"];
    if let Some(missing) = placeholders.iter().find(|p| !value.contains(**p)) {
        return Err(r.fail(VAR, &value, &format!("a tile URL template needs {missing}")));
    }
    let sample = placeholders
        .iter()
        .fold(value.replace("{s}", "a"), |v, p| v.replace(p, "0"));
    // A same-origin path (`/tiles/{z}/{x}/{y}.png`) is checked as if on this host.
    let sample = if sample.starts_with('/') && !sample.starts_with("//") {
        format!("http://localhost{sample}")
    } else {
        sample
    };
    match url::Url::parse(&sample) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(value),
        _ => Err(r.fail(
            VAR,
            &value,
            "an http(s) URL template, a /path template or `none`",
        )),
    }
}

fn upstream(r: &Reader<'_>) -> Result<UpstreamConfig, ConfigError> {
    let mode_raw = r.string(v::UPSTREAM_MODE);
    let mode = if mode_raw == "solver" {
        UpstreamMode::Solver
    } else if let Some(dir) = mode_raw.strip_prefix("recorded:").filter(|d| !d.is_empty()) {
        UpstreamMode::Recorded(PathBuf::from(dir))
    } else {
        return Err(r.fail(v::UPSTREAM_MODE, &mode_raw, "`solver` or `recorded:DIR`"));
    };
    Ok(UpstreamConfig {
        base_url: r.url(v::UPSTREAM_BASE_URL)?,
        mode,
        solver_url: r.url(v::CHALLENGE_SOLVER_URL)?,
    })
}

fn llm_mode(r: &Reader<'_>) -> Result<LlmMode, ConfigError> {
    let raw = r.string(v::LLM_MODE);
    if raw == "api" {
        Ok(LlmMode::Api)
    } else if let Some(dir) = raw.strip_prefix("recorded:").filter(|d| !d.is_empty()) {
        Ok(LlmMode::Recorded(PathBuf::from(dir)))
    } else {
        Err(r.fail(v::LLM_MODE, &raw, "`api` or `recorded:DIR`"))
    }
}

fn geocoder(r: &Reader<'_>) -> Result<GeocoderConfig, ConfigError> {
    let provider = match r.string(v::GEOCODER_PROVIDER).to_ascii_lowercase().as_str() {
        "geoapify" => GeocoderProvider::Geoapify,
        "none" => GeocoderProvider::None,
        other => return Err(r.fail(v::GEOCODER_PROVIDER, other, "`geoapify` or `none`")),
    };
    Ok(GeocoderConfig {
        provider,
        base_url: r.url(v::GEOCODER_BASE_URL)?,
        api_key: secret(r, v::GEOCODING_API_KEY),
        min_delay: r.seconds(v::GEOCODER_MIN_DELAY)?,
        min_jitter: r.seconds(v::GEOCODER_MIN_JITTER)?,
        min_confidence: r.fraction(v::GEOCODE_MIN_CONFIDENCE)?,
        offline: r.boolean(v::GEOCODER_OFFLINE)?,
        gazetteer_path: PathBuf::from(r.string(v::GAZETTEER_PATH)),
    })
}

fn admin(r: &Reader<'_>) -> Result<AdminConfig, ConfigError> {
    let mut unusable = Vec::new();
    let jwt_secret = r.optional(v::ADMIN_JWT_SECRET).filter(|s| {
        let ok = s.len() >= 32;
        if !ok {
            unusable.push("ADMIN_JWT_SECRET is shorter than 32 bytes".to_string());
        }
        ok
    });
    let hash = r.optional(v::ADMIN_SEED_PASSWORD_HASH).filter(|h| {
        let ok = h.starts_with("$2") && h.len() == 60;
        if !ok {
            unusable.push(
                "ADMIN_SEED_PASSWORD_HASH is not a bcrypt hash ($2b$…, 60 characters)".to_string(),
            );
        }
        ok
    });
    let seed_username = r.optional(v::ADMIN_SEED_USERNAME);
    if let Some(name) = &seed_username
        && name.chars().count() > MAX_USERNAME_CHARS
    {
        return Err(r.fail(
            v::ADMIN_SEED_USERNAME,
            name,
            "an account name of at most 64 characters",
        ));
    }
    Ok(AdminConfig {
        seed_username,
        seed_password_hash: hash.map(SecretString::from),
        seed_password: secret(r, v::ADMIN_SEED_PASSWORD),
        jwt_secret: jwt_secret.map(SecretString::from),
        unusable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every declared variable is read, so none is declared and forgotten (and the readers
    /// can only read declared ones: they take a `Variable`).
    #[test]
    fn every_declared_variable_is_read() {
        let empty = HashMap::new();
        let r = Reader::new(&empty);
        Config::read(&r).expect("the declared defaults make a configuration");
        let declared: BTreeSet<&str> = v::VARIABLES.iter().map(|v| v.name).collect();
        assert_eq!(r.names_read(), declared);
    }
}
