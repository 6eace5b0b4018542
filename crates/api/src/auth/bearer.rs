//! The import endpoint's bearer token: compared in constant time, after checking that the
//! presented value is visible ASCII, so a multi-byte or malformed header is a 401, never a
//! 500. An unset token refuses everyone, with the same answer as a wrong token (issue 31:
//! a 401 never says which setting is missing).

use crate::error::ApiError;
use axum::http::{HeaderMap, header};
use secrecy::{ExposeSecret, SecretString};
use subtle::ConstantTimeEq;

/// The one 401 of the import endpoint.
pub const UNAUTHORIZED: &str = "missing or invalid import token";

fn unauthorized() -> ApiError {
    ApiError::Unauthorized(UNAUTHORIZED.into())
}

/// Checks `Authorization: Bearer <token>` against the configured token.
pub fn check_bearer(headers: &HeaderMap, expected: Option<&SecretString>) -> Result<(), ApiError> {
    let Some(expected) = expected else {
        return Err(unauthorized());
    };
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(unauthorized());
    };
    let bytes = value.as_bytes();
    if !bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
        return Err(unauthorized());
    }
    let text = String::from_utf8_lossy(bytes);
    let presented = match text.split_once(' ') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        _ => return Err(unauthorized()),
    };
    let expected = expected.expose_secret().as_bytes();
    // `ct_eq` on slices of different lengths is false without comparing content.
    if presented.is_empty() || !bool::from(presented.as_bytes().ct_eq(expected)) {
        return Err(unauthorized());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(v: &[u8]) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_bytes(v).unwrap());
        h
    }

    #[test]
    fn only_the_exact_token_passes() {
        let t = SecretString::from("s3cret-token");
        assert!(check_bearer(&headers(b"Bearer s3cret-token"), Some(&t)).is_ok());
        assert!(check_bearer(&headers(b"bearer s3cret-token"), Some(&t)).is_ok());
        for bad in [
            &b"Bearer s3cret-tokeN"[..],
            b"Bearer s3cret-token2",
            b"Bearer ",
            b"Basic s3cret-token",
            b"s3cret-token",
            "Bearer s3cret-tökén".as_bytes(),
            b"Bearer \xff\xfe",
        ] {
            assert!(
                matches!(
                    check_bearer(&headers(bad), Some(&t)),
                    Err(ApiError::Unauthorized(_))
                ),
                "{bad:?}"
            );
        }
        assert!(check_bearer(&HeaderMap::new(), Some(&t)).is_err());
        assert!(check_bearer(&headers(b"Bearer s3cret-token"), None).is_err());
    }
}
