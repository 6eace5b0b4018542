//! bcrypt hashing and checking off the async runtime. An unknown account is checked
//! against a dummy hash of the same cost, so the answer takes as long whether the account
//! exists or not.

use std::sync::OnceLock;

/// Cost of hashes made here.
pub const BCRYPT_COST: u32 = 12;

static DUMMY_HASH: OnceLock<String> = OnceLock::new();

fn dummy_hash() -> &'static str {
    DUMMY_HASH.get_or_init(|| {
        bcrypt::hash_with_salt(b"no such account", BCRYPT_COST, [7u8; 16])
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

/// The bcrypt hash of `plain` at [`BCRYPT_COST`] (blocking: call it off the runtime).
pub fn hash(plain: impl AsRef<[u8]>) -> Result<String, bcrypt::BcryptError> {
    bcrypt::hash(plain, BCRYPT_COST)
}

/// True when `password` matches `stored`; always false (after the same work) when `stored`
/// is None. Runs on a blocking thread; fails only when that thread does.
pub async fn verify(
    password: String,
    stored: Option<String>,
) -> Result<bool, tokio::task::JoinError> {
    tokio::task::spawn_blocking(move || {
        let exists = stored.is_some();
        let hash = stored.unwrap_or_else(|| dummy_hash().to_string());
        let matches = bcrypt::verify(password.as_bytes(), &hash).unwrap_or(false);
        matches && exists
    })
    .await
}
