//! Re-queue: the one meaning shared by the admin API's row and bulk actions (STYLE habit 4).
//!
//! Re-queueing a row puts it back to `pending` with `attempts` 0, no `error`, no claim and
//! `next_attempt_at = now()`. It keeps the row's kind: a place stays a place and a row
//! naming only its country is found to be one again by the geocoder
//! ([`super::claim::Claimed::kind`]), since the columns the kind is derived from are left
//! alone. It abandons a manual override: `step_order` returns to the parser's
//! `parsed_step`, since the row is now the pipeline's again — and with it the admin's
//! point: `lat`, `lon`, `provider` (`manual`), `confidence` and `geocode_granularity` of an
//! override are cleared (issue 29: a re-queued row showing provider `manual`, confidence 1
//! and the old point while the pipeline looks for it again contradicted itself). Rows leaving
//! `done`/`country_only` no longer carry their band's primary point, so every re-queue
//! re-synchronises the primary points of the bands it touched, in the same transaction.

use super::kind::MANUAL_STEP;
use super::status::GeocodeStatus;
use crate::Result;
use sqlx::PgConnection;
use std::collections::BTreeMap;

/// Re-queues one row (see the module header), from any status. Returns false when it does not exist.
pub async fn requeue_one(conn: &mut PgConnection, id: i64) -> Result<bool> {
    let ma_id: Option<i64> = sqlx::query_scalar(
        "UPDATE band_locations SET geocode_status = 'pending', attempts = 0, error = NULL,
             next_attempt_at = now(), claimed_at = NULL, llm_lease = NULL, step_order = parsed_step,
             lat = CASE WHEN step_order = $2 THEN NULL ELSE lat END,
             lon = CASE WHEN step_order = $2 THEN NULL ELSE lon END,
             provider = CASE WHEN step_order = $2 THEN NULL ELSE provider END,
             confidence = CASE WHEN step_order = $2 THEN NULL ELSE confidence END,
             geocode_granularity = CASE WHEN step_order = $2 THEN NULL ELSE geocode_granularity END
         WHERE id = $1 RETURNING ma_id",
    )
    .bind(id)
    .bind(MANUAL_STEP)
    .fetch_optional(&mut *conn)
    .await?;
    match ma_id {
        Some(ma_id) => {
            super::primary::sync_primary_point(conn, ma_id).await?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The four bulk actions of the admin API; each moves exactly the statuses it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    /// `error` and `processing` → `pending`.
    ResetErrors,
    /// `llm_needed` and `manual` → `pending`.
    ResetLlm,
    /// Every row → `pending`, coordinates kept.
    RequeueAll,
    /// Every row → `pending`, coordinates, provider, confidence and granularity cleared.
    ResetAll,
}

impl Bulk {
    /// The statuses this action moves.
    #[must_use]
    pub fn statuses(self) -> &'static [GeocodeStatus] {
        match self {
            Bulk::ResetErrors => &[GeocodeStatus::Error, GeocodeStatus::Processing],
            Bulk::ResetLlm => &[GeocodeStatus::LlmNeeded, GeocodeStatus::Manual],
            Bulk::RequeueAll | Bulk::ResetAll => &GeocodeStatus::ALL,
        }
    }

    /// Name used in the audit log.
    pub fn action(self) -> &'static str {
        match self {
            Bulk::ResetErrors => "locations.reset_errors",
            Bulk::ResetLlm => "locations.reset_llm",
            Bulk::RequeueAll => "locations.requeue_all",
            Bulk::ResetAll => "locations.reset_all",
        }
    }

    fn clears_result(self) -> bool {
        self == Bulk::ResetAll
    }
}

/// Runs a bulk re-queue on the caller's transaction and returns how many rows it moved
/// from each status (the audit's "before"). The primary points of the bands whose rows
/// left `done`/`country_only` are re-synchronised set-wise
/// ([`super::primary::sync_primary_points`]).
pub async fn bulk_requeue(conn: &mut PgConnection, action: Bulk) -> Result<BTreeMap<String, u64>> {
    let moved: Vec<(i64, GeocodeStatus)> = sqlx::query_as(
        "WITH target AS (
             SELECT id, geocode_status AS was
             FROM band_locations WHERE geocode_status = ANY($1) ORDER BY id FOR UPDATE
         )
         UPDATE band_locations l SET geocode_status = 'pending', attempts = 0, error = NULL,
             next_attempt_at = now(), claimed_at = NULL, llm_lease = NULL, step_order = l.parsed_step,
             lat = CASE WHEN $2 OR l.step_order = $3 THEN NULL ELSE l.lat END,
             lon = CASE WHEN $2 OR l.step_order = $3 THEN NULL ELSE l.lon END,
             provider = CASE WHEN $2 OR l.step_order = $3 THEN NULL ELSE l.provider END,
             confidence = CASE WHEN $2 OR l.step_order = $3 THEN NULL ELSE l.confidence END,
             geocode_granularity = CASE WHEN $2 OR l.step_order = $3 THEN NULL ELSE l.geocode_granularity END
         FROM target t WHERE l.id = t.id
         RETURNING l.ma_id, t.was",
    )
    .bind(action.statuses())
    .bind(action.clears_result())
    .bind(MANUAL_STEP)
    .fetch_all(&mut *conn)
    .await?;
    let mut by_status = BTreeMap::new();
    for (_, was) in &moved {
        *by_status.entry(was.as_str().to_owned()).or_insert(0u64) += 1;
    }
    let mut bands: Vec<i64> = moved
        .iter()
        .filter(|(_, was)| was.is_located())
        .map(|(b, _)| *b)
        .collect();
    bands.sort_unstable();
    bands.dedup();
    if !bands.is_empty() {
        super::primary::sync_primary_points(conn, &bands).await?;
    }
    Ok(by_status)
}
