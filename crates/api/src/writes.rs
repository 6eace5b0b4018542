//! Writes through this process (admin API, import) tell the in-memory copies at once that
//! they may be behind (`ReadModels::heard_write`): the public name search stops answering
//! from its copy until the refresh task reloads it (`bandmap_index::name_search`). The database's notification
//! would say the same a moment later; this closes that moment for the writer's own next
//! request.
//!
//! Only a write that was let in counts: a non-GET answered 2xx, or 5xx (it may have stored
//! part of its rows before failing). A refusal (401, 403, 4xx) wrote nothing, and must not
//! count: anyone could otherwise keep every search in SQL with unauthenticated POSTs. The
//! admin routes put this inside their session check; the import checks its token before it
//! reads the body.

use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

/// The middleware.
pub async fn note_writes(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let writes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let response = next.run(req).await;
    let status = response.status();
    if writes && (status.is_success() || status.is_server_error()) {
        state.read.heard_write();
    }
    response
}
