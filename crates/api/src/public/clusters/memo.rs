//! The clusters requests answered lately, by their query string as sent: the parsed view
//! and its ETag for the snapshot it was last answered from.
//!
//! The map asks the same few views again and again (every visitor's first view, the views
//! a shared link opens, a pan back). Parsing a query string (percent-decoding, the numbers
//! of the box, the typed filters) and hashing the view into its ETag were a fifth of what
//! an answer kept in memory cost the server over `/healthz` (docs/performance.md "Where
//! the clusters' time over /healthz went"). A query string seen before skips both: the
//! same string always parses to the same view, and the ETag only changes with the
//! snapshot, whose fingerprint the entry carries.

use super::super::params::View;
use std::sync::Arc;

/// Most query strings remembered.
const MAX_ENTRIES: usize = 2048;
/// A longer query string is parsed each time, not remembered (the map's own are ~100
/// bytes; the memo's memory stays under a megabyte).
pub const MAX_QUERY_BYTES: usize = 384;

/// A clusters request as parsed, and its ETag for one snapshot.
#[derive(Debug)]
pub struct Parsed {
    /// The view asked.
    pub view: View,
    /// Whether the families are broken down.
    pub breakdown: bool,
    /// The snapshot the ETag names the answer of.
    pub fingerprint: u64,
    /// The answer's ETag.
    pub etag: String,
}

impl Parsed {
    /// `view` with `breakdown`, and its ETag for the snapshot of `fingerprint`.
    pub fn new(view: View, breakdown: bool, fingerprint: u64) -> Parsed {
        let etag = view.etag('m', fingerprint, breakdown);
        Parsed {
            view,
            breakdown,
            fingerprint,
            etag,
        }
    }
}

/// The memo: query string as sent → [`Parsed`].
#[derive(Debug)]
pub struct ViewMemo(quick_cache::sync::Cache<Box<str>, Arc<Parsed>>);

impl Default for ViewMemo {
    fn default() -> ViewMemo {
        ViewMemo(quick_cache::sync::Cache::new(MAX_ENTRIES))
    }
}

/// A request looked up in the memo, before its snapshot is known.
#[derive(Debug)]
pub enum Lookup {
    /// Answered before (from this snapshot or an older one).
    Known(Arc<Parsed>),
    /// Parsed now: the view and whether the families are broken down.
    New(View, bool),
}

impl ViewMemo {
    /// The request of `query`: remembered, or parsed by `parse` (its refusal returned as it
    /// is, nothing remembered).
    pub fn lookup<E>(
        &self,
        query: &str,
        parse: impl FnOnce() -> Result<(View, bool), E>,
    ) -> Result<Lookup, E> {
        match self.0.get(query) {
            Some(known) => Ok(Lookup::Known(known)),
            None => parse().map(|(view, breakdown)| Lookup::New(view, breakdown)),
        }
    }

    /// The request of `query` with its ETag for the snapshot of `fingerprint`: as remembered
    /// when it was answered from that snapshot, else tagged now and remembered if `query` is
    /// short enough.
    pub fn tag(&self, query: &str, lookup: Lookup, fingerprint: u64) -> Arc<Parsed> {
        let parsed = match lookup {
            Lookup::Known(p) if p.fingerprint == fingerprint => return p,
            // Answered from an older snapshot: the same view, a new ETag.
            Lookup::Known(p) => Parsed::new(p.view.clone(), p.breakdown, fingerprint),
            Lookup::New(view, breakdown) => Parsed::new(view, breakdown, fingerprint),
        };
        let parsed = Arc::new(parsed);
        if query.len() <= MAX_QUERY_BYTES {
            self.0.insert(query.into(), parsed.clone());
        }
        parsed
    }

    /// How many query strings are remembered.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn view(zoom: u8) -> View {
        View {
            bbox: bandmap_index::map::Bbox::WORLD,
            zoom,
            filter: Default::default(),
        }
    }

    /// Looks `query` up (parsing it as zoom `zoom` when unknown) and tags it.
    fn ask(memo: &ViewMemo, parses: &Cell<u32>, query: &str, zoom: u8, fp: u64) -> Arc<Parsed> {
        let found = memo.lookup(query, || {
            parses.set(parses.get() + 1);
            Ok::<_, ()>((view(zoom), false))
        });
        memo.tag(query, found.unwrap(), fp)
    }

    #[test]
    fn a_query_is_parsed_once_per_string_and_retagged_per_snapshot() {
        let memo = ViewMemo::default();
        let parses = Cell::new(0);
        let first = ask(&memo, &parses, "zoom=5", 5, 1);
        let again = ask(&memo, &parses, "zoom=5", 9, 1);
        assert_eq!(parses.get(), 1);
        assert!(Arc::ptr_eq(&first, &again), "the remembered entry itself");
        assert_eq!(again.view.zoom, 5);
        assert_eq!(first.etag, view(5).etag('m', 1, false));

        // A new snapshot: the same view, not parsed again, with that snapshot's ETag.
        let newer = ask(&memo, &parses, "zoom=5", 9, 2);
        assert_eq!(parses.get(), 1);
        assert_eq!(newer.view.zoom, 5);
        assert_eq!(newer.etag, view(5).etag('m', 2, false));
        assert_ne!(newer.etag, first.etag);
        // ... and that is what is remembered now.
        assert!(Arc::ptr_eq(&newer, &ask(&memo, &parses, "zoom=5", 9, 2)));

        // Another string is parsed, even when it names the same view.
        ask(&memo, &parses, "zoom=5&", 5, 2);
        assert_eq!(parses.get(), 2);
        assert_eq!(memo.len(), 2);
    }

    #[test]
    fn a_refused_query_is_not_remembered() {
        let memo = ViewMemo::default();
        let refused = memo.lookup("zoom=99", || Err::<(View, bool), _>("bad zoom"));
        assert_eq!(refused.unwrap_err(), "bad zoom");
        assert!(memo.is_empty());
        let later = memo.lookup("zoom=99", || Err::<(View, bool), _>("again"));
        assert_eq!(later.unwrap_err(), "again", "parsed again, refused again");
    }

    #[test]
    fn a_long_query_is_answered_but_not_remembered() {
        let memo = ViewMemo::default();
        let long = format!("genre={}", "a".repeat(MAX_QUERY_BYTES));
        let found = memo.lookup(&long, || Ok::<_, ()>((view(3), true))).unwrap();
        let p = memo.tag(&long, found, 1);
        assert!(p.breakdown);
        assert_eq!(p.etag, view(3).etag('m', 1, true));
        assert!(memo.is_empty());
    }

    #[test]
    fn the_memo_is_bounded() {
        let memo = ViewMemo::default();
        let parses = Cell::new(0);
        for i in 0..MAX_ENTRIES * 3 {
            ask(&memo, &parses, &format!("zoom=5&bbox={i}"), 5, 1);
        }
        assert!(memo.len() <= MAX_ENTRIES, "{} entries", memo.len());
    }
}
