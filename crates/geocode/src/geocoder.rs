//! [`Geocoder`]: resolves one place through the tiers gazetteer → cache → provider (with
//! fallbacks), applying rule 15 at each step. Row-level concerns (dedup, states) belong
//! to the worker; the LLM worker calls [`Geocoder::resolve`] directly.

use crate::cache::{self, Answer};
use crate::geoapify::{CallError, Geoapify, candidates};
use crate::limiter::Limiter;
use crate::pacing::SharedPacing;
use crate::place::{PlaceQuery, ProviderQuery};
use crate::resolution::{Resolution, Resolved, accept};
use crate::{GAZETTEER_PROVIDER, GEOAPIFY_PROVIDER, GeocodeError};
use bandmap_config::{GeocoderConfig, GeocoderProvider};
use bandmap_gazetteer::{Gazetteer, Lookup, Query};
use serde_json::Value;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;

/// Whether the external provider can be called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderStatus {
    /// Configured with a key.
    Ready,
    /// No external calls, and why (`GEOCODER_PROVIDER=none`, `GEOCODING_API_KEY missing`).
    Disabled(String),
}

/// The place resolver: cheap to clone (one `Arc`); one gazetteer, one provider client and
/// one rate limiter shared by every clone.
#[derive(Clone)]
pub struct Geocoder {
    inner: Arc<Inner>,
}

struct Inner {
    pool: PgPool,
    gazetteer: Option<Arc<Gazetteer>>,
    provider: Option<Geoapify>,
    status: ProviderStatus,
    min_confidence: f64,
}

/// First backoff of a retried provider call (doubles each retry).
const RETRY_BASE: Duration = Duration::from_secs(1);

impl Geocoder {
    /// Builds the geocoder; loads the gazetteer when `cfg.offline` (a missing or broken
    /// file is a warning: the service runs without it).
    pub async fn new(pool: PgPool, cfg: &GeocoderConfig) -> Result<Geocoder, GeocodeError> {
        let gazetteer = if cfg.offline {
            load_gazetteer(cfg.gazetteer_path.clone()).await
        } else {
            None
        };
        Self::with_parts(pool, cfg, gazetteer, RETRY_BASE)
    }

    /// Builds the geocoder from an already loaded gazetteer (tests, benchmarks) and a
    /// chosen first retry backoff. `cfg.offline` is not consulted.
    pub fn with_parts(
        pool: PgPool,
        cfg: &GeocoderConfig,
        gazetteer: Option<Arc<Gazetteer>>,
        retry_base: Duration,
    ) -> Result<Geocoder, GeocodeError> {
        let (provider, status) = match (&cfg.provider, &cfg.api_key) {
            (GeocoderProvider::None, _) => (
                None,
                ProviderStatus::Disabled("GEOCODER_PROVIDER=none".into()),
            ),
            (GeocoderProvider::Geoapify, None) => (
                None,
                ProviderStatus::Disabled("GEOCODING_API_KEY missing".into()),
            ),
            (GeocoderProvider::Geoapify, Some(key)) => {
                let limiter = Arc::new(Limiter::new(cfg.min_delay, cfg.min_jitter));
                let pacing = SharedPacing::new(pool.clone(), GEOAPIFY_PROVIDER, key, cfg.min_delay);
                let client = Geoapify::new(&cfg.base_url, key.clone(), limiter, retry_base)
                    .map_err(GeocodeError::Client)?
                    .with_pacing(pacing);
                (Some(client), ProviderStatus::Ready)
            }
        };
        Ok(Geocoder {
            inner: Arc::new(Inner {
                pool,
                gazetteer,
                provider,
                status,
                min_confidence: cfg.min_confidence,
            }),
        })
    }

    /// Whether the provider can be called.
    pub fn provider_status(&self) -> ProviderStatus {
        self.inner.status.clone()
    }

    /// Places in the loaded gazetteer (`None`: not loaded).
    pub fn gazetteer_size(&self) -> Option<usize> {
        self.inner.gazetteer.as_ref().map(|g| g.len())
    }

    /// Resolves one place: gazetteer, then for each fallback query the cache and the
    /// provider. Never panics; every failure is a [`Resolution`] variant.
    pub async fn resolve(&self, place: &PlaceQuery) -> Resolution {
        match self.offline(place) {
            Ok(r) => Resolution::Accepted(r),
            Err(notes) => self.online(place, notes).await,
        }
    }

    /// The offline tier alone (no I/O): the gazetteer's accepted match, or the notes saying
    /// why not, to pass to [`Geocoder::online`]. The batch worker resolves most rows here
    /// without leaving the batch.
    pub(crate) fn offline(&self, place: &PlaceQuery) -> Result<Resolved, Vec<String>> {
        let mut notes: Vec<String> = Vec::new();
        match self.gazetteer_tier(place, &mut notes) {
            Some(r) => Ok(r),
            None => Err(notes),
        }
    }

    /// The tiers after the gazetteer: cache and provider for each fallback query.
    pub(crate) async fn online(&self, place: &PlaceQuery, mut notes: Vec<String>) -> Resolution {
        let queries = place.fallbacks();
        let texts: Vec<String> = queries.iter().map(|q| q.text.clone()).collect();
        if queries.is_empty() {
            notes.push("no place name to look up".into());
        }
        let mut unasked = 0;
        for q in &queries {
            // Boxed: the provider call's future (HTTP client, retries, pacing, counters) is
            // large, and batches poll many resolutions side by side on one stack.
            match Box::pin(self.query_tier(q)).await {
                Tier::Accepted(r) => return Resolution::Accepted(r),
                Tier::Rejected(why) => notes.push(format!("'{}': {why}", q.text)),
                Tier::Unasked => unasked += 1,
                Tier::Stop(res) => return res,
            }
        }
        if unasked > 0 {
            let why = match &self.inner.status {
                ProviderStatus::Disabled(r) => r.clone(),
                ProviderStatus::Ready => "provider not asked".into(),
            };
            notes.insert(0, format!("no provider ({why})"));
            return Resolution::Unavailable {
                reason: notes.join("; "),
            };
        }
        Resolution::Rejected {
            error: notes.join("; "),
            queries: texts,
        }
    }

    /// The heartbeat's reachability probe (one cheap provider request, limited).
    pub async fn probe_provider(&self) -> Result<String, String> {
        match &self.inner.provider {
            None => match &self.inner.status {
                ProviderStatus::Disabled(r) => Ok(format!("disabled: {r}")),
                ProviderStatus::Ready => Ok("disabled".into()),
            },
            Some(p) => match p.probe().await {
                Ok(_) => Ok("reachable".into()),
                Err(CallError::Transient(e) | CallError::Fatal(e)) => Err(e),
            },
        }
    }

    fn gazetteer_tier(&self, place: &PlaceQuery, notes: &mut Vec<String>) -> Option<Resolved> {
        let g = self.inner.gazetteer.as_ref()?;
        let code = place.code_upper();
        let lookup = g.lookup(&Query {
            city: &place.city,
            regions: &place.regions,
            country_code: code.as_deref(),
        });
        match lookup {
            Lookup::Found(m) => {
                if let Ok(confidence) =
                    accept(Some(m.confidence), m.granularity, self.inner.min_confidence)
                {
                    bandmap_metrics::geocoder::gazetteer(true);
                    return Some(Resolved {
                        lat: m.lat,
                        lon: m.lon,
                        provider: GAZETTEER_PROVIDER.into(),
                        confidence,
                        granularity: m.granularity.into(),
                        query: format!(
                            "{} → GeoNames {} {} ({})",
                            place.label(),
                            m.geonameid,
                            m.name,
                            m.matched_on
                        ),
                    });
                }
                notes.push(format!(
                    "gazetteer: {} matched with confidence {:.2}",
                    m.name, m.confidence
                ));
            }
            Lookup::Ambiguous { candidates } => notes.push(format!(
                "gazetteer: ambiguous ({candidates} places fit {})",
                place.label()
            )),
            Lookup::NotFound => notes.push(format!("gazetteer: {} not found", place.label())),
            // Issue 30: a region alone is no town; the note says so for the console.
            Lookup::RegionOnly { region } => notes.push(format!(
                "gazetteer: {} names a region only ({region}): {}",
                place.label(),
                bandmap_db::band_locations::REGION_ONLY_NOTE
            )),
        }
        bandmap_metrics::geocoder::gazetteer(false);
        None
    }

    async fn query_tier(&self, q: &ProviderQuery) -> Tier {
        let min = self.inner.min_confidence;
        let cached = cache::lookup(&self.inner.pool, GEOAPIFY_PROVIDER, q).await;
        bandmap_metrics::geocoder::cache(matches!(cached, Ok(Some(_))));
        match cached {
            Ok(Some(answer)) => return judge(&answer, q, min, " (cached)"),
            Ok(None) => {}
            // A cache that cannot be read is a miss, not a failure of the row.
            Err(e) => tracing::warn!(error = %e, "geocode cache read failed"),
        }
        let Some(provider) = &self.inner.provider else {
            return Tier::Unasked;
        };
        let resp: Value = match bandmap_db::activity_counters::counted(
            &self.inner.pool,
            Box::pin(provider.search(q)),
        )
        .await
        {
            Ok(v) => v,
            Err(CallError::Transient(error)) => return Tier::Stop(Resolution::Transient { error }),
            Err(CallError::Fatal(error)) => return Tier::Stop(Resolution::Fatal { error }),
        };
        let found = candidates(&resp, q.country_code.as_deref());
        // The first acceptable result in the provider's order; else the best one, to say why.
        let chosen = found
            .iter()
            .find(|c| accept(c.confidence, &c.granularity, min).is_ok())
            .or(found.first());
        if let Err(e) = cache::store(&self.inner.pool, GEOAPIFY_PROVIDER, q, chosen).await {
            tracing::warn!(error = %e, "geocode cache write failed");
        }
        judge(&Answer::from_candidate(chosen), q, min, "")
    }
}

enum Tier {
    Accepted(Resolved),
    Rejected(String),
    /// Not in the cache and no provider to ask.
    Unasked,
    /// A provider failure that ends the resolution.
    Stop(Resolution),
}

fn judge(a: &Answer, q: &ProviderQuery, min: f64, suffix: &str) -> Tier {
    let Some((lat, lon)) = a.point else {
        return Tier::Rejected(format!("no result{suffix}"));
    };
    match accept(a.confidence, &a.granularity, min) {
        Ok(confidence) => Tier::Accepted(Resolved {
            lat,
            lon,
            provider: GEOAPIFY_PROVIDER.into(),
            confidence,
            granularity: a.granularity.clone(),
            query: q.text.clone(),
        }),
        Err(why) => Tier::Rejected(format!("{why}{suffix}")),
    }
}

async fn load_gazetteer(path: std::path::PathBuf) -> Option<Arc<Gazetteer>> {
    let shown = path.display().to_string();
    let started = std::time::Instant::now();
    match tokio::task::spawn_blocking(move || Gazetteer::load(&path)).await {
        Ok(Ok(g)) => {
            tracing::info!(path = %shown, places = g.len(), ms = started.elapsed().as_millis() as u64, "gazetteer loaded");
            Some(Arc::new(g))
        }
        Ok(Err(e)) => {
            tracing::warn!(path = %shown, error = %e, "gazetteer not loaded; running without it (run scripts/fetch-gazetteer.sh)");
            None
        }
        Err(e) => {
            tracing::warn!(path = %shown, error = %e, "gazetteer loading crashed; running without it");
            None
        }
    }
}
