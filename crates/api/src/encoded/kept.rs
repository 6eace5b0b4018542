//! Compressed answers kept by ETag. An ETag names one answer of one snapshot (the snapshot's
//! content fingerprint and the normalised query, `public/params.rs`) — the handlers already
//! rely on that for their 304s — so the compressed bytes of an ETag are the same for every
//! request that carries it. Entries of an older snapshot are never asked again and leave as
//! newer ones come in.

use super::accept::Coding;
use super::compress::encode;
use axum::body::Bytes;
use std::hash::{Hash, Hasher};

/// Most bytes of compressed answers kept (a z6 map answer is ~10 KB in brotli).
pub const MAX_BYTES: usize = 4 << 20;
/// Most answers kept.
const MAX_ENTRIES: usize = 512;
/// The least an answer is charged, so that the byte budget also bounds the count.
const MIN_CHARGE: usize = MAX_BYTES / MAX_ENTRIES;
/// A compressed answer larger than this is sent, not kept.
pub const MAX_ENCODED_BYTES: usize = 256 << 10;

const _: () = assert!(MIN_CHARGE * MAX_ENTRIES == MAX_BYTES);

/// An answer's ETag and coding.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    etag: Box<str>,
    coding: Coding,
}

// By hand so that [`Borrowed`] hashes the same (quick_cache looks a key up by its borrowed
// form without allocating).
impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.etag.as_ref().hash(state);
        self.coding.hash(state);
    }
}

/// A [`Key`] borrowed from the request.
#[derive(Debug, Clone, Copy)]
struct Borrowed<'a> {
    etag: &'a str,
    coding: Coding,
}

impl Hash for Borrowed<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.etag.hash(state);
        self.coding.hash(state);
    }
}

impl quick_cache::Equivalent<Key> for Borrowed<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        self.coding == key.coding && self.etag == key.etag.as_ref()
    }
}

/// An answer's charge: its length, at least [`MIN_CHARGE`].
#[derive(Debug, Clone, Copy, Default)]
struct Charge;

impl quick_cache::Weighter<Key, Bytes> for Charge {
    fn weight(&self, _: &Key, body: &Bytes) -> u64 {
        u64::try_from(body.len().max(MIN_CHARGE)).unwrap_or(u64::MAX)
    }
}

/// Compressed answers, bounded in bytes and in entries.
#[derive(Debug)]
pub struct EncodedBodies(quick_cache::sync::Cache<Key, Bytes, Charge>);

impl Default for EncodedBodies {
    fn default() -> EncodedBodies {
        EncodedBodies(quick_cache::sync::Cache::with_weighter(
            MAX_ENTRIES,
            MAX_BYTES as u64,
            Charge,
        ))
    }
}

impl EncodedBodies {
    /// The answer tagged `etag` in `coding`, and the coding it is in: kept from an earlier
    /// request, or `identity()` compressed now and kept. The body as written when `coding`
    /// is [`Coding::Identity`] (nothing kept) or when compressing fails.
    pub fn answer<E>(
        &self,
        etag: &str,
        coding: Coding,
        identity: impl FnOnce() -> Result<Bytes, E>,
    ) -> Result<(Bytes, Coding), E> {
        if coding == Coding::Identity {
            return Ok((identity()?, Coding::Identity));
        }
        if let Some(kept) = self.0.get(&Borrowed { etag, coding }) {
            return Ok((kept, coding));
        }
        let body = identity()?;
        let Ok(packed) = encode(&body, coding) else {
            return Ok((body, Coding::Identity));
        };
        let packed = Bytes::from(packed);
        if packed.len() <= MAX_ENCODED_BYTES {
            let key = Key {
                etag: etag.into(),
                coding,
            };
            self.0.insert(key, packed.clone());
        }
        Ok((packed, coding))
    }

    /// [`EncodedBodies::answer`] for a body that cannot fail.
    pub fn answer_ok(
        &self,
        etag: &str,
        coding: Coding,
        identity: impl FnOnce() -> Bytes,
    ) -> (Bytes, Coding) {
        match self.answer(etag, coding, || {
            Ok::<_, std::convert::Infallible>(identity())
        }) {
            Ok(answer) => answer,
            Err(never) => match never {},
        }
    }

    /// Number of answers kept.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Bytes charged for the answers kept (at most [`MAX_BYTES`]).
    pub fn bytes(&self) -> usize {
        usize::try_from(self.0.weight()).unwrap_or(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::convert::Infallible;

    fn body() -> Bytes {
        Bytes::from(r#"{"type":"FeatureCollection","features":[]}"#.repeat(100))
    }

    #[test]
    fn an_answer_is_compressed_once_and_then_kept() {
        let kept = EncodedBodies::default();
        let calls = Cell::new(0);
        let ask = |etag: &str, coding| {
            kept.answer(etag, coding, || {
                calls.set(calls.get() + 1);
                Ok::<_, Infallible>(body())
            })
            .unwrap()
        };
        let (first, coding) = ask("W/\"m1-2\"", Coding::Brotli);
        assert_eq!(coding, Coding::Brotli);
        assert!(first.len() < body().len());
        let (again, _) = ask("W/\"m1-2\"", Coding::Brotli);
        assert_eq!(again, first);
        assert_eq!(calls.get(), 1, "the second request did not write the body");
        // Another coding and another ETag are other answers.
        let (gz, coding) = ask("W/\"m1-2\"", Coding::Gzip);
        assert_eq!((coding, &gz[..2]), (Coding::Gzip, &[0x1f, 0x8b][..]));
        ask("W/\"m1-3\"", Coding::Brotli);
        assert_eq!(calls.get(), 3);
        assert_eq!(kept.len(), 3);
    }

    #[test]
    fn the_body_as_written_is_never_kept() {
        let kept = EncodedBodies::default();
        let (plain, coding) = kept
            .answer("W/\"m1-2\"", Coding::Identity, || {
                Ok::<_, Infallible>(body())
            })
            .unwrap();
        assert_eq!((plain, coding), (body(), Coding::Identity));
        assert!(kept.is_empty());
    }

    #[test]
    fn a_failed_body_is_the_error_and_nothing_is_kept() {
        let kept = EncodedBodies::default();
        let got = kept.answer("W/\"m1-2\"", Coding::Gzip, || Err("no snapshot"));
        assert_eq!(got, Err("no snapshot"));
        assert!(kept.is_empty());
    }

    #[test]
    fn the_budget_bounds_bytes_and_entries() {
        let kept = EncodedBodies::default();
        for n in 0..4 * MAX_ENTRIES {
            kept.answer(&format!("W/\"m1-{n}\""), Coding::Gzip, || {
                Ok::<_, Infallible>(body())
            })
            .unwrap();
            assert!(kept.bytes() <= MAX_BYTES);
        }
        assert!(kept.len() <= MAX_ENTRIES, "{} kept", kept.len());
        assert!(kept.len() >= MAX_ENTRIES / 2, "only {} kept", kept.len());
    }

    #[test]
    fn a_body_too_large_compressed_is_sent_not_kept() {
        let kept = EncodedBodies::default();
        // Bytes that do not compress: a compressed answer over the limit.
        let mut noise = Vec::with_capacity(MAX_ENCODED_BYTES + 4096);
        let mut x: u32 = 2_463_534_242;
        while noise.len() < MAX_ENCODED_BYTES + 4096 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            noise.extend_from_slice(&x.to_le_bytes());
        }
        let (sent, coding) = kept
            .answer("W/\"m1-9\"", Coding::Brotli, || {
                Ok::<_, Infallible>(Bytes::from(noise.clone()))
            })
            .unwrap();
        assert_eq!(coding, Coding::Brotli);
        assert!(sent.len() > MAX_ENCODED_BYTES);
        assert!(kept.is_empty());
    }
}
