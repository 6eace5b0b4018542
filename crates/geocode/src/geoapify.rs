//! Geoapify forward geocoding client (`/work/shared/reference/geoapify.md`):
//! `GET {base}/v1/geocode/search?text=…&filter=countrycode:xx&lang=en&limit=5&format=json&apiKey=…`.
//! 429, 5xx and network failures are retried with exponential backoff; other 4xx are
//! fatal and carry the provider's own message. Every call goes through the shared
//! [`Limiter`]. The key never appears in an error or a log line (reqwest errors are
//! stripped of their URL).

use crate::limiter::Limiter;
use crate::pacing::SharedPacing;
use crate::place::ProviderQuery;
use bandmap_time::Backoff;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use url::Url;

/// How a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallError {
    /// 429, 5xx, network: worth retrying later.
    Transient(String),
    /// Any other refusal (401, 400, …): retrying will not help.
    Fatal(String),
}

/// Retries after the first try of one call.
const RETRIES: u32 = 2;
/// Per-request timeout.
const TIMEOUT: Duration = Duration::from_secs(20);
/// Longest honoured `Retry-After`.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// The provider client.
#[derive(Debug)]
pub(crate) struct Geoapify {
    http: reqwest::Client,
    endpoint: Url,
    key: SecretString,
    limiter: Arc<Limiter>,
    /// Spacing across processes (rule 14 with several processes on one key).
    pacing: Option<SharedPacing>,
    retry_base: Duration,
}

impl Geoapify {
    pub(crate) fn new(
        base: &Url,
        key: SecretString,
        limiter: Arc<Limiter>,
        retry_base: Duration,
    ) -> Result<Geoapify, String> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .user_agent(concat!("bandmap-geocoder/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.without_url().to_string())?;
        // A base with a path prefix keeps it: `http://host/prefix` → `/prefix/v1/…`.
        let mut base = base.clone();
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let endpoint = base
            .join("v1/geocode/search")
            .map_err(|e| format!("GEOCODER_BASE_URL: {e}"))?;
        Ok(Geoapify {
            http,
            endpoint,
            key,
            limiter,
            pacing: None,
            retry_base,
        })
    }

    /// The same client, also paced across processes through the database.
    pub(crate) fn with_pacing(mut self, pacing: SharedPacing) -> Geoapify {
        self.pacing = Some(pacing);
        self
    }

    fn url(&self, q: &ProviderQuery, limit: u32) -> Url {
        let mut url = self.endpoint.clone();
        {
            let mut p = url.query_pairs_mut();
            p.append_pair("text", &q.text);
            if let Some(cc) = &q.country_code {
                p.append_pair("filter", &format!("countrycode:{cc}"));
            }
            p.append_pair("lang", "en");
            p.append_pair("limit", &limit.to_string());
            p.append_pair("format", "json");
            p.append_pair("apiKey", self.key.expose_secret());
        }
        url
    }

    /// One search, with retries; `Ok` is the whole `format=json` response.
    pub(crate) async fn search(&self, q: &ProviderQuery) -> Result<Value, CallError> {
        self.search_limited(q, 5).await
    }

    /// A one-result search (the heartbeat's reachability probe).
    pub(crate) async fn probe(&self) -> Result<Value, CallError> {
        let q = ProviderQuery {
            text: "Oslo".into(),
            country_code: Some("no".into()),
        };
        self.search_limited(&q, 1).await
    }

    async fn search_limited(&self, q: &ProviderQuery, limit: u32) -> Result<Value, CallError> {
        let url = self.url(q, limit);
        let mut attempt = 0;
        loop {
            let call = async {
                match &self.pacing {
                    Some(p) => p.paced(self.call_once(url.clone())).await,
                    None => self.call_once(url.clone()).await,
                }
            };
            let (result, retry_after) = self.limiter.run(call).await;
            bandmap_metrics::geocoder::provider_call(crate::GEOAPIFY_PROVIDER, outcome(&result));
            match result {
                Err(CallError::Transient(e)) if attempt < RETRIES => {
                    let backoff = retry_after.map_or_else(
                        || Backoff::doubling(self.retry_base, MAX_RETRY_AFTER).delay(attempt + 1),
                        |d| d.min(MAX_RETRY_AFTER),
                    );
                    tracing::info!(attempt, error = %e, ?backoff, "geoapify call failed, retrying");
                    tokio::time::sleep(backoff).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    async fn call_once(&self, url: Url) -> (Result<Value, CallError>, Option<Duration>) {
        let resp = match self.http.get(url).send().await {
            Ok(r) => r,
            Err(e) => return (Err(CallError::Transient(network_message(e))), None),
        };
        let status = resp.status();
        let retry_after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = match resp.text().await {
            Ok(b) => b,
            Err(e) => return (Err(CallError::Transient(network_message(e))), None),
        };
        if status.is_success() {
            return match serde_json::from_str::<Value>(&body) {
                Ok(v) if v.get("results").is_some_and(Value::is_array) => (Ok(v), None),
                _ => (
                    Err(CallError::Transient(format!(
                        "geoapify HTTP {}: unreadable answer: {}",
                        status.as_u16(),
                        excerpt(&body)
                    ))),
                    None,
                ),
            };
        }
        let msg = format!(
            "geoapify HTTP {}: {}",
            status.as_u16(),
            error_message(&body)
        );
        if status.as_u16() == 429 || status.is_server_error() {
            (Err(CallError::Transient(msg)), retry_after)
        } else {
            (Err(CallError::Fatal(msg)), None)
        }
    }
}

/// How one request ended, for the metrics.
fn outcome<T>(r: &Result<T, CallError>) -> bandmap_metrics::geocoder::CallOutcome {
    use bandmap_metrics::geocoder::CallOutcome;
    match r {
        Ok(_) => CallOutcome::Ok,
        Err(CallError::Transient(_)) => CallOutcome::Transient,
        Err(CallError::Fatal(_)) => CallOutcome::Fatal,
    }
}

fn network_message(e: reqwest::Error) -> String {
    format!("geoapify unreachable: {}", e.without_url())
}

/// The provider's message from an error body (`{"message": …}`), else the body excerpt.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| {
            let m = v.get("message").and_then(Value::as_str)?.to_string();
            Some(match v.get("error").and_then(Value::as_str) {
                Some(e) if !m.contains(e) => format!("{e}: {m}"),
                _ => m,
            })
        })
        .unwrap_or_else(|| excerpt(body))
}

fn excerpt(body: &str) -> String {
    let t = body.trim();
    match t.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None if t.is_empty() => "(empty body)".to_string(),
        None => t.to_string(),
    }
}

/// One usable result of a response.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    pub lat: f64,
    pub lon: f64,
    /// `rank.confidence`; `None` when absent (unknown, not 0).
    pub confidence: Option<f64>,
    /// `result_type`, `unknown` when absent.
    pub granularity: String,
    /// The result object as received (cached as `raw`).
    pub raw: Value,
}

/// Granularity of one result object (`result_type`).
pub(crate) fn granularity_of(result: &Value) -> Option<String> {
    result
        .get("result_type")
        .and_then(Value::as_str)
        .map(|s| s.to_ascii_lowercase())
}

/// The results with coordinates, in the provider's order; results of another country than
/// the requested one are dropped (defensive: the filter should already exclude them).
pub(crate) fn candidates(resp: &Value, country_code: Option<&str>) -> Vec<Candidate> {
    let Some(results) = resp.get("results").and_then(Value::as_array) else {
        return Vec::new();
    };
    results
        .iter()
        .filter(|r| {
            let cc = r.get("country_code").and_then(Value::as_str);
            match (country_code, cc) {
                (Some(want), Some(got)) => want.eq_ignore_ascii_case(got),
                _ => true,
            }
        })
        .filter_map(|r| {
            let lat = r.get("lat").and_then(Value::as_f64)?;
            let lon = r.get("lon").and_then(Value::as_f64)?;
            if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                return None;
            }
            Some(Candidate {
                lat,
                lon,
                confidence: r
                    .get("rank")
                    .and_then(|k| k.get("confidence"))
                    .and_then(Value::as_f64),
                granularity: granularity_of(r).unwrap_or_else(|| "unknown".into()),
                raw: r.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn candidates_read_the_json_format() {
        let resp = json!({"results": [
            {"lat": 60.39, "lon": 5.32, "result_type": "city", "country_code": "no",
             "rank": {"confidence": 0.95}},
            {"lat": 61.0, "lon": 6.0, "result_type": "state", "country_code": "no", "rank": {}},
            {"lat": 52.6, "lon": 4.7, "result_type": "city", "country_code": "nl",
             "rank": {"confidence": 1}},
            {"result_type": "city"}
        ]});
        let c = candidates(&resp, Some("no"));
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].confidence, Some(0.95));
        assert_eq!(c[0].granularity, "city");
        assert_eq!(c[1].confidence, None);
        assert_eq!(candidates(&json!({"results": []}), None), vec![]);
    }

    #[test]
    fn error_messages_are_the_providers() {
        assert_eq!(
            error_message(
                r#"{"statusCode":401,"error":"Unauthorized","message":"Invalid apiKey"}"#
            ),
            "Unauthorized: Invalid apiKey"
        );
        assert_eq!(error_message("oops"), "oops");
        assert_eq!(error_message(""), "(empty body)");
    }
}
