//! The `Set-Cookie` values of the session cookie (CONTRACT §5).

use super::session::{COOKIE_NAME, SESSION_SECONDS};

/// Cookie carrying a fresh session token.
pub fn session_cookie(token: &str) -> String {
    format!(
        "{COOKIE_NAME}={token}; HttpOnly; Secure; SameSite=Strict; Path=/admin; Max-Age={SESSION_SECONDS}"
    )
}

/// Cookie that clears the session.
pub fn cleared_cookie() -> String {
    format!("{COOKIE_NAME}=; HttpOnly; Secure; SameSite=Strict; Path=/admin; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_exact() {
        assert_eq!(
            session_cookie("abc"),
            "bandmap_session=abc; HttpOnly; Secure; SameSite=Strict; Path=/admin; Max-Age=43200"
        );
        assert!(cleared_cookie().ends_with("Max-Age=0"));
    }
}
