//! The in-memory rows, kept current by applying changes, and the selection of one page:
//! the exact total and the ids of the page (or a small superset PostgreSQL finishes
//! ordering).

use super::compact::{Row, Strings};
use super::matcher::Matcher;
use bandmap_db::bands::admin::search::SearchRow;
use bandmap_db::bands::admin::{BandSort, Selection, SortKey};
use std::collections::HashMap;

/// Largest candidate set handed to PostgreSQL to finish a page whose order is not fully
/// known in memory; a bigger one leaves the whole list to SQL.
pub const MAX_CANDIDATES: usize = 20_000;

/// Every band, by slot, in compact form (`compact.rs`).
#[derive(Debug, Default, Clone)]
pub struct SearchTable {
    rows: Vec<Row>,
    strings: Strings,
    slots: HashMap<i64, u32>,
    unranked: usize,
}

/// Sort key of a row: nulls-last flag, primary value, tie-break; compared as a tuple.
type Key = (bool, i64, i64);

/// A row's key under `sort`, or `None` when its position in a text order is not known
/// (it changed after the ranks were computed).
fn key(r: &Row, sort: BandSort) -> Option<Key> {
    let (null, primary, tie) = match sort.key {
        SortKey::Name => (false, r.name_rank()?, 0),
        SortKey::Country => (r.country_is_null(), r.country_rank()?, 0),
        SortKey::MaId => (false, r.ma_id, 0),
        SortKey::FormedYear => (
            r.formed_year.is_none(),
            i64::from(r.formed_year.unwrap_or(0)),
            r.ma_id,
        ),
        SortKey::UpdatedAt => (false, r.updated_us, r.ma_id),
    };
    // `!x` reverses the order of i64 without overflow; NULLs stay last either way.
    Some(if sort.desc {
        (null, !primary, !tie)
    } else {
        (null, primary, tie)
    })
}

/// A [`SearchTable`] filled row by row as a full load decodes them.
#[derive(Debug, Default)]
pub struct TableBuilder {
    rows: Vec<Row>,
    strings: Strings,
}

impl TableBuilder {
    /// Packs one freshly loaded row (with its ranks); its strings are freed here.
    pub fn push(&mut self, r: SearchRow) {
        self.rows.push(Row::pack(r, &mut self.strings));
    }

    /// The table of the rows pushed.
    pub fn finish(self) -> SearchTable {
        let TableBuilder { rows, strings } = self;
        let slots = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.ma_id, i as u32))
            .collect();
        let unranked = rows.iter().filter(|r| r.name_rank().is_none()).count();
        SearchTable {
            rows,
            strings,
            slots,
            unranked,
        }
    }
}

impl SearchTable {
    /// A table of freshly loaded rows (with their ranks).
    pub fn new(rows: Vec<SearchRow>) -> SearchTable {
        let mut b = TableBuilder {
            rows: Vec::with_capacity(rows.len()),
            strings: Strings::default(),
        };
        rows.into_iter().for_each(|r| b.push(r));
        b.finish()
    }

    /// Approximate bytes held by the rows (without the allocator's overhead).
    pub fn approx_bytes(&self) -> usize {
        self.rows.iter().map(Row::bytes).sum::<usize>() + self.slots.capacity() * 17
    }

    /// The rows as loaded (tests).
    pub fn rows(&self) -> impl Iterator<Item = SearchRow> + '_ {
        self.rows.iter().map(|r| r.unpack(&self.strings))
    }

    /// Bands held.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no band is held.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Rows whose name position is unknown.
    pub fn unranked(&self) -> usize {
        self.unranked
    }

    /// Inserts or replaces a changed row (which carries no ranks). A rank survives when
    /// its sort text did not change: the row keeps its place among the unchanged rows.
    pub fn upsert(&mut self, row: SearchRow) {
        let mut row = Row::pack(row, &mut self.strings);
        match self.slots.get(&row.ma_id) {
            Some(&slot) => {
                let old = &self.rows[slot as usize];
                row.keep_ranks_of(old);
                self.unranked -= usize::from(old.name_rank().is_none());
                self.unranked += usize::from(row.name_rank().is_none());
                self.rows[slot as usize] = row;
            }
            None => {
                self.unranked += usize::from(row.name_rank().is_none());
                self.slots.insert(row.ma_id, self.rows.len() as u32);
                self.rows.push(row);
            }
        }
    }

    /// Removes a band if held.
    pub fn remove(&mut self, ma_id: i64) {
        let Some(slot) = self.slots.remove(&ma_id) else {
            return;
        };
        let gone = self.rows.swap_remove(slot as usize);
        self.unranked -= usize::from(gone.name_rank().is_none());
        if let Some(moved) = self.rows.get(slot as usize) {
            self.slots.insert(moved.ma_id, slot);
        }
    }

    /// The total and the page of `m` under `sort`; `None` when the page's order is too
    /// uncertain (more than [`MAX_CANDIDATES`] candidates).
    pub fn select(
        &self,
        m: &Matcher,
        sort: BandSort,
        offset: usize,
        limit: usize,
    ) -> Option<Selection> {
        let mut known: Vec<(Key, i64)> = Vec::new();
        let mut unknown: Vec<i64> = Vec::new();
        for r in self
            .rows
            .iter()
            .filter(|r| m.matches(&r.view(&self.strings)))
        {
            match key(r, sort) {
                Some(k) => known.push((k, r.ma_id)),
                None => unknown.push(r.ma_id),
            }
        }
        let total = (known.len() + unknown.len()) as i64;
        if limit == 0 {
            return Some(Selection {
                total,
                ids: Vec::new(),
                offset: 0,
            });
        }
        let end = offset.saturating_add(limit).min(known.len());
        if unknown.is_empty() {
            // The exact page: the first `end` in order, from `offset`.
            let ids = if offset < end {
                top(&mut known, end);
                known[offset..end].iter().map(|&(_, id)| id).collect()
            } else {
                Vec::new()
            };
            return Some(Selection {
                total,
                ids,
                offset: 0,
            });
        }
        // Every row of the page is among the first `offset + limit` known rows (their
        // order among themselves is right) or among the unknown ones.
        if end + unknown.len() > MAX_CANDIDATES {
            return None;
        }
        if end < known.len() {
            known.select_nth_unstable(end);
        }
        let mut ids = unknown;
        ids.extend(known[..end].iter().map(|&(_, id)| id));
        Some(Selection {
            total,
            ids,
            offset: offset as i64,
        })
    }
}

/// Puts the `n` smallest entries, sorted, at the front.
fn top(entries: &mut [(Key, i64)], n: usize) {
    if n < entries.len() {
        entries.select_nth_unstable(n);
    }
    entries[..n].sort_unstable();
}

#[cfg(test)]
mod tests {
    use super::*;
    use bandmap_db::bands::admin::BandFilter;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    type Fields = (String, Option<String>, Option<i32>, i64, bool);

    fn row(ma_id: i64, (name, country, formed_year, updated_us, has_lat): Fields) -> SearchRow {
        SearchRow {
            ma_id,
            name: name.into(),
            genre: None,
            location: None,
            themes: None,
            country: country.map(Into::into),
            country_code: None,
            status: None,
            has_lat,
            has_location: false,
            has_conflict: false,
            formed_year,
            updated_us,
            name_rank: None,
            country_rank: None,
        }
    }

    fn fields() -> impl Strategy<Value = Fields> {
        (
            "[ab]{0,3}",
            proptest::option::of("[xy]"),
            proptest::option::of(0..3i32),
            0..4i64,
            any::<bool>(),
        )
    }

    /// `ORDER BY expr ASC|DESC NULLS LAST, ma_id ASC|DESC` with byte order as collation.
    fn sql_order(sort: BandSort, a: &SearchRow, b: &SearchRow) -> Ordering {
        fn dir(o: Ordering, desc: bool) -> Ordering {
            if desc { o.reverse() } else { o }
        }
        fn nulls_last<T: Ord>(a: &Option<T>, b: &Option<T>, desc: bool) -> Ordering {
            match (a, b) {
                (Some(x), Some(y)) => dir(x.cmp(y), desc),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
        }
        let first = match sort.key {
            SortKey::Name => dir(a.name.cmp(&b.name), sort.desc),
            SortKey::Country => nulls_last(&a.country, &b.country, sort.desc),
            SortKey::MaId => Ordering::Equal,
            SortKey::FormedYear => nulls_last(&a.formed_year, &b.formed_year, sort.desc),
            SortKey::UpdatedAt => dir(a.updated_us.cmp(&b.updated_us), sort.desc),
        };
        first.then(dir(a.ma_id.cmp(&b.ma_id), sort.desc))
    }

    /// A full load: ranks as PostgreSQL's row_number() gives them.
    fn loaded(mut rows: Vec<SearchRow>) -> SearchTable {
        let asc = |key| BandSort { key, desc: false };
        rows.sort_by(|a, b| sql_order(asc(SortKey::Country), a, b));
        for (i, r) in rows.iter_mut().enumerate() {
            r.country_rank = Some(i as i64 + 1);
        }
        rows.sort_by(|a, b| sql_order(asc(SortKey::Name), a, b));
        for (i, r) in rows.iter_mut().enumerate() {
            r.name_rank = Some(i as i64 + 1);
        }
        SearchTable::new(rows)
    }

    fn sort_strategy() -> impl Strategy<Value = BandSort> {
        (
            prop_oneof![
                Just(SortKey::Name),
                Just(SortKey::MaId),
                Just(SortKey::Country),
                Just(SortKey::FormedYear),
                Just(SortKey::UpdatedAt),
            ],
            any::<bool>(),
        )
            .prop_map(|(key, desc)| BandSort { key, desc })
    }

    proptest! {
        /// After any changes since the load, the selection gives the exact total, and the
        /// page PostgreSQL finishes from it (candidates ordered, `offset` skipped, `limit`
        /// kept) is the page of a full sort of the matching rows.
        #[test]
        fn the_page_is_the_page_of_a_full_sort(
            initial in proptest::collection::vec(fields(), 0..30),
            changes in proptest::collection::vec((1..40i64, fields()), 0..12),
            deletes in proptest::collection::vec(1..40i64, 0..6),
            has_lat in proptest::option::of(any::<bool>()),
            sort in sort_strategy(),
            offset in 0..12usize,
            limit in 0..6usize,
        ) {
            let mut table = loaded(
                initial.into_iter().enumerate().map(|(i, f)| row(i as i64 + 1, f)).collect(),
            );
            let mut truth: std::collections::BTreeMap<i64, SearchRow> =
                table.rows().map(|r| (r.ma_id, r)).collect();
            for (id, f) in changes {
                table.upsert(row(id, f.clone()));
                truth.insert(id, row(id, f));
            }
            for id in deletes {
                table.remove(id);
                truth.remove(&id);
            }
            prop_assert_eq!(table.len(), truth.len());
            prop_assert_eq!(
                table.unranked(),
                table.rows().filter(|r| r.name_rank.is_none()).count()
            );
            let filter = BandFilter { has_lat, ..BandFilter::default() };
            let m = Matcher::new(&filter, &[None, None, None, None]).unwrap();
            let Some(sel) = table.select(&m, sort, offset, limit) else {
                return Err(TestCaseError::fail("small tables never exceed the candidates"));
            };

            let mut matching: Vec<&SearchRow> =
                truth.values().filter(|r| has_lat.is_none_or(|b| r.has_lat == b)).collect();
            matching.sort_by(|a, b| sql_order(sort, a, b));
            let want: Vec<i64> =
                matching.iter().skip(offset).take(limit).map(|r| r.ma_id).collect();
            prop_assert_eq!(sel.total, matching.len() as i64);

            let mut candidates: Vec<&SearchRow> = sel.ids.iter().map(|id| &truth[id]).collect();
            candidates.sort_by(|a, b| sql_order(sort, a, b));
            let got: Vec<i64> = candidates
                .iter()
                .skip(sel.offset as usize)
                .take(limit)
                .map(|r| r.ma_id)
                .collect();
            prop_assert_eq!(got, want);
        }
    }
}
