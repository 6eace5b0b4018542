//! `GET /admin/api/bands/{ma_id}/history` (issue 17): the audit rows of one band — its
//! edits, conflict resolutions and unlocks, and the admin actions on its location rows —
//! newest first, each with its before/after.

use crate::admin::common::shapes::ListPage;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{PageParams, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

/// One admin action on the band or one of its location rows, as `crates/db` reads it.
pub use bandmap_db::monitoring::HistoryRow as HistoryItem;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(band_history))
}

/// The band's audit history, newest first.
#[utoipa::path(
    get, path = "/bands/{ma_id}/history", tag = "admin: bands",
    params(("ma_id" = i64, Path, description = "Upstream band id"), PageParams),
    responses(
        (status = 200, description = "a page of audit rows", body = ListPage<HistoryItem>),
        (status = 400, description = "Bad parameter", body = ErrorBody),
        (status = 401, description = "No session", body = ErrorBody),
        (status = 404, description = "Unknown band", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn band_history(
    State(state): State<AppState>,
    Path(ma_id): Path<i64>,
    Query(q): Query<PageParams>,
) -> Result<axum::Json<ListPage<HistoryItem>>, ApiError> {
    let page = q.page();
    if bandmap_db::bands::admin::band_detail(&state.pool, ma_id)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found(format!("no band {ma_id}")));
    }
    let (rows, total) =
        bandmap_db::monitoring::band_history(&state.pool, ma_id, page.limit, page.offset).await?;
    Ok(axum::Json(ListPage::from_rows(rows, total, page)))
}
