//! The enrichment queue (SPEC rule 2) and what an enrichment stores; the upstream
//! "modified" bookkeeping of rule 4.
//!
//! Selection: `enrich_pending`, or changed since the last crawl (`updated_at - crawled_at >
//! 1 minute`, the predicate of the partial index `bands_changed_since_crawl`), or never
//! enriched; in that order of priority, then by `ma_id`. A band whose last enrichment
//! failed waits out its backoff (`enrich_failures.next_at`) before it is selected again, so
//! bands that always fail cannot hold the head of the queue.
//!
//! Storing an enrichment applies the page's catalogue fields through the one upsert path
//! (locks and conflicts, rule 6) and writes `band_page`, `enriched`, `crawled_at = now()`,
//! `crawled_hash`, clears `enrich_pending` and the band's failure record, in one
//! transaction: `updated_at` (trigger) and `crawled_at` are then the same `now()`, so the
//! band leaves the queue.
//!
//! Rule 4: `ma_modified_text` holds the modification text as upstream's "modified" list
//! writes it, and only the list writes it, so a change is a change of that text, never a
//! difference of zone or format between the list and the band page (the page's own text
//! stays in `band_page.last_modified_text`).

use crate::Result;
use crate::bands::upsert::{BandInput, UpsertReport, upsert_in};
use bandmap_time::Backoff;
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{Acquire, PgExecutor, Postgres};

/// Why a band is in the enrichment queue, highest priority first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EnrichPriority {
    /// Upstream reported a modification (rule 4).
    EnrichPending,
    /// A catalogue value changed after the last crawl (rule 2).
    UpdatedSinceCrawl,
    /// Never enriched.
    NeverEnriched,
}

impl EnrichPriority {
    fn from_rank(rank: i32) -> Self {
        match rank {
            0 => Self::EnrichPending,
            1 => Self::UpdatedSinceCrawl,
            _ => Self::NeverEnriched,
        }
    }
}

/// A band waiting for enrichment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct QueuedBand {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Why it is queued.
    pub priority: EnrichPriority,
}

/// The next `limit` queued bands by priority, skipping the ids in `exclude` (bands this
/// run already tried) and bands waiting out a failure backoff.
pub async fn next_batch(
    db: impl PgExecutor<'_>,
    limit: i64,
    exclude: &[i64],
) -> Result<Vec<QueuedBand>> {
    // The predicate and the rank are repeated in `queue_counts`: keep them identical.
    let rows: Vec<(i64, String, i32)> = sqlx::query_as(
        "SELECT ma_id, name,
                CASE WHEN enrich_pending THEN 0
                     WHEN updated_at - crawled_at > interval '1 minute' THEN 1
                     ELSE 2 END AS rank
         FROM bands
         WHERE (enrich_pending OR updated_at - crawled_at > interval '1 minute' OR NOT enriched)
           AND NOT (ma_id = ANY($2))
           AND NOT EXISTS (SELECT 1 FROM enrich_failures f
                           WHERE f.ma_id = bands.ma_id AND f.next_at > now())
         ORDER BY rank, ma_id LIMIT $1",
    )
    .bind(limit)
    .bind(exclude)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(ma_id, name, rank)| QueuedBand {
            ma_id,
            name,
            priority: EnrichPriority::from_rank(rank),
        })
        .collect())
}

/// How long a claim keeps a band for one run before another replica may take it.
pub const CLAIM_LEASE_SECS: i64 = 30 * 60;

/// Claims the next `limit` queued bands for the run `run_id`, in the priority order of
/// [`next_batch`], skipping `exclude`, bands waiting out a failure backoff, bands under a
/// live claim of another run and rows a
/// concurrent claimer holds (`FOR UPDATE SKIP LOCKED`). The claim is a lease of
/// [`CLAIM_LEASE_SECS`]: several crawler replicas never fetch the same band at once, and a
/// killed replica's bands come back when the lease expires.
pub async fn claim_batch(
    db: impl PgExecutor<'_>,
    run_id: i64,
    limit: i64,
    exclude: &[i64],
) -> Result<Vec<QueuedBand>> {
    let rows: Vec<(i64, String, i32)> = sqlx::query_as(
        "WITH cand AS (
             SELECT b.ma_id, b.name,
                    CASE WHEN b.enrich_pending THEN 0
                         WHEN b.updated_at - b.crawled_at > interval '1 minute' THEN 1
                         ELSE 2 END AS rank
             FROM bands b
             WHERE (b.enrich_pending OR b.updated_at - b.crawled_at > interval '1 minute'
                    OR NOT b.enriched)
               AND NOT (b.ma_id = ANY($2))
               AND NOT EXISTS (SELECT 1 FROM enrich_claims c
                               WHERE c.ma_id = b.ma_id AND c.run_id <> $3
                                 AND c.claimed_until > now())
               AND NOT EXISTS (SELECT 1 FROM enrich_failures f
                               WHERE f.ma_id = b.ma_id AND f.next_at > now())
             ORDER BY rank, b.ma_id LIMIT $1
             FOR UPDATE OF b SKIP LOCKED),
         claimed AS (
             INSERT INTO enrich_claims (ma_id, run_id, claimed_until)
             SELECT ma_id, $3, now() + make_interval(secs => $4) FROM cand
             ON CONFLICT (ma_id) DO UPDATE
                 SET run_id = EXCLUDED.run_id, claimed_until = EXCLUDED.claimed_until
                 WHERE enrich_claims.run_id = EXCLUDED.run_id
                    OR enrich_claims.claimed_until <= now()
             RETURNING ma_id)
         SELECT cand.ma_id, cand.name, cand.rank FROM cand JOIN claimed USING (ma_id)
         ORDER BY cand.rank, cand.ma_id",
    )
    .bind(limit)
    .bind(exclude)
    .bind(run_id)
    .bind(CLAIM_LEASE_SECS as f64)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(ma_id, name, rank)| QueuedBand {
            ma_id,
            name,
            priority: EnrichPriority::from_rank(rank),
        })
        .collect())
}

/// Releases every claim of the run `run_id` (at the end of the run, whatever its outcome).
pub async fn release_claims(db: impl PgExecutor<'_>, run_id: i64) -> Result<u64> {
    let r = sqlx::query("DELETE FROM enrich_claims WHERE run_id = $1")
        .bind(run_id)
        .execute(db)
        .await?;
    Ok(r.rows_affected())
}

/// Backoff after a failed enrichment: 15 minutes, doubling with each further failure, at
/// most a week (a band deleted upstream is still retried weekly, in case it returns). The
/// upsert of [`record_failure`] computes it in SQL from the stored attempt count.
pub const FAILURE_BACKOFF: Backoff = Backoff::doubling(
    std::time::Duration::from_secs(15 * 60),
    std::time::Duration::from_secs(7 * 24 * 3600),
);

/// A band's failure record, as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct EnrichFailure {
    /// Consecutive failed enrichments.
    pub attempts: i32,
    /// Not selected again before this instant.
    pub next_at: DateTime<Utc>,
    /// The last error message.
    pub error: Option<String>,
}

/// Records a failed enrichment of `ma_id`: one more attempt, backoff
/// [`FAILURE_BACKOFF`] (first × 2^(attempts−1), capped).
/// Returns the new record, or None when the band no longer exists.
pub async fn record_failure(
    db: impl PgExecutor<'_>,
    ma_id: i64,
    error: &str,
) -> Result<Option<EnrichFailure>> {
    // The exponent is capped before `power` so a band failing for years cannot overflow.
    Ok(sqlx::query_as(
        "INSERT INTO enrich_failures AS f (ma_id, attempts, next_at, error, failed_at)
         SELECT ma_id, 1, now() + make_interval(secs => $3), $2, now()
         FROM bands WHERE ma_id = $1
         ON CONFLICT (ma_id) DO UPDATE
             SET attempts = f.attempts + 1,
                 next_at = now() + make_interval(
                     secs => LEAST($4, $3 * power(2, LEAST(f.attempts, 30)))),
                 error = EXCLUDED.error,
                 failed_at = now()
         RETURNING attempts, next_at, error",
    )
    .bind(ma_id)
    .bind(error)
    .bind(FAILURE_BACKOFF.first.as_secs_f64())
    .bind(FAILURE_BACKOFF.max.as_secs_f64())
    .fetch_optional(db)
    .await?)
}

/// The failure record of `ma_id` (None: its last enrichment did not fail).
pub async fn failure(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Option<EnrichFailure>> {
    Ok(
        sqlx::query_as("SELECT attempts, next_at, error FROM enrich_failures WHERE ma_id = $1")
            .bind(ma_id)
            .fetch_optional(db)
            .await?,
    )
}

/// Whether some queued band may be enriched now (not waiting out a failure backoff): the
/// scheduler's test before an automatic enrichment, so a queue of failing bands does not
/// start a run that can only find nothing to do.
pub async fn has_due(db: impl PgExecutor<'_>) -> Result<bool> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (
             SELECT 1 FROM bands b
             WHERE (b.enrich_pending OR b.updated_at - b.crawled_at > interval '1 minute'
                    OR NOT b.enriched)
               AND NOT EXISTS (SELECT 1 FROM enrich_failures f
                               WHERE f.ma_id = b.ma_id AND f.next_at > now()))",
    )
    .fetch_one(db)
    .await?)
}

/// Size of the queue and its breakdown (CONTRACT §6 `/admin/api/queue`); each band counts
/// once, under its highest priority.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct QueueCounts {
    /// Bands in the queue.
    pub total: i64,
    /// Raised `enrich_pending`.
    pub enrich_pending: i64,
    /// Changed since the last crawl (and not pending).
    pub updated_since_crawl: i64,
    /// Never enriched (and neither of the above).
    pub never_enriched: i64,
}

/// Counts the queue by priority.
pub async fn queue_counts(db: impl PgExecutor<'_>) -> Result<QueueCounts> {
    let (p, u, n): (i64, i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE rank = 0), count(*) FILTER (WHERE rank = 1),
                count(*) FILTER (WHERE rank = 2)
         FROM (SELECT CASE WHEN enrich_pending THEN 0
                           WHEN updated_at - crawled_at > interval '1 minute' THEN 1
                           ELSE 2 END AS rank
               FROM bands
               WHERE enrich_pending OR updated_at - crawled_at > interval '1 minute'
                     OR NOT enriched) q",
    )
    .fetch_one(db)
    .await?;
    Ok(QueueCounts {
        total: p + u + n,
        enrich_pending: p,
        updated_since_crawl: u,
        never_enriched: n,
    })
}

/// What one enrichment of a band stores.
#[derive(Debug, Clone)]
pub struct Enrichment {
    /// Catalogue fields read on the band page (applied with the upsert's lock rules).
    pub fields: BandInput,
    /// The structured page (line-up, releases, `discography_url`, `lyrical_themes`…).
    pub band_page: Value,
    /// Hash of `band_page` (detects a page that did not change).
    pub crawled_hash: String,
    /// The page's 'Last modified on' text (kept in `band_page`; rule 4 compares the list's
    /// text, not this one).
    pub modified_text: Option<String>,
    /// That text as an instant (fills `ma_modified_at` only while the list gave none).
    pub modified_at: Option<DateTime<Utc>>,
    /// The page's 'Added on' instant (filled only when unknown).
    pub created_at: Option<DateTime<Utc>>,
}

/// Stores one enrichment atomically (see the module header); clears `enrich_pending`
/// unconditionally. The crawler uses [`store_read_after`], which keeps an edit listed while
/// the page was being read.
pub async fn store(
    db: impl Acquire<'_, Database = Postgres>,
    e: &Enrichment,
) -> Result<UpsertReport> {
    store_guarded(db, e, None).await
}

/// The band's listed modification text (`ma_modified_text`), read just before its page is
/// fetched, for [`store_read_after`].
pub async fn listed_text(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT ma_modified_text FROM bands WHERE ma_id = $1")
            .bind(ma_id)
            .fetch_optional(db)
            .await?
            .flatten(),
    )
}

/// [`store`] for a page read after `listed_before` ([`listed_text`]) was read. When the
/// `modified` list recorded another text meanwhile (rule 4 ran during the fetch), the page
/// may predate that edit: `enrich_pending` is left raised (raised even for a band that was
/// never enriched), so the edit is read at the next enrichment instead of being lost.
pub async fn store_read_after(
    db: impl Acquire<'_, Database = Postgres>,
    e: &Enrichment,
    listed_before: Option<&str>,
) -> Result<UpsertReport> {
    store_guarded(db, e, Some(listed_before)).await
}

async fn store_guarded(
    db: impl Acquire<'_, Database = Postgres>,
    e: &Enrichment,
    listed_before: Option<Option<&str>>,
) -> Result<UpsertReport> {
    let mut tx = db.begin().await?;
    let report = upsert_in(&mut tx, std::slice::from_ref(&e.fields)).await?;
    sqlx::query(
        "UPDATE bands SET band_page = $2, enriched = TRUE, crawled_at = now(), crawled_hash = $3,
                enrich_pending = ($6 AND ma_modified_text IS DISTINCT FROM $7),
                ma_modified_at = COALESCE(ma_modified_at, $4),
                ma_created_at = COALESCE(ma_created_at, $5)
         WHERE ma_id = $1",
    )
    .bind(e.fields.ma_id)
    .bind(&e.band_page)
    .bind(&e.crawled_hash)
    .bind(e.modified_at)
    .bind(e.created_at)
    .bind(listed_before.is_some())
    .bind(listed_before.flatten())
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM enrich_failures WHERE ma_id = $1")
        .bind(e.fields.ma_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(report)
}

/// One row of upstream's "modified" list: the band's page was edited at `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModifiedSeen {
    /// Upstream id.
    pub ma_id: i64,
    /// The text as upstream wrote it.
    pub text: String,
    /// The text as an instant (upstream server time, stored as UTC).
    pub at: DateTime<Utc>,
}

/// How long after a listed modification a band page must have been read for that read to
/// already show it. Upstream writes its times without a zone; a day covers any offset.
pub const MODIFIED_ZONE_MARGIN_HOURS: i32 = 24;

/// Rule 4: records each listed modification whose text differs from the stored list text,
/// and raises `enrich_pending` for an enriched band so its page is read again — unless the
/// page was read more than [`MODIFIED_ZONE_MARGIN_HOURS`] after that modification (it shows
/// it already). Seeing the same text again changes nothing, so the flag is raised once per
/// change. A band never enriched is already queued and only gets the text. Returns the
/// number of flags raised.
pub async fn record_modified(db: impl PgExecutor<'_>, seen: &[ModifiedSeen]) -> Result<u64> {
    if seen.is_empty() {
        return Ok(0);
    }
    let ids: Vec<i64> = seen.iter().map(|s| s.ma_id).collect();
    let texts: Vec<String> = seen.iter().map(|s| s.text.clone()).collect();
    let ats: Vec<DateTime<Utc>> = seen.iter().map(|s| s.at).collect();
    // `raise` is computed on the old row (FROM `b0`), so RETURNING reports this statement's
    // raises rather than a flag that was already up.
    let raised: Vec<bool> = sqlx::query_scalar(
        "WITH u AS (SELECT DISTINCT ON (ma_id) ma_id, text, at
                    FROM UNNEST($1::bigint[], $2::text[], $3::timestamptz[]) AS u(ma_id, text, at)
                    ORDER BY ma_id, at DESC),
              d AS (SELECT b0.ma_id, u.text, u.at,
                           b0.enriched AND NOT b0.enrich_pending
                           AND NOT (b0.crawled_at IS NOT NULL
                                    AND b0.crawled_at > u.at + make_interval(hours => $4))
                               AS raise
                    FROM bands b0 JOIN u USING (ma_id)
                    WHERE b0.ma_modified_text IS DISTINCT FROM u.text)
         UPDATE bands b SET ma_modified_text = d.text, ma_modified_at = d.at,
                enrich_pending = b.enrich_pending OR d.raise
         FROM d
         WHERE b.ma_id = d.ma_id
         RETURNING d.raise",
    )
    .bind(&ids)
    .bind(&texts)
    .bind(&ats)
    .bind(MODIFIED_ZONE_MARGIN_HOURS)
    .fetch_all(db)
    .await?;
    Ok(raised.into_iter().filter(|r| *r).count() as u64)
}

/// Records when upstream says bands were added, where still unknown.
pub async fn record_created(db: impl PgExecutor<'_>, seen: &[(i64, DateTime<Utc>)]) -> Result<()> {
    if seen.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = seen.iter().map(|s| s.0).collect();
    let ats: Vec<DateTime<Utc>> = seen.iter().map(|s| s.1).collect();
    sqlx::query(
        "UPDATE bands b SET ma_created_at = u.at
         FROM UNNEST($1::bigint[], $2::timestamptz[]) AS u(ma_id, at)
         WHERE b.ma_id = u.ma_id AND b.ma_created_at IS NULL",
    )
    .bind(&ids)
    .bind(&ats)
    .execute(db)
    .await?;
    Ok(())
}
