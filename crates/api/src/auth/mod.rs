//! Admin authentication (SPEC "Authentication", CONTRACT §5): the seeded account, login,
//! sessions, lockout, and the import token.
//! The account itself (hashing, the seed) is `bandmap_accounts`'s.

pub mod bearer;
pub mod client_addr;
pub mod cookie;
pub mod handlers;
pub mod lockout;
pub mod origin;
pub mod password;
pub mod session;

pub use session::{AdminSession, require_admin};

use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of the authentication area, mounted at `/admin/auth`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(handlers::login))
        .routes(routes!(handlers::logout))
        .routes(routes!(handlers::me))
}
