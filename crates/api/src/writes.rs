//! Writes through this process (admin API, import) tell the in-memory copies at once that
//! they may be behind: the public name search stops answering from its copy until the
//! refresh task reloads it (`bandmap_index::name_search`). The database's notification
//! would say the same a moment later; this closes that moment for the writer's own next
//! request. Any non-GET counts, whatever its answer (a failed import may have stored part of
//! its rows): the cost of a false alarm is a few searches in SQL.

use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

/// The middleware.
pub async fn note_writes(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let writes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let response = next.run(req).await;
    if writes {
        state.name_search.changed();
    }
    response
}
