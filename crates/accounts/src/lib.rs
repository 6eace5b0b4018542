//! Admin accounts (SPEC "Authentication", CONTRACT §5) outside HTTP: the bcrypt cost and
//! hashing ([`password`]), and the account seeded from `ADMIN_SEED_*` ([`seed`]). Used by
//! `bandmap serve`, `bandmap hash-password` and the login handler.

pub mod password;
pub mod seed;

pub use password::{BCRYPT_COST, hash, verify};
pub use seed::{SeedError, SeedOutcome, seed_admin};
