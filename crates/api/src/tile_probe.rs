//! Whether the map's tile server answers (issue 28), asked by the map page before it asks
//! for tiles: `GET /map/tiles-status.json` → `{"tiles": "reachable" | "unreachable" |
//! "none" | "unknown"}`. An offline page used to learn it from its own failed tile
//! requests, and every failed request is a console error (Lighthouse's best practices 96);
//! a same-origin answer costs none. The server asks one tile of the operator's template
//! (`MAP_TILE_URL`, zoom 0) with a short timeout, and remembers the answer for a while: any
//! HTTP answer means the host is there; a DNS, connection or timeout failure means it is not.
//! What the server can reach is taken as what the visitors can: an operator whose server has
//! no way out but whose visitors do sets no probe (`WEB_DIR`'s static file answers
//! `unknown`, and the page then tries the tiles itself, as before).

use serde::Serialize;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// How long one probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a "reachable" answer is kept.
const KEEP_REACHABLE: Duration = Duration::from_secs(600);
/// How long an "unreachable" answer is kept (a network back up is seen within a minute).
const KEEP_UNREACHABLE: Duration = Duration::from_secs(60);

/// What the page is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TileStatus {
    /// The tile host answered.
    Reachable,
    /// The tile host could not be reached (DNS, connection, timeout).
    Unreachable,
    /// No tiles are configured (`MAP_TILE_URL=none`).
    None,
    /// Not known (a same-origin tile path, or no probe could be built): the page tries.
    Unknown,
}

/// The JSON body of the answer.
#[derive(Debug, Serialize)]
pub struct TileStatusBody {
    /// The status.
    pub tiles: TileStatus,
}

/// One tile server's reachability, probed at most once per keep period.
#[derive(Debug)]
pub struct TileProbe {
    /// The URL probed (`None`: nothing to probe, the answer is `fixed`).
    url: Option<String>,
    fixed: TileStatus,
    /// Built at the first probe, not with the router (a process without a TLS provider
    /// must not fail at start for the map page's nicety).
    client: std::sync::OnceLock<Option<reqwest::Client>>,
    last: Mutex<Option<(Instant, TileStatus)>>,
}

/// The zoom-0 tile of a template (`{z}`, `{x}`, `{y}` → 0, `{s}` → `a`, `{r}` → ``), when
/// the template is an absolute http(s) URL.
pub fn probe_url(template: &str) -> Option<String> {
    let t = template.trim();
    if !(t.starts_with("https://") || t.starts_with("http://")) {
        return None;
    }
    Some(
        t.replace("{z}", "0")
            .replace("{x}", "0")
            .replace("{y}", "0")
            .replace("{s}", "a")
            .replace("{r}", ""),
    )
}

impl TileProbe {
    /// The probe of a `MAP_TILE_URL` value.
    pub fn new(template: &str) -> Self {
        let trimmed = template.trim();
        let (url, fixed) = if trimmed.is_empty() || trimmed == "none" {
            (None, TileStatus::None)
        } else {
            (probe_url(trimmed), TileStatus::Unknown)
        };
        Self {
            url,
            fixed,
            client: std::sync::OnceLock::new(),
            last: Mutex::new(None),
        }
    }

    /// The probe's HTTP client, built at the first probe; none when the process has no TLS
    /// provider installed (reqwest, built without one, would panic) or it cannot be built.
    fn client(&self) -> Option<&reqwest::Client> {
        self.client
            .get_or_init(|| {
                rustls::crypto::CryptoProvider::get_default()?;
                reqwest::Client::builder()
                    .timeout(PROBE_TIMEOUT)
                    .connect_timeout(PROBE_TIMEOUT)
                    .user_agent(concat!(
                        "bandmap/",
                        env!("CARGO_PKG_VERSION"),
                        " tile-probe"
                    ))
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// The status, probed again when the remembered one is too old. One probe at a time:
    /// concurrent callers wait for it.
    pub async fn status(&self) -> TileStatus {
        let (Some(url), Some(client)) = (&self.url, self.client()) else {
            return self.fixed;
        };
        let mut last = self.last.lock().await;
        if let Some((at, status)) = *last {
            let keep = match status {
                TileStatus::Reachable => KEEP_REACHABLE,
                _ => KEEP_UNREACHABLE,
            };
            if at.elapsed() < keep {
                return status;
            }
        }
        let status = match client.get(url).send().await {
            Ok(_) => TileStatus::Reachable,
            Err(e) => {
                tracing::info!(error = %e, "map tiles unreachable from the server: the map page will not ask for them");
                TileStatus::Unreachable
            }
        };
        *last = Some((Instant::now(), status));
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_asks_the_zoom_0_tile_of_an_absolute_template() {
        assert_eq!(
            probe_url("https://{s}.tile.example/{z}/{x}/{y}{r}.png").as_deref(),
            Some("https://a.tile.example/0/0/0.png")
        );
        assert_eq!(probe_url("/tiles/{z}/{x}/{y}.png"), None);
    }

    #[tokio::test]
    async fn none_is_none_and_a_path_is_unknown() {
        assert_eq!(TileProbe::new("none").status().await, TileStatus::None);
        assert_eq!(
            TileProbe::new("/tiles/{z}/{x}/{y}.png").status().await,
            TileStatus::Unknown
        );
    }

    #[tokio::test]
    async fn a_host_that_refuses_is_unreachable_and_one_that_answers_is_reachable() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // A port nobody listens on: bound, then released.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let closed = TileProbe::new(&format!("http://127.0.0.1:{port}/{{z}}/{{x}}/{{y}}.png"));
        assert_eq!(closed.status().await, TileStatus::Unreachable);

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new().route(
            "/0/0/0.png",
            axum::routing::get(|| async { (axum::http::StatusCode::FORBIDDEN, "no") }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await });
        let open = TileProbe::new(&format!("http://{addr}/{{z}}/{{x}}/{{y}}.png"));
        assert_eq!(
            open.status().await,
            TileStatus::Reachable,
            "any HTTP answer counts"
        );
    }
}
