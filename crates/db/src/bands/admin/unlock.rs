//! An admin unlocks a locked field without a conflict (issue 17): the field leaves
//! `locked_fields` and the band is flagged for enrichment (`enrich_pending`), so the next
//! enrichment writes the source's value into it again. A field with a pending conflict is
//! refused: its conflict already offers "accept the source's value", which unlocks it.

use super::detail::{BandDetail, band_detail};
use super::edit::Audit;
use super::fields::BandField;
use crate::Result;
use crate::audit::{Entry, record};
use serde_json::{Value, json};
use sqlx::{Acquire, Postgres};

/// Result of an unlock.
#[derive(Debug, Clone)]
pub enum UnlockOutcome {
    /// No such band.
    NotFound,
    /// The field is not locked (nothing written).
    NotLocked,
    /// The field has a pending conflict: resolve it instead (nothing written).
    PendingConflict,
    /// Done; the band as it is now.
    Unlocked(Box<BandDetail>),
}

/// Unlocks `field` of band `ma_id`, in one transaction with its audit row
/// (`band.unlock`, before/after = `locked_fields` and `enrich_pending`).
pub async fn unlock_field(
    db: impl Acquire<'_, Database = Postgres>,
    ma_id: i64,
    field: BandField,
    who: &Audit<'_>,
) -> Result<UnlockOutcome> {
    let mut tx = db.begin().await?;
    let row: Option<(Vec<String>, Value, bool)> = sqlx::query_as(
        "SELECT locked_fields, crawler_pending, enrich_pending FROM bands
         WHERE ma_id = $1 FOR UPDATE",
    )
    .bind(ma_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((locked, pending, enrich_pending)) = row else {
        return Ok(UnlockOutcome::NotFound);
    };
    let key = field.as_str();
    if !locked.iter().any(|f| f == key) {
        return Ok(UnlockOutcome::NotLocked);
    }
    if pending.get(key).is_some() {
        return Ok(UnlockOutcome::PendingConflict);
    }
    let after: Vec<String> = sqlx::query_scalar(
        "UPDATE bands SET locked_fields = array_remove(locked_fields, $2), enrich_pending = TRUE
         WHERE ma_id = $1 RETURNING locked_fields",
    )
    .bind(ma_id)
    .bind(key)
    .fetch_one(&mut *tx)
    .await?;
    let target = format!("band:{ma_id}");
    record(
        &mut *tx,
        &Entry {
            username: who.username,
            action: "band.unlock",
            target: &target,
            before: Some(json!({"locked_fields": locked, "enrich_pending": enrich_pending})),
            after: Some(json!({"locked_fields": after, "enrich_pending": true})),
            ip: who.ip.clone(),
        },
    )
    .await?;
    let band = band_detail(&mut *tx, ma_id).await?;
    tx.commit().await?;
    Ok(band.map_or(UnlockOutcome::NotFound, |b| {
        UnlockOutcome::Unlocked(Box::new(b))
    }))
}
