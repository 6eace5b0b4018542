//! Compressed answers kept for repeated requests (issue 27, docs/performance.md "What a
//! browser gets"). Every browser asks with `Accept-Encoding: gzip, deflate, br, zstd`; the
//! server's `CompressionLayer` compressed each such answer again on every request, so the
//! map's kept bodies (`bandmap_index::map::bodies`) saved the query and the GeoJSON but
//! not the brotli pass over the same 72 KB, which cost twenty times more than both.
//!
//! The map endpoints now negotiate the coding themselves ([`Coding::preferred`]), compress
//! a body once ([`encode`]) and keep the result by the answer's ETag ([`EncodedBodies`]).
//! An answer carrying `Content-Encoding` passes through the `CompressionLayer` untouched,
//! so the other endpoints keep it as before.

mod accept;
mod compress;
mod kept;

pub use accept::Coding;
pub use compress::encode;
pub use kept::{EncodedBodies, MAX_BYTES, MAX_ENCODED_BYTES};
