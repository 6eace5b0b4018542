//! The provider cache tier (rule 16) over `bandmap_db::geocode_cache`: one row per
//! (provider, normalised query text, country filter). A hit takes `lat`, `lon` and
//! `confidence` from the row's columns — never a constant — and recomputes the granularity
//! from the row's `raw` answer (the column only when `raw` has none). Provider answers with
//! no usable result are cached too (`lat` NULL), so a hopeless query costs one credit once.

use crate::geoapify::{Candidate, granularity_of};
use crate::place::ProviderQuery;
use bandmap_db::geocode_cache::{self, CacheRow};
use serde_json::{Value, json};
use sqlx::PgPool;

/// Normalised query text: Unicode lower case, whitespace collapsed, no space before a
/// comma. Accents are kept: the provider tells `Bø` from `Bo`.
pub fn normalise_query(text: &str) -> String {
    let lower = text.to_lowercase();
    let collapsed = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed.replace(" ,", ",")
}

/// Cache key of one provider query: `provider:normalised text|country code`.
pub fn cache_key(provider: &str, q: &ProviderQuery) -> String {
    format!(
        "{provider}:{}|{}",
        normalise_query(&q.text),
        q.country_code.as_deref().unwrap_or("").to_ascii_lowercase()
    )
}

/// A cached or fresh answer to one provider query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    /// `None` when the provider had no usable result.
    pub point: Option<(f64, f64)>,
    pub confidence: Option<f64>,
    pub granularity: String,
}

impl Answer {
    pub(crate) fn from_row(row: &CacheRow) -> Answer {
        let granularity = granularity_from_raw(&row.raw)
            .or_else(|| row.granularity.clone())
            .unwrap_or_else(|| "unknown".to_string());
        Answer {
            point: row.lat.zip(row.lon),
            confidence: row.confidence,
            granularity,
        }
    }

    pub(crate) fn from_candidate(c: Option<&Candidate>) -> Answer {
        match c {
            Some(c) => Answer {
                point: Some((c.lat, c.lon)),
                confidence: c.confidence,
                granularity: c.granularity.clone(),
            },
            None => Answer {
                point: None,
                confidence: None,
                granularity: "unknown".to_string(),
            },
        }
    }
}

/// Granularity recomputed from a stored answer: a result object's `result_type`, or the
/// first result's when a whole response was stored.
pub(crate) fn granularity_from_raw(raw: &Value) -> Option<String> {
    granularity_of(raw).or_else(|| {
        raw.get("results")
            .and_then(Value::as_array)
            .and_then(|r| r.first())
            .and_then(granularity_of)
    })
}

/// Reads the cached answer of one query.
pub(crate) async fn lookup(
    pool: &PgPool,
    provider: &str,
    q: &ProviderQuery,
) -> Result<Option<Answer>, bandmap_db::DbError> {
    let row = geocode_cache::get(pool, &cache_key(provider, q)).await?;
    Ok(row
        .filter(|r| r.provider == provider)
        .map(|r| Answer::from_row(&r)))
}

/// Stores the chosen result of one query (or the empty answer).
pub(crate) async fn store(
    pool: &PgPool,
    provider: &str,
    q: &ProviderQuery,
    chosen: Option<&Candidate>,
) -> Result<(), bandmap_db::DbError> {
    let row = CacheRow {
        key: cache_key(provider, q),
        provider: provider.to_string(),
        query: q.text.clone(),
        raw: chosen.map_or_else(|| json!({"results": []}), |c| c.raw.clone()),
        lat: chosen.map(|c| c.lat),
        lon: chosen.map(|c| c.lon),
        confidence: chosen.and_then(|c| c.confidence),
        granularity: chosen.map(|c| c.granularity.clone()),
    };
    geocode_cache::put(pool, &row).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_normalised_and_carry_provider_and_country() {
        let q = ProviderQuery {
            text: "  Bergen ,  Vestland,Norway ".into(),
            country_code: Some("NO".into()),
        };
        assert_eq!(
            cache_key("geoapify", &q),
            "geoapify:bergen, vestland,norway|no"
        );
        let q2 = ProviderQuery {
            text: "Bø".into(),
            country_code: None,
        };
        assert_eq!(cache_key("geoapify", &q2), "geoapify:bø|");
    }

    #[test]
    fn granularity_comes_from_raw() {
        assert_eq!(
            granularity_from_raw(&json!({"result_type": "State"})).as_deref(),
            Some("state")
        );
        assert_eq!(
            granularity_from_raw(&json!({"results": [{"result_type": "city"}]})).as_deref(),
            Some("city")
        );
        assert_eq!(granularity_from_raw(&json!({"results": []})), None);
    }
}
