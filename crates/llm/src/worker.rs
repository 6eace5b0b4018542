//! One unit of work: claim a due `llm_needed` row, extract its city with the LLM, geocode
//! the city through the geocoder's code, and write the outcome (CONTRACT §3).

use crate::call::{CallFor, CallResult, Caller};
use crate::extraction::Extraction;
use crate::prompt::PromptInput;
use crate::resolver::CityResolver;
use bandmap_db::band_locations::done::{self, DoneBy, DoneFields};
use bandmap_db::band_locations::llm::{self, LlmClaimed};
use bandmap_geocode::{PlaceQuery, Resolution, Resolved};

/// What [`Worker::run_once`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No key configured: nothing claimed.
    NoKey,
    /// No due row.
    Idle,
    /// `done` with `provider = 'llm+<provider>'`.
    Done {
        /// Row id.
        location_id: i64,
        /// The stored provider.
        provider: String,
        /// Model whose extraction was used.
        model: String,
        /// Whether the extraction came from the cache.
        cached: bool,
    },
    /// `manual`: null city, or the city failed geocoding (including a city the gazetteer
    /// does not know while no geocoding provider is configured).
    Manual {
        /// Row id.
        location_id: i64,
        /// Why.
        reason: String,
    },
    /// Still `llm_needed` with `error` set and `attempts` incremented (API failure after
    /// retries, malformed reply, geocoder provider failing transiently).
    Retry {
        /// Row id.
        location_id: i64,
        /// The error stored.
        error: String,
    },
    /// Both models are kept off for longer than one backoff (a daily quota): nothing was
    /// called; the claimed row, if any, was postponed without spending an attempt. The
    /// service loop sleeps `wait` before claiming again.
    Paused {
        /// Row postponed (`None`: the pause was known before claiming).
        location_id: Option<i64>,
        /// Time until a model may be asked again.
        wait: std::time::Duration,
    },
    /// `error`: the geocoder refused the city for good.
    Error {
        /// Row id.
        location_id: i64,
        /// The error stored.
        error: String,
    },
    /// The row left `llm_needed` while we worked on it (admin action): nothing written.
    Skipped {
        /// Row id.
        location_id: i64,
    },
}

/// The worker: an extraction caller (absent without a key) and a city resolver.
#[derive(Debug)]
pub struct Worker<R> {
    pool: sqlx::PgPool,
    caller: Option<Caller>,
    resolver: R,
}

impl<R: CityResolver> Worker<R> {
    /// A worker; `caller` is `None` when no API key is configured (the worker idles).
    pub fn new(pool: sqlx::PgPool, caller: Option<Caller>, resolver: R) -> Self {
        Self {
            pool,
            caller,
            resolver,
        }
    }

    /// The caller, when a key is configured.
    #[must_use]
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_ref()
    }

    /// Claims and processes one row. Only database failures are errors.
    pub async fn run_once(&self) -> Result<Outcome, bandmap_db::DbError> {
        let Some(caller) = &self.caller else {
            return Ok(Outcome::NoKey);
        };
        if let Some(wait) = caller.paused_for() {
            return Ok(Outcome::Paused {
                location_id: None,
                wait,
            });
        }
        let Some(row) = llm::claim(&self.pool).await? else {
            return Ok(Outcome::Idle);
        };
        self.process(caller, &row).await
    }

    #[tracing::instrument(skip_all, fields(location.id = row.id, band.ma_id = row.ma_id))]
    async fn process(
        &self,
        caller: &Caller,
        row: &LlmClaimed,
    ) -> Result<Outcome, bandmap_db::DbError> {
        // Stable inputs only (rule 21): never the geocoder's last query or error.
        let input = PromptInput {
            location_raw: row.location_raw.clone(),
            country: row.country.clone(),
        };
        let call_for = CallFor {
            ma_id: Some(row.ma_id),
            location_id: Some(row.id),
            country: row.country.clone(),
        };
        let (extraction, model, cached) = match caller.extract(&input, &call_for).await? {
            CallResult::Answer {
                extraction,
                model,
                cached,
            } => (extraction, model, cached),
            CallResult::Malformed { model, error } => {
                return self.retry(row, format!("{model}: {error}")).await;
            }
            CallResult::Paused { wait, error } => {
                let error = format!(
                    "LLM paused: both models rate-limited for {} s (daily quota?); last error: {error}",
                    wait.as_secs()
                );
                tracing::warn!(error = %error, "LLM worker paused");
                return if llm::postpone(&self.pool, &row.lease(), wait, &error).await? {
                    Ok(Outcome::Paused {
                        location_id: Some(row.id),
                        wait,
                    })
                } else {
                    Ok(Outcome::Skipped {
                        location_id: row.id,
                    })
                };
            }
            CallResult::Failed { error, api_calls } => {
                return self
                    .retry(
                        row,
                        format!("LLM API failed after {api_calls} call(s): {error}"),
                    )
                    .await;
            }
        };
        let Some(query) = city_query(&extraction, row) else {
            let reason = format!("LLM ({model}) found no city in {:?}", row.location_raw);
            return self.manual(row, reason, None).await;
        };
        match self.resolver.resolve(&query).await {
            Resolution::Accepted(point) => {
                let fields = llm_done_fields(point);
                let provider = fields.provider.clone();
                if done::mark_done(&self.pool, DoneBy::Llm(&row.lease()), &fields)
                    .await?
                    .is_some()
                {
                    Ok(Outcome::Done {
                        location_id: row.id,
                        provider,
                        model,
                        cached,
                    })
                } else {
                    Ok(Outcome::Skipped {
                        location_id: row.id,
                    })
                }
            }
            Resolution::Rejected { error, queries } => {
                let reason = format!("LLM city {:?} failed geocoding: {error}", query.city);
                let last = queries.last().map(String::as_str);
                self.manual(row, reason, last).await
            }
            Resolution::Fatal { error } => {
                let error = format!("geocoding LLM city {:?}: {error}", query.city);
                if llm::mark_error(&self.pool, &row.lease(), &error).await? {
                    Ok(Outcome::Error {
                        location_id: row.id,
                        error,
                    })
                } else {
                    Ok(Outcome::Skipped {
                        location_id: row.id,
                    })
                }
            }
            // No provider is configured and the gazetteer does not know the city: nothing
            // this worker can do will change that, so the row waits for an admin instead of
            // looping. Once a provider is configured, resetting the row re-runs it and the
            // cached extraction makes that free.
            Resolution::Unavailable { reason } => {
                let reason = format!(
                    "LLM city {:?} could not be geocoded: {reason}; configure a geocoding \
                     provider and reset the row, or set its point by hand",
                    query.city
                );
                self.manual(row, reason, None).await
            }
            Resolution::Transient { error } => {
                self.retry(row, format!("geocoding LLM city {:?}: {error}", query.city))
                    .await
            }
        }
    }

    async fn manual(
        &self,
        row: &LlmClaimed,
        reason: String,
        query: Option<&str>,
    ) -> Result<Outcome, bandmap_db::DbError> {
        if llm::mark_manual(&self.pool, &row.lease(), &reason, query).await? {
            Ok(Outcome::Manual {
                location_id: row.id,
                reason,
            })
        } else {
            Ok(Outcome::Skipped {
                location_id: row.id,
            })
        }
    }

    async fn retry(&self, row: &LlmClaimed, error: String) -> Result<Outcome, bandmap_db::DbError> {
        tracing::warn!(error = %error, "LLM row left llm_needed");
        if llm::mark_retry(&self.pool, &row.lease(), &error).await? {
            Ok(Outcome::Retry {
                location_id: row.id,
                error,
            })
        } else {
            Ok(Outcome::Skipped {
                location_id: row.id,
            })
        }
    }
}

/// The columns of an LLM `done` row: the geocoder's result, provider `llm+<provider>`.
fn llm_done_fields(r: Resolved) -> DoneFields {
    let mut fields = DoneFields::from(r);
    fields.provider = format!("llm+{}", fields.provider);
    fields
}

/// The geocoder query for an extraction; `None` when there is no city. The band's country
/// wins unless the model names another known country (a band that moved abroad).
#[must_use]
pub fn city_query(e: &Extraction, row: &LlmClaimed) -> Option<PlaceQuery> {
    let city = e.city.clone()?;
    let row_country = row
        .country_code
        .as_deref()
        .or(row.country.as_deref())
        .and_then(bandmap_location::countries::resolve);
    let llm_country = e
        .country
        .as_deref()
        .and_then(bandmap_location::countries::resolve);
    let country = match (llm_country, row_country) {
        (Some(l), _) if !l.is_pseudo() => Some(l),
        (_, Some(r)) if !r.is_pseudo() => Some(r),
        _ => None,
    };
    Some(PlaceQuery {
        city,
        regions: e.region.clone().into_iter().collect(),
        country_code: country.map(|c| c.code.to_string()),
        country_name: country
            .map(|c| c.name.to_string())
            .or_else(|| e.country.clone())
            .or_else(|| row.country.clone()),
    })
}
