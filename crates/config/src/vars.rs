//! The list of every variable with its default and meaning: printed by `bandmap --help`
//! and checked against docs/configuration.md by a test.

/// One documented environment variable.
pub struct Variable {
    /// Exact name.
    pub name: &'static str,
    /// Default value, empty when there is none.
    pub default: &'static str,
    /// What it sets.
    pub meaning: &'static str,
}

const fn var(name: &'static str, default: &'static str, meaning: &'static str) -> Variable {
    Variable {
        name,
        default,
        meaning,
    }
}

/// Default tile URL template of the public map (OpenStreetMap's standard raster tiles).
pub const DEFAULT_TILE_URL: &str = "https://tile.openstreetmap.org/{z}/{x}/{y}.png";

/// Default of `TRUSTED_PROXIES`: a proxy on the same machine.
pub const DEFAULT_TRUSTED_PROXIES: &str = "127.0.0.0/8,::1";

/// Every variable the service reads (CONTRACT §2 plus a few operational knobs).
pub const VARIABLES: &[Variable] = &[
    var(
        "DATABASE_URL",
        "postgres://localhost/bandmap",
        "PostgreSQL 14+ with PostGIS 3",
    ),
    var("BIND_ADDR", "127.0.0.1:8080", "address of `serve`"),
    var(
        "UPSTREAM_BASE_URL",
        "https://www.metal-archives.com",
        "base of upstream pages",
    ),
    var(
        "UPSTREAM_MODE",
        "solver",
        "`solver` or `recorded:DIR` (offline pages from a directory)",
    ),
    var(
        "CHALLENGE_SOLVER_URL",
        "http://localhost:8191/v1",
        "FlareSolverr-compatible API",
    ),
    var(
        "CRAWLER_DELAY_MS",
        "2000",
        "politeness delay between upstream requests",
    ),
    var(
        "CRAWLER_FULL_CRAWL_INTERVAL_DAYS",
        "60",
        "full crawl when last_full_crawl_at is older",
    ),
    var(
        "CRAWLER_COUNTRY_PAUSE_MS",
        "5000",
        "pause between countries in a full crawl",
    ),
    var(
        "CRAWLER_INCREMENTAL_INTERVAL_MIN",
        "60",
        "period of the automatic incremental crawl",
    ),
    var(
        "GEOCODER_PROVIDER",
        "geoapify",
        "external provider: `geoapify` or `none`",
    ),
    var(
        "GEOCODER_BASE_URL",
        "https://api.geoapify.com",
        "provider base URL",
    ),
    var("GEOCODING_API_KEY", "", "provider key (secret)"),
    var(
        "GEOCODER_MIN_DELAY",
        "0.22",
        "seconds between provider calls",
    ),
    var(
        "GEOCODER_MIN_JITTER",
        "0.05",
        "extra random delay, seconds, upper bound",
    ),
    var(
        "GEOCODE_MIN_CONFIDENCE",
        "0.7",
        "minimum confidence to accept a result",
    ),
    var(
        "GEOCODER_OFFLINE",
        "on",
        "use the offline gazetteer before the provider",
    ),
    var(
        "GAZETTEER_PATH",
        "data/gazetteer/europe.tsv",
        "offline gazetteer file (built by scripts/fetch-gazetteer.sh)",
    ),
    var(
        "ENQUEUE_AUTO_INTERVAL_MIN",
        "60",
        "automatic enqueue scan period",
    ),
    var(
        "LLM_BASE_URL",
        "https://api.groq.com/openai/v1",
        "OpenAI-compatible chat completions",
    ),
    var(
        "LLM_MODE",
        "api",
        "`api` or `recorded:DIR` (recorded answers from DIR/answers.tsv: offline demo, no key)",
    ),
    var(
        "LLM_API_KEY",
        "",
        "LLM key (secret); without it the LLM worker idles",
    ),
    var(
        "LLM_MODEL_PRIMARY",
        "llama-3.3-70b-versatile",
        "primary model",
    ),
    var(
        "LLM_MODEL_FALLBACK",
        "llama-3.1-8b-instant",
        "fallback model when the primary is saturated",
    ),
    var(
        "ADMIN_SEED_USERNAME",
        "",
        "admin account created or updated at `serve` start",
    ),
    var(
        "ADMIN_SEED_PASSWORD_HASH",
        "",
        "bcrypt hash of its password (preferred)",
    ),
    var(
        "ADMIN_SEED_PASSWORD",
        "",
        "plaintext alternative, hashed at start, never stored",
    ),
    var(
        "ADMIN_JWT_SECRET",
        "",
        "session-token signing secret, at least 32 bytes",
    ),
    var(
        "BANDMAP_IMPORT_TOKEN",
        "",
        "bearer token of POST /api/import/bands, at least 32 bytes (shorter: the import refuses everyone)",
    ),
    var(
        "TRUST_PROXY",
        "true",
        "take the client address from X-Forwarded-For / X-Real-IP, sent by a peer in TRUSTED_PROXIES",
    ),
    var(
        "TRUSTED_PROXIES",
        DEFAULT_TRUSTED_PROXIES,
        "proxies (addresses or CIDRs, comma-separated) whose forwarding headers are believed; the client is the right-most X-Forwarded-For entry outside them",
    ),
    var(
        "ADMIN_LOGIN_CONCURRENCY",
        "1",
        "password checks (bcrypt) at once; a login finding them all busy answers 429",
    ),
    var(
        "IMPORT_TIME_LIMIT_SECS",
        "600",
        "time limit of one POST /api/import/bands (other requests: 30 s)",
    ),
    var(
        "HEARTBEAT_INTERVAL_SECS",
        "3600",
        "period of service_health heartbeats",
    ),
    var(
        "MAP_TILE_URL",
        DEFAULT_TILE_URL,
        "tile URL template of the public map ({z}, {x}, {y}; `none`: points without a basemap)",
    ),
    var(
        "PUBLIC_BASE_URL",
        "",
        "public origin of the site (https://host) for canonical links, OpenGraph tags, the sitemap and embed snippets; unset: http://BIND_ADDR",
    ),
    var(
        "WEB_DIR",
        "",
        "serve the front end from this folder instead of the embedded copy",
    ),
    var(
        "METRICS_ADDR",
        "",
        "address of this process's Prometheus `GET /metrics` listener (unset: no metrics); keep it private",
    ),
    var("RUST_LOG", "info", "log filter"),
    var(
        "HOSTNAME",
        "local",
        "host part of the instance name in heartbeats (`HOST:PID`)",
    ),
    var(
        "LLM_RPM_PRIMARY",
        "",
        "requests per minute of the primary model (default: docs/llm.md table)",
    ),
    var(
        "LLM_RPM_FALLBACK",
        "",
        "requests per minute of the fallback model (default: docs/llm.md table)",
    ),
    var(
        "LLM_TPM_PRIMARY",
        "",
        "tokens per minute of the primary model (default: docs/llm.md table)",
    ),
    var(
        "LLM_TPM_FALLBACK",
        "",
        "tokens per minute of the fallback model (default: docs/llm.md table)",
    ),
    var(
        "LLM_PRICE_INPUT_PRIMARY",
        "",
        "USD per 1M prompt tokens of the primary model (default: docs/llm.md table)",
    ),
    var(
        "LLM_PRICE_INPUT_FALLBACK",
        "",
        "USD per 1M prompt tokens of the fallback model (default: docs/llm.md table)",
    ),
    var(
        "LLM_PRICE_OUTPUT_PRIMARY",
        "",
        "USD per 1M completion tokens of the primary model (default: docs/llm.md table)",
    ),
    var(
        "LLM_PRICE_OUTPUT_FALLBACK",
        "",
        "USD per 1M completion tokens of the fallback model (default: docs/llm.md table)",
    ),
    var("LLM_MAX_ATTEMPTS", "4", "LLM API calls per row per pass"),
    var("LLM_BACKOFF_BASE_MS", "1000", "first LLM backoff delay"),
    var(
        "LLM_BACKOFF_MAX_SECS",
        "60",
        "largest single LLM backoff or rate-limit wait",
    ),
    var(
        "DB_POOL_PUBLIC_MAX",
        "4",
        "database connections of the public API (card, search)",
    ),
    var(
        "DB_PUBLIC_STATEMENT_TIMEOUT_MS",
        "2000",
        "statement_timeout of the public API's queries (0: none)",
    ),
    var(
        "DB_POOL_ADMIN_MAX",
        "8",
        "database connections of the admin API, login, probes and serve's tasks",
    ),
    var(
        "DB_ADMIN_STATEMENT_TIMEOUT_MS",
        "25000",
        "statement_timeout of the admin pool's queries (0: none)",
    ),
    var(
        "DB_POOL_WORKER_MAX",
        "10",
        "database connections of the background workers (no statement timeout)",
    ),
    var(
        "PUBLIC_RATE_PER_SEC",
        "10",
        "requests per second per client address on /api/search and /api/bands/{id}",
    ),
    var(
        "PUBLIC_RATE_BURST",
        "40",
        "burst allowed per client address before PUBLIC_RATE_PER_SEC applies",
    ),
    var(
        "HTTP_MAX_CONNECTIONS",
        "512",
        "simultaneous client connections of serve",
    ),
    var(
        "HTTP_HEADER_TIMEOUT_SECS",
        "10",
        "time a client has to send request headers (and idle keep-alive limit)",
    ),
    var(
        "HTTP_MAX_CONNECTIONS_PER_ADDRESS",
        "32",
        "simultaneous connections of one client address (IPv6: per /64); TRUSTED_PROXIES peers are not capped",
    ),
    var(
        "HTTP_WRITE_TIMEOUT_SECS",
        "15",
        "a response write making no progress this long (a client that stopped reading) closes the connection",
    ),
    var(
        "HTTP_BODY_TIMEOUT_SECS",
        "15",
        "time a client has to send a whole request body (the bulk import excepted): past it 408",
    ),
    var(
        "HTTP_REFUSAL_DELAY_MS",
        "1000",
        "a 429 is held this long before it is sent (0: at once)",
    ),
    var(
        "RETENTION_LOGIN_ATTEMPTS_DAYS",
        "30",
        "admin_login_attempts rows older than this are pruned daily",
    ),
    var(
        "RETENTION_REFUSED_LOGINS_DAYS",
        "7",
        "admin_login_attempts rows of attempts refused during a lockout (locked_out) are pruned after this",
    ),
    var(
        "RETENTION_CRAWL_LOG_DAYS",
        "90",
        "crawl_log rows older than this are pruned daily",
    ),
    var(
        "RETENTION_AUDIT_LOG_DAYS",
        "365",
        "admin_audit_log rows older than this are pruned daily",
    ),
];
