//! Writing listed bands in chunks of ten: one upsert per chunk, then the batch checkpoint
//! (statistics every 10 bands, rule 8; cancel flag, rule 10).

use crate::error::JobError;
use crate::job::RunCtl;
use bandmap_db::bands::upsert::{BandInput, upsert_bands};
use bandmap_db::runs::End;

/// Bands per chunk: statistics are published after each chunk.
pub const CHUNK: usize = 10;

/// Upserts `bands` chunk by chunk, counting `seen`/`inserted`/`updated`/`unchanged`;
/// returns `Some(flow)` when a checkpoint says stop.
pub async fn upsert_in_chunks(
    ctl: &mut RunCtl<'_>,
    bands: &[BandInput],
) -> Result<Option<End>, JobError> {
    for chunk in bands.chunks(CHUNK) {
        let r = upsert_bands(&ctl.crawler.pool, chunk).await?;
        ctl.stats.bands_seen.add(chunk.len() as u64);
        ctl.stats.inserted.add(r.inserted);
        ctl.stats.updated.add(r.updated);
        ctl.stats.unchanged.add(r.unchanged);
        if let Some(flow) = ctl.checkpoint().await? {
            return Ok(Some(flow));
        }
    }
    Ok(None)
}

/// `None` for an empty text.
pub fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}
