//! The copy of every band the public search can show, and the search itself.
//!
//! Rows are kept in the order PostgreSQL sorted them (`length(name), name, ma_id`, its own
//! collation), so "the first rows in row order" is the SQL search's tie order. A search then
//! answers exactly what `SEARCH_SQL` of `GET /api/search` answers: names equal to the text
//! first, then names starting with it, then the others holding it, each group in row order,
//! at most `limit` in all (the property test in `tests/index/name_search.rs` checks the two
//! against each other on random names).
//!
//! Case folding maps each character to one character — its lower case, or for `İ`, the one
//! character whose Unicode lower case is two, the first of them (`i`) — which is what
//! PostgreSQL's `lower()` does under a UTF-8 ctype (checked against the database by the
//! property test).

use super::trigrams::Trigrams;
use crate::map::intern::{Interner, NONE};
use bandmap_db::bands::by_name::NameRow;
use memchr::memmem::Finder;

/// Texts shorter than this many characters have no trigram: they are found by a scan of
/// the rows' character masks and then names, in row order, which stops once enough are
/// found.
pub const TRIGRAM_CHARS: usize = 3;

/// The characters of a folded text as bits: `a`–`z`, `0`–`9` and the space one bit each,
/// any other character one of the remaining 27 by its code.
pub fn char_mask(folded: &str) -> u64 {
    folded.chars().fold(0u64, |mask, c| {
        let bit = match c {
            'a'..='z' => c as u32 - 'a' as u32,
            '0'..='9' => 26 + (c as u32 - '0' as u32),
            ' ' => 36,
            _ => 37 + c as u32 % 27,
        };
        mask | (1u64 << bit)
    })
}

/// Lower case, one character for one character.
pub fn fold(text: &str) -> String {
    text.chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .collect()
}

/// Packs rows as they arrive.
#[derive(Debug, Default)]
pub struct TableBuilder {
    t: NameTable,
}

impl TableBuilder {
    /// Room for `rows` rows.
    pub fn with_capacity(rows: usize) -> TableBuilder {
        let mut b = TableBuilder::default();
        b.t.ma_id.reserve(rows);
        b.t.name_end.reserve(rows);
        b.t.folded_start.reserve(rows + 1);
        b.t.masks.reserve(rows);
        b.t.country.reserve(rows);
        b.t.genre.reserve(rows);
        b.t.point.reserve(rows);
        b
    }

    /// Adds the next row (rows must come in search order).
    pub fn push(&mut self, r: NameRow) {
        let t = &mut self.t;
        t.ma_id.push(r.ma_id);
        t.names.push_str(&r.name);
        t.name_end.push(t.names.len() as u32);
        t.folded_start.push(t.folded.len() as u32);
        let folded = fold(&r.name);
        t.masks.push(char_mask(&folded));
        t.folded.push_str(&folded);
        t.country.push(t.strings.intern_opt(r.country.as_deref()));
        t.genre.push(t.strings.intern_opt(r.genre.as_deref()));
        t.point.push(match (r.lat, r.lon) {
            (Some(lat), Some(lon)) => Some((lat, lon)),
            _ => None,
        });
    }

    /// The finished table with its indexes.
    pub fn finish(mut self) -> NameTable {
        let t = &mut self.t;
        t.folded_start.push(t.folded.len() as u32);
        let n = t.ma_id.len();
        let mut by_folded: Vec<u32> = (0..n as u32).collect();
        by_folded.sort_by(|&a, &b| t.folded_of(a).cmp(t.folded_of(b)).then(a.cmp(&b)));
        t.by_folded = by_folded;
        let table: &NameTable = t;
        let trigrams = Trigrams::build(n, |i| table.folded_of(i as u32));
        t.trigrams = trigrams;
        t.names.shrink_to_fit();
        t.folded.shrink_to_fit();
        self.t
    }
}

/// The rows and their indexes.
#[derive(Debug, Default)]
pub struct NameTable {
    ma_id: Vec<i64>,
    names: String,
    name_end: Vec<u32>,
    /// Folded names one after the other; row `i` is `folded_start[i]..folded_start[i + 1]`.
    folded: String,
    folded_start: Vec<u32>,
    /// The characters of each folded name ([`char_mask`]): a row whose mask lacks a bit of
    /// the text's cannot hold it.
    masks: Vec<u64>,
    country: Vec<u32>,
    genre: Vec<u32>,
    point: Vec<Option<(f64, f64)>>,
    strings: Interner,
    /// Rows sorted by folded name (bytes): exact names and prefixes are one range.
    by_folded: Vec<u32>,
    trigrams: Trigrams,
}

impl NameTable {
    /// Number of bands.
    pub fn len(&self) -> usize {
        self.ma_id.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.ma_id.is_empty()
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.ma_id.len() * (8 + 4 + 4 + 8 + 4 + 4 + 24)
            + self.names.len()
            + self.folded.len()
            + self.folded_start.len() * 4
            + self.strings.bytes()
            + self.trigrams.bytes()
    }

    fn folded_of(&self, row: u32) -> &str {
        let i = row as usize;
        match (self.folded_start.get(i), self.folded_start.get(i + 1)) {
            (Some(&s), Some(&e)) => self.folded.get(s as usize..e as usize),
            _ => None,
        }
        .unwrap_or("")
    }

    /// Row `row` as the SQL search returns it.
    pub fn hit(&self, row: u32) -> Option<NameRow> {
        let i = row as usize;
        let start = if i == 0 {
            0
        } else {
            *self.name_end.get(i - 1)?
        };
        let text = |id: u32| (id != NONE).then(|| self.strings.get(id).to_string());
        let point = *self.point.get(i)?;
        Some(NameRow {
            ma_id: *self.ma_id.get(i)?,
            name: self
                .names
                .get(start as usize..*self.name_end.get(i)? as usize)?
                .to_string(),
            country: text(*self.country.get(i)?),
            genre: text(*self.genre.get(i)?),
            lat: point.map(|p| p.0),
            lon: point.map(|p| p.1),
        })
    }

    /// The rows of the answer to `text` (already cleaned and trimmed, not folded), at most
    /// `limit`: exact names, then prefixes, then the rest, each in row order.
    pub fn search(&self, text: &str, limit: usize) -> Vec<u32> {
        let q = fold(text);
        if q.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut rows = self.exact_then_prefix(&q, limit);
        if rows.len() < limit {
            let need = limit - rows.len();
            rows.extend(self.containing_not_prefix(&q, need));
        }
        rows
    }

    /// Names equal to `q`, then names starting with it, each in row order, at most `limit`.
    fn exact_then_prefix(&self, q: &str, limit: usize) -> Vec<u32> {
        let from = self.by_folded.partition_point(|&r| self.folded_of(r) < q);
        let len = self.by_folded[from..].partition_point(|&r| self.folded_of(r).starts_with(q));
        let range = &self.by_folded[from..from + len];
        // Sorted by folded text, `q` itself sorts before every longer name it starts.
        let exact_len = range.partition_point(|&r| self.folded_of(r) == q);
        let mut exact = range[..exact_len].to_vec();
        exact.sort_unstable();
        exact.truncate(limit);
        let mut prefix = range[exact_len..].to_vec();
        let keep = limit - exact.len();
        if prefix.len() > keep {
            if keep == 0 {
                prefix.clear();
            } else {
                prefix.select_nth_unstable(keep - 1);
                prefix.truncate(keep);
            }
        }
        prefix.sort_unstable();
        exact.extend(prefix);
        exact
    }

    /// The first `need` rows, in row order, that hold `q` but do not start with it (those
    /// are the prefixes, answered before).
    fn containing_not_prefix(&self, q: &str, need: usize) -> Vec<u32> {
        let finder = Finder::new(q.as_bytes());
        let mut out = Vec::new();
        if q.chars().count() >= TRIGRAM_CHARS {
            for &row in self.trigrams.candidates(q) {
                let name = self.folded_of(row);
                if !name.starts_with(q) && finder.find(name.as_bytes()).is_some() {
                    out.push(row);
                    if out.len() >= need {
                        break;
                    }
                }
            }
            return out;
        }
        // No trigram: every row in order, its character mask first (one word: most rows
        // are out without looking at their name), then the name.
        let want = char_mask(q);
        for (row, &mask) in self.masks.iter().enumerate() {
            if mask & want != want {
                continue;
            }
            let name = self.folded_of(row as u32);
            if !name.starts_with(q) && finder.find(name.as_bytes()).is_some() {
                out.push(row as u32);
                if out.len() >= need {
                    break;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mask_holds_every_character_of_its_text() {
        for name in ["storm", "øst 1990", "σοφια", "a", ""] {
            let m = char_mask(name);
            for c in name.chars() {
                let one = char_mask(&c.to_string());
                assert_eq!(one.count_ones(), 1, "{c:?}");
                assert_eq!(m & one, one, "{c:?} in {name:?}");
            }
        }
        assert_eq!(char_mask("ab") & char_mask("z"), 0);
        assert_eq!(char_mask(""), 0);
    }

    #[test]
    fn fold_maps_one_character_to_one() {
        assert_eq!(fold("ÖSTERİ ΣΟΦΙΑ ǅ"), "österi σοφια ǆ");
    }
}
