//! Password verification for the login handler: `bandmap_accounts::verify` (constant-time
//! whether the account exists or not) with its failure as an API error.

use crate::error::ApiError;

/// True when `password` matches `stored`; always false (after the same work) when `stored`
/// is None.
pub async fn verify(password: String, stored: Option<String>) -> Result<bool, ApiError> {
    bandmap_accounts::verify(password, stored)
        .await
        .map_err(|e| ApiError::internal(format!("password check task failed: {e}")))
}
