//! Catalogue statistics and the enrichment queue as the admin API shows them
//! (`GET /admin/api/stats`, `GET /admin/api/queue`, `enrich_queue` of `GET /admin/api/live`).
//!
//! Genre keywords: parenthesised parts are dropped (`Death Metal (early)`), the text is split
//! on `/`, `,`, `;` and `|`, each part is trimmed and loses a trailing word `Metal`
//! (case-insensitive) unless nothing else is left; empty parts are dropped. A band counts
//! once per distinct keyword (case-insensitive; the most frequent spelling is shown), so
//! `Black/Death Metal` counts once for `Black` and once for `Death`.
//!
//! Enrichment queue (rule 2): a band is queued when `enrich_pending` is raised, when
//! `updated_at - crawled_at > 1 minute`, or when it was never enriched. Each band has one
//! priority, the first that applies in that order; the queue is ordered by priority, then
//! by `ma_id`.

use crate::Result;
use sqlx::PgExecutor;

/// One bucket of a breakdown.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = Bucket))]
pub struct KeyCount {
    /// Value (`(none)` when missing).
    pub key: String,
    /// Bands.
    pub count: i64,
}

/// Catalogue totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, sqlx::FromRow)]
pub struct Totals {
    /// Bands.
    pub bands_total: i64,
    /// Bands enriched.
    pub enriched: i64,
    /// Bands with a primary point.
    pub geocoded: i64,
}

/// Label of a missing country or status in the breakdowns.
pub const NONE_KEY: &str = "(none)";

/// Band totals.
pub async fn totals(db: impl PgExecutor<'_>) -> Result<Totals> {
    Ok(sqlx::query_as(
        "SELECT count(*) AS bands_total, count(*) FILTER (WHERE enriched) AS enriched,
                count(*) FILTER (WHERE lat IS NOT NULL AND lon IS NOT NULL) AS geocoded
         FROM bands",
    )
    .fetch_one(db)
    .await?)
}

/// Bands per country, largest first.
pub async fn by_country(db: impl PgExecutor<'_>) -> Result<Vec<KeyCount>> {
    Ok(sqlx::query_as(
        "SELECT coalesce(nullif(btrim(country), ''), $1) AS key, count(*) AS count
         FROM bands GROUP BY 1 ORDER BY count(*) DESC, 1",
    )
    .bind(NONE_KEY)
    .fetch_all(db)
    .await?)
}

/// Bands per status, largest first.
pub async fn by_status(db: impl PgExecutor<'_>) -> Result<Vec<KeyCount>> {
    Ok(sqlx::query_as(
        "SELECT coalesce(nullif(btrim(status), ''), $1) AS key, count(*) AS count
         FROM bands GROUP BY 1 ORDER BY count(*) DESC, 1",
    )
    .bind(NONE_KEY)
    .fetch_all(db)
    .await?)
}

/// Bands per genre keyword (see the module header), largest first.
pub async fn by_genre_keyword(db: impl PgExecutor<'_>) -> Result<Vec<KeyCount>> {
    Ok(sqlx::query_as(
        r"WITH parts AS (
             SELECT b.ma_id, btrim(p) AS p
             FROM bands b,
                  regexp_split_to_table(regexp_replace(b.genre, '\([^)]*\)', ' ', 'g'), '[/,;|]') AS p
             WHERE b.genre IS NOT NULL
         ), words AS (
             SELECT DISTINCT ma_id,
                    CASE WHEN p ~* '^metal$' THEN p
                         ELSE btrim(regexp_replace(p, '\s+metal$', '', 'i')) END AS word
             FROM parts
         )
         SELECT mode() WITHIN GROUP (ORDER BY word) AS key, count(DISTINCT ma_id) AS count
         FROM words WHERE word <> ''
         GROUP BY lower(word) ORDER BY count(DISTINCT ma_id) DESC, 1",
    )
    .fetch_all(db)
    .await?)
}

// Each band counts under its first priority only; `enrich_pending` is rule 4's flag.
/// Queue sizes per priority (disjoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = Priorities))]
pub struct QueueCounts {
    /// Flagged by the crawler.
    pub enrich_pending: i64,
    /// Changed more than a minute after the last crawl (rule 2).
    pub updated_since_crawl: i64,
    /// Never enriched.
    pub never_enriched: i64,
}

impl QueueCounts {
    /// Bands in the queue.
    pub fn total(&self) -> i64 {
        self.enrich_pending + self.updated_since_crawl + self.never_enriched
    }
}

/// A queued band.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = QueueItem))]
pub struct QueuedBand {
    /// Band id.
    pub ma_id: i64,
    /// Band name.
    pub name: String,
    /// `enrich_pending`, `updated_since_crawl` or `never_enriched`.
    pub priority: String,
}

// The priority of a band, NULL when it is not queued. The margin expression is the one of
// the partial index `bands_changed_since_crawl` (migration 009).
macro_rules! priority_sql {
    () => {
        "CASE WHEN enrich_pending THEN 'enrich_pending'
              WHEN updated_at - crawled_at > interval '1 minute' THEN 'updated_since_crawl'
              WHEN NOT enriched THEN 'never_enriched' END"
    };
}

/// Queue sizes per priority.
pub async fn queue_counts(db: impl PgExecutor<'_>) -> Result<QueueCounts> {
    Ok(sqlx::query_as(concat!(
        "SELECT count(*) FILTER (WHERE p = 'enrich_pending') AS enrich_pending,
                count(*) FILTER (WHERE p = 'updated_since_crawl') AS updated_since_crawl,
                count(*) FILTER (WHERE p = 'never_enriched') AS never_enriched
         FROM (SELECT ",
        priority_sql!(),
        " AS p FROM bands
               WHERE enrich_pending OR NOT enriched
                  OR updated_at - crawled_at > interval '1 minute') q"
    ))
    .fetch_one(db)
    .await?)
}

/// The first `limit` queued bands, by priority then `ma_id`.
pub async fn queue_head(db: impl PgExecutor<'_>, limit: i64) -> Result<Vec<QueuedBand>> {
    Ok(sqlx::query_as(concat!(
        "SELECT ma_id, name, p AS priority FROM (SELECT ma_id, name, ",
        priority_sql!(),
        " AS p FROM bands
               WHERE enrich_pending OR NOT enriched
                  OR updated_at - crawled_at > interval '1 minute') q
         ORDER BY CASE p WHEN 'enrich_pending' THEN 0 WHEN 'updated_since_crawl' THEN 1 ELSE 2 END,
                  ma_id
         LIMIT $1"
    ))
    .bind(limit)
    .fetch_all(db)
    .await?)
}
