//! Shared answers of short search texts (issue 18): a text of 1 or 2 characters has no
//! trigram, so its SQL search reads every name; while the in-memory copy is not fresh, such
//! an answer is shared for a minute — one query per text per minute however many clients
//! ask (`crate::public::search`).

use bandmap_db::bands::by_name::NameRow;
use std::future::Future;
use std::sync::Arc;

/// How long a short text's answer is shared.
pub const SHORT_TTL_SECS: u64 = 60;

/// The answers, keyed by the lowercased text and the minute (an older minute's entries are
/// never read again and age out of the cache).
#[derive(Debug)]
pub struct ShortAnswers(quick_cache::sync::Cache<(String, u64), Arc<Vec<NameRow>>>);

impl Default for ShortAnswers {
    fn default() -> Self {
        ShortAnswers(quick_cache::sync::Cache::new(4096))
    }
}

impl ShortAnswers {
    /// The answer of `text` shared this minute, or `fetch`'s, then shared (concurrent askers
    /// of the same text wait for the one fetch).
    pub async fn get_or_fetch<E, F>(&self, text: &str, fetch: F) -> Result<Arc<Vec<NameRow>>, E>
    where
        F: Future<Output = Result<Vec<NameRow>, E>>,
    {
        let minute = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() / SHORT_TTL_SECS)
            .unwrap_or(0);
        let key = (text.to_lowercase(), minute);
        match self.0.get_value_or_guard_async(&key).await {
            Ok(rows) => Ok(rows),
            Err(guard) => {
                let rows = Arc::new(fetch.await?);
                let _ = guard.insert(rows.clone());
                Ok(rows)
            }
        }
    }
}
