//! Lists of indexes grouped by a small integer key, in two flat arrays (compressed sparse
//! rows): the points of each band, the bands of each genre. A filter then touches only the
//! entries it needs instead of streaming whole columns.

/// Items grouped by key `0..keys`; within a group, items keep the order they were given in.
#[derive(Debug, Default)]
pub struct Groups {
    /// `offsets[k]..offsets[k + 1]` is group `k` in `items`.
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Groups {
    /// Groups `(key, item)` pairs by key (a counting sort, stable). Pairs whose key is not
    /// below `keys` are left out.
    pub fn build(keys: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Groups {
        let mut offsets = vec![0u32; keys + 1];
        for (k, _) in pairs.clone() {
            if (k as usize) < keys {
                offsets[k as usize + 1] += 1;
            }
        }
        for k in 0..keys {
            offsets[k + 1] += offsets[k];
        }
        let mut next: Vec<u32> = offsets[..keys].to_vec();
        let mut items = vec![0u32; offsets[keys] as usize];
        for (k, item) in pairs {
            if let Some(slot) = next.get_mut(k as usize) {
                items[*slot as usize] = item;
                *slot += 1;
            }
        }
        Groups { offsets, items }
    }

    /// The items of group `k` (empty for an unknown key).
    #[inline]
    pub fn get(&self, k: u32) -> &[u32] {
        let k = k as usize;
        match (self.offsets.get(k), self.offsets.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Number of keys.
    pub fn keys(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        4 * (self.offsets.len() + self.items.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every group holds exactly its pairs' items, in input order; keys out of range
        /// are dropped.
        #[test]
        fn groups_equal_a_plain_filter(pairs in proptest::collection::vec((0u32..12, any::<u32>()), 0..300)) {
            let keys = 10usize;
            let g = Groups::build(keys, pairs.iter().copied());
            prop_assert_eq!(g.keys(), keys);
            for k in 0..12u32 {
                let want: Vec<u32> = if (k as usize) < keys {
                    pairs.iter().filter(|p| p.0 == k).map(|p| p.1).collect()
                } else {
                    Vec::new()
                };
                prop_assert_eq!(g.get(k), &want[..]);
            }
        }
    }
}
