//! Compact string storage: an interner for the few distinct short values (genre, country,
//! status, step label) and an append-only arena for per-row text (names, raw locations).

use std::collections::HashMap;

/// Marker of an absent (NULL) string.
pub const NONE: u32 = u32::MAX;

/// Distinct strings with their lowercase form (for case-insensitive filters).
#[derive(Debug, Default)]
pub struct Interner {
    values: Vec<String>,
    lower: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Interner {
    /// Id of `value`, adding it when new; `None` → [`NONE`].
    pub fn intern_opt(&mut self, value: Option<&str>) -> u32 {
        let Some(v) = value else { return NONE };
        if let Some(&id) = self.ids.get(v) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(v.to_string());
        self.lower.push(v.to_lowercase());
        self.ids.insert(v.to_string(), id);
        id
    }

    /// The string of an id (empty for an unknown id).
    pub fn get(&self, id: u32) -> &str {
        self.values.get(id as usize).map_or("", String::as_str)
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether nothing is interned.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Ids whose lowercase form satisfies `pred`, as a lookup table indexed by id.
    pub fn matching(&self, pred: impl Fn(&str) -> bool) -> Vec<bool> {
        self.lower.iter().map(|s| pred(s)).collect()
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.values.iter().map(|s| 2 * s.len() + 64).sum()
    }
}

/// Per-row text in one buffer.
#[derive(Debug, Default)]
pub struct TextArena {
    buf: String,
    spans: Vec<(u32, u32)>,
}

impl TextArena {
    /// Room for `texts` texts of `bytes` bytes in all before growing.
    pub fn with_capacity(texts: usize, bytes: usize) -> TextArena {
        TextArena {
            buf: String::with_capacity(bytes),
            spans: Vec::with_capacity(texts),
        }
    }

    /// Stores `text`, returning its index.
    pub fn push(&mut self, text: &str) -> u32 {
        let start = self.buf.len() as u32;
        self.buf.push_str(text);
        self.spans.push((start, text.len() as u32));
        (self.spans.len() - 1) as u32
    }

    /// The text at `idx` (empty for an unknown index).
    pub fn get(&self, idx: u32) -> &str {
        self.spans
            .get(idx as usize)
            .and_then(|&(s, l)| self.buf.get(s as usize..(s + l) as usize))
            .unwrap_or("")
    }

    /// Bytes of text held.
    pub fn text_bytes(&self) -> usize {
        self.buf.len()
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.buf.len() + self.spans.len() * 8
    }
}
