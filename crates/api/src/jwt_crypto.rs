//! The session tokens' cryptography: HS256 only, on `ring` (already the TLS provider).
//!
//! jsonwebtoken's own providers pull in far more than HMAC: `rust_crypto` brings the `rsa`
//! crate (an open advisory, harmless with HS256 but flagged by `cargo deny`), `aws_lc_rs` a
//! C library. The service signs and checks HS256 only (CONTRACT §5: any other algorithm is
//! refused), so this provider makes HS256 signers and verifiers and refuses every other
//! algorithm with an error, never a panic. [`install`] makes it the process default; it
//! runs when an [`crate::AppState`] is built, before any token is made or read.

use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{ErrorKind, Result};
use jsonwebtoken::signature::{self, Signer, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, EncodingKey};
use ring::hmac;

/// An HS256 key, for signing and for checking.
struct Hs256(hmac::Key);

impl Hs256 {
    fn new(secret: &[u8]) -> Hs256 {
        Hs256(hmac::Key::new(hmac::HMAC_SHA256, secret))
    }
}

impl Signer<Vec<u8>> for Hs256 {
    fn try_sign(&self, msg: &[u8]) -> std::result::Result<Vec<u8>, signature::Error> {
        Ok(hmac::sign(&self.0, msg).as_ref().to_vec())
    }
}

impl JwtSigner for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

impl Verifier<Vec<u8>> for Hs256 {
    fn verify(&self, msg: &[u8], tag: &Vec<u8>) -> std::result::Result<(), signature::Error> {
        // Constant-time comparison of the tags.
        hmac::verify(&self.0, msg, tag).map_err(|_| signature::Error::new())
    }
}

impl JwtVerifier for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

fn signer(algorithm: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>> {
    if *algorithm != Algorithm::HS256 || key.family() != AlgorithmFamily::Hmac {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    Ok(Box::new(Hs256::new(key.as_bytes())))
}

fn verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>> {
    if *algorithm != Algorithm::HS256 || key.family() != AlgorithmFamily::Hmac {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    Ok(Box::new(Hs256::new(key.try_get_as_bytes()?)))
}

/// The provider: HS256 on ring; no JWK support (the service reads no JWKs).
pub static HS256_ONLY: CryptoProvider = CryptoProvider {
    signer_factory: signer,
    verifier_factory: verifier,
    key_utils: KeyUtils::new_unimplemented(),
};

/// Makes [`HS256_ONLY`] the process's provider (once; later calls do nothing).
pub fn install() {
    let _ = HS256_ONLY.install_default();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use jsonwebtoken::{Header, Validation, decode, encode};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Claims {
        sub: String,
        exp: u64,
    }

    #[test]
    fn hs256_round_trips_and_a_wrong_key_or_algorithm_is_refused() {
        install();
        let claims = Claims {
            sub: "admin".into(),
            exp: jsonwebtoken::get_current_timestamp() + 600,
        };
        let key = b"0123456789abcdef0123456789abcdef";
        let token = encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(key),
        )
        .unwrap();
        let ok = decode::<Claims>(
            &token,
            &DecodingKey::from_secret(key),
            &Validation::new(Algorithm::HS256),
        )
        .unwrap();
        assert_eq!(ok.claims, claims);
        let wrong = decode::<Claims>(
            &token,
            &DecodingKey::from_secret(b"another secret of thirty-two b.."),
            &Validation::new(Algorithm::HS256),
        );
        assert!(wrong.is_err());
        // Another algorithm is an error, not a panic.
        let hs512 = encode(
            &Header::new(Algorithm::HS512),
            &claims,
            &EncodingKey::from_secret(key),
        );
        assert!(hs512.is_err());
    }
}
