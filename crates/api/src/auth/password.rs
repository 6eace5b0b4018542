//! Password verification off the async runtime. An unknown account is checked against a
//! dummy hash of the same cost, so the answer takes as long whether the account exists or
//! not.

use super::seed::BCRYPT_COST;
use crate::error::ApiError;
use std::sync::OnceLock;

static DUMMY_HASH: OnceLock<String> = OnceLock::new();

fn dummy_hash() -> &'static str {
    DUMMY_HASH.get_or_init(|| {
        bcrypt::hash_with_salt(b"no such account", BCRYPT_COST, [7u8; 16])
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

/// True when `password` matches `stored`; always false (after the same work) when `stored`
/// is None.
pub async fn verify(password: String, stored: Option<String>) -> Result<bool, ApiError> {
    tokio::task::spawn_blocking(move || {
        let exists = stored.is_some();
        let hash = stored.unwrap_or_else(|| dummy_hash().to_string());
        let matches = bcrypt::verify(password.as_bytes(), &hash).unwrap_or(false);
        matches && exists
    })
    .await
    .map_err(|e| ApiError::internal(format!("password check task failed: {e}")))
}
