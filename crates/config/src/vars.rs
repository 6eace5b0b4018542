//! Every variable, declared once: its name, its default (written here and nowhere else) and
//! its meaning. The readers in `sections.rs`, `limits.rs` and `llm.rs` take these
//! declarations, so a value left unset falls back to the default declared here; the same
//! list is printed by `bandmap --help` and checked against docs/configuration.md by a test.

/// One declared environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variable {
    /// Exact name.
    pub name: &'static str,
    /// Default value, empty when there is none.
    pub default: &'static str,
    /// What it sets.
    pub meaning: &'static str,
}

/// Default tile URL template of the public map (OpenStreetMap's standard raster tiles).
pub const DEFAULT_TILE_URL: &str = "https://tile.openstreetmap.org/{z}/{x}/{y}.png";

/// Default of `TRUSTED_PROXIES`: a proxy on the same machine.
pub const DEFAULT_TRUSTED_PROXIES: &str = "127.0.0.0/8,::1";

/// Declares each variable as a constant of the same name, and [`VARIABLES`], the list of
/// them all in this order.
macro_rules! variables {
    ($($name:ident = $default:expr, $meaning:expr;)*) => {
        $(
            #[doc = $meaning]
            pub const $name: Variable = Variable {
                name: stringify!($name),
                default: $default,
                meaning: $meaning,
            };
        )*
        /// Every variable the service reads (CONTRACT §2 plus a few operational knobs).
        pub const VARIABLES: &[Variable] = &[$($name),*];
    };
}

variables! {
    DATABASE_URL = "postgres://localhost/bandmap", "PostgreSQL 14+ with PostGIS 3";
    BIND_ADDR = "127.0.0.1:8080", "address of `serve`";
    UPSTREAM_BASE_URL = "https://www.metal-archives.com", "base of upstream pages";
    UPSTREAM_MODE = "solver", "`solver` or `recorded:DIR` (offline pages from a directory)";
    CHALLENGE_SOLVER_URL = "http://localhost:8191/v1", "FlareSolverr-compatible API";
    CRAWLER_DELAY_MS = "2000", "politeness delay between upstream requests";
    CRAWLER_FULL_CRAWL_INTERVAL_DAYS = "60", "full crawl when last_full_crawl_at is older";
    CRAWLER_COUNTRY_PAUSE_MS = "5000", "pause between countries in a full crawl";
    CRAWLER_INCREMENTAL_INTERVAL_MIN = "60", "period of the automatic incremental crawl";
    GEOCODER_PROVIDER = "geoapify", "external provider: `geoapify` or `none`";
    GEOCODER_BASE_URL = "https://api.geoapify.com", "provider base URL";
    GEOCODING_API_KEY = "", "provider key (secret)";
    GEOCODER_MIN_DELAY = "0.22", "seconds between provider calls";
    GEOCODER_MIN_JITTER = "0.05", "extra random delay, seconds, upper bound";
    GEOCODE_MIN_CONFIDENCE = "0.7", "minimum confidence to accept a result";
    GEOCODER_OFFLINE = "on", "use the offline gazetteer before the provider";
    GAZETTEER_PATH = "data/gazetteer/europe.tsv",
        "offline gazetteer file (built by scripts/fetch-gazetteer.sh)";
    ENQUEUE_AUTO_INTERVAL_MIN = "60", "automatic enqueue scan period";
    LLM_BASE_URL = "https://api.groq.com/openai/v1", "OpenAI-compatible chat completions";
    LLM_MODE = "api",
        "`api` or `recorded:DIR` (recorded answers from DIR/answers.tsv: offline demo, no key)";
    LLM_API_KEY = "", "LLM key (secret); without it the LLM worker idles";
    LLM_MODEL_PRIMARY = "llama-3.3-70b-versatile", "primary model";
    LLM_MODEL_FALLBACK = "llama-3.1-8b-instant", "fallback model when the primary is saturated";
    ADMIN_SEED_USERNAME = "", "admin account created or updated at `serve` start";
    ADMIN_SEED_PASSWORD_HASH = "", "bcrypt hash of its password (preferred)";
    ADMIN_SEED_PASSWORD = "", "plaintext alternative, hashed at start, never stored";
    ADMIN_JWT_SECRET = "", "session-token signing secret, at least 32 bytes";
    BANDMAP_IMPORT_TOKEN = "",
        "bearer token of POST /api/import/bands, at least 32 bytes (shorter: the import refuses everyone)";
    TRUST_PROXY = "true",
        "take the client address from X-Forwarded-For / X-Real-IP, sent by a peer in TRUSTED_PROXIES";
    TRUSTED_PROXIES = DEFAULT_TRUSTED_PROXIES,
        "proxies (addresses or CIDRs, comma-separated) whose forwarding headers are believed; the client is the right-most X-Forwarded-For entry outside them";
    ADMIN_LOGIN_CONCURRENCY = "1",
        "password checks (bcrypt) at once; a login finding them all busy answers 429";
    IMPORT_TIME_LIMIT_SECS = "600",
        "time limit of one POST /api/import/bands (other requests: 30 s)";
    HEARTBEAT_INTERVAL_SECS = "3600", "period of service_health heartbeats";
    MAP_TILE_URL = DEFAULT_TILE_URL,
        "tile URL template of the public map ({z}, {x}, {y}; `none`: points without a basemap)";
    PUBLIC_BASE_URL = "",
        "public origin of the site (https://host) for canonical links, OpenGraph tags, the sitemap and embed snippets; unset: http://BIND_ADDR";
    WEB_DIR = "", "serve the front end from this folder instead of the embedded copy";
    METRICS_ADDR = "",
        "address of this process's Prometheus `GET /metrics` listener (unset: no metrics); keep it private";
    RUST_LOG = "info", "log filter";
    HOSTNAME = "local", "host part of the instance name in heartbeats (`HOST:PID`)";
    LLM_RPM_PRIMARY = "", "requests per minute of the primary model (default: docs/llm.md table)";
    LLM_RPM_FALLBACK = "",
        "requests per minute of the fallback model (default: docs/llm.md table)";
    LLM_TPM_PRIMARY = "", "tokens per minute of the primary model (default: docs/llm.md table)";
    LLM_TPM_FALLBACK = "", "tokens per minute of the fallback model (default: docs/llm.md table)";
    LLM_PRICE_INPUT_PRIMARY = "",
        "USD per 1M prompt tokens of the primary model (default: docs/llm.md table)";
    LLM_PRICE_INPUT_FALLBACK = "",
        "USD per 1M prompt tokens of the fallback model (default: docs/llm.md table)";
    LLM_PRICE_OUTPUT_PRIMARY = "",
        "USD per 1M completion tokens of the primary model (default: docs/llm.md table)";
    LLM_PRICE_OUTPUT_FALLBACK = "",
        "USD per 1M completion tokens of the fallback model (default: docs/llm.md table)";
    LLM_MAX_ATTEMPTS = "4", "LLM API calls per row per pass";
    LLM_BACKOFF_BASE_MS = "1000", "first LLM backoff delay";
    LLM_BACKOFF_MAX_SECS = "60", "largest single LLM backoff or rate-limit wait";
    DB_POOL_PUBLIC_MAX = "4", "database connections of the public API (card, search)";
    DB_PUBLIC_STATEMENT_TIMEOUT_MS = "2000",
        "statement_timeout of the public API's queries (0: none)";
    DB_POOL_ADMIN_MAX = "8",
        "database connections of the admin API, login, probes and serve's tasks";
    DB_ADMIN_STATEMENT_TIMEOUT_MS = "25000",
        "statement_timeout of the admin pool's queries (0: none)";
    DB_POOL_WORKER_MAX = "10",
        "database connections of the background workers (no statement timeout)";
    PUBLIC_RATE_PER_SEC = "10",
        "requests per second per client address on /api/search and /api/bands/{id}";
    PUBLIC_RATE_BURST = "40",
        "burst allowed per client address before PUBLIC_RATE_PER_SEC applies";
    HTTP_MAX_CONNECTIONS = "512", "simultaneous client connections of serve";
    HTTP_HEADER_TIMEOUT_SECS = "10",
        "time a client has to send request headers (and idle keep-alive limit)";
    HTTP_MAX_CONNECTIONS_PER_ADDRESS = "32",
        "simultaneous connections of one client address (IPv6: per /64); TRUSTED_PROXIES peers are not capped";
    HTTP_WRITE_TIMEOUT_SECS = "15",
        "a response write making no progress this long (a client that stopped reading) closes the connection";
    HTTP_BODY_TIMEOUT_SECS = "15",
        "time a client has to send a whole request body (the bulk import excepted): past it 408";
    HTTP_REFUSAL_DELAY_MS = "1000", "a 429 is held this long before it is sent (0: at once)";
    RETENTION_LOGIN_ATTEMPTS_DAYS = "30",
        "admin_login_attempts rows older than this are pruned daily";
    RETENTION_REFUSED_LOGINS_DAYS = "7",
        "admin_login_attempts rows of attempts refused during a lockout (locked_out) are pruned after this";
    RETENTION_CRAWL_LOG_DAYS = "90", "crawl_log rows older than this are pruned daily";
    RETENTION_AUDIT_LOG_DAYS = "365", "admin_audit_log rows older than this are pruned daily";
}
