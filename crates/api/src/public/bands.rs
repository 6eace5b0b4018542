//! `GET /api/bands/{ma_id}`: the public card of one band with its steps in order.

use super::cache;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use bandmap_db::band_card;

/// One step of a band's path, as `crates/db` reads it.
pub use bandmap_db::band_card::CardStepRow as CardStep;

/// Public card of a band with its steps, as `crates/db` reads it.
pub use bandmap_db::band_card::CardRow as BandCard;

/// The public card of a band.
#[utoipa::path(get, path = "/bands/{ma_id}", tag = "public",
    params(("ma_id" = i64, Path, description = "upstream band id")),
    responses(
        (status = 200, description = "band card", body = BandCard),
        (status = 400, description = "non-numeric id", body = ErrorBody),
        (status = 404, description = "unknown band", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn band_card(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(ma_id): Path<i64>,
) -> Result<Response, ApiError> {
    let mut card: BandCard = band_card::card(&state.public_pool, ma_id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no band {ma_id}")))?;
    if card.url.as_deref().is_none_or(str::is_empty) {
        let base = state
            .config
            .upstream
            .base_url
            .as_str()
            .trim_end_matches('/');
        card.url = Some(format!("{base}/bands/_/{ma_id}"));
    }
    Ok(cache::json_response(&headers, &card))
}
