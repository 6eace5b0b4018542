//! Trigram postings: for every run of three characters of a lowered name, the rows holding
//! it, ascending. A text of three characters or more can only be in the rows of each of its
//! trigrams, so the shortest of those lists is the whole candidate set.

use std::collections::HashMap;

/// A trigram packed in 63 bits (a `char` needs 21).
pub type Key = u64;

/// The key of three characters.
pub fn key(a: char, b: char, c: char) -> Key {
    ((a as u64) << 42) | ((b as u64) << 21) | c as u64
}

/// The distinct trigrams of `lowered`, sorted.
pub fn keys_of(lowered: &str) -> Vec<Key> {
    let chars: Vec<char> = lowered.chars().collect();
    let mut keys: Vec<Key> = chars.windows(3).map(|w| key(w[0], w[1], w[2])).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Postings in one buffer: the rows of `keys[i]` are `rows[starts[i]..starts[i + 1]]`.
#[derive(Debug, Default)]
pub struct Trigrams {
    keys: Vec<Key>,
    starts: Vec<u32>,
    rows: Vec<u32>,
}

impl Trigrams {
    /// Builds the postings of `names` (row `i` is `names(i)`), two passes so that no list
    /// of (key, row) pairs is ever held: one counts, one fills.
    pub fn build<'a>(n: usize, name: impl Fn(usize) -> &'a str) -> Trigrams {
        let mut counts: HashMap<Key, u32> = HashMap::new();
        for i in 0..n {
            for k in keys_of(name(i)) {
                *counts.entry(k).or_insert(0) += 1;
            }
        }
        let mut keys: Vec<Key> = counts.keys().copied().collect();
        keys.sort_unstable();
        let mut starts = Vec::with_capacity(keys.len() + 1);
        let mut slot: HashMap<Key, u32> = HashMap::with_capacity(keys.len());
        let mut total = 0u32;
        for (i, k) in keys.iter().enumerate() {
            starts.push(total);
            total += counts.get(k).copied().unwrap_or(0);
            slot.insert(*k, i as u32);
        }
        starts.push(total);
        drop(counts);
        let mut next: Vec<u32> = starts[..keys.len()].to_vec();
        let mut rows = vec![0u32; total as usize];
        for i in 0..n {
            for k in keys_of(name(i)) {
                if let Some(&s) = slot.get(&k) {
                    let at = &mut next[s as usize];
                    rows[*at as usize] = i as u32;
                    *at += 1;
                }
            }
        }
        Trigrams { keys, starts, rows }
    }

    /// The rows holding `k`, ascending (empty when no name has it).
    pub fn rows(&self, k: Key) -> &[u32] {
        match self.keys.binary_search(&k) {
            Ok(i) => {
                let (s, e) = (self.starts[i] as usize, self.starts[i + 1] as usize);
                self.rows.get(s..e).unwrap_or(&[])
            }
            Err(_) => &[],
        }
    }

    /// The shortest posting list among the trigrams of `lowered` (at least three
    /// characters): every row holding `lowered` is in it.
    pub fn candidates(&self, lowered: &str) -> &[u32] {
        keys_of(lowered)
            .into_iter()
            .map(|k| self.rows(k))
            .min_by_key(|rows| rows.len())
            .unwrap_or(&[])
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.keys.len() * 8 + self.starts.len() * 4 + self.rows.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_list_each_row_once_per_trigram_in_row_order() {
        let names = ["aaaa", "baaa", "xyz", "ab"];
        let t = Trigrams::build(names.len(), |i| names[i]);
        assert_eq!(t.rows(key('a', 'a', 'a')), [0, 1]);
        assert_eq!(t.rows(key('b', 'a', 'a')), [1]);
        assert_eq!(t.rows(key('x', 'y', 'z')), [2]);
        assert!(t.rows(key('a', 'b', 'c')).is_empty());
        assert_eq!(t.candidates("xyz"), [2]);
        assert_eq!(t.candidates("baaa"), [1], "the shortest list of baa, aaa");
        assert!(t.candidates("qqq").is_empty());
    }

    #[test]
    fn multibyte_characters_are_one_character_each() {
        let names = ["øst", "mötley"];
        let t = Trigrams::build(names.len(), |i| names[i]);
        assert_eq!(t.rows(key('ø', 's', 't')), [0]);
        assert_eq!(t.candidates("ötl"), [1]);
    }
}
