//! `location_text` → ordered steps of places (SPEC rule 13, docs/location-parsing.md).
//!
//! Pipeline: clean the text → steps (`;`, or `,` right after a time marker when another
//! marked step follows) → parts (`/`, `\`) → places. Places are never split on `and`/`&`.

use serde::Serialize;

use crate::countries::{self, Country};
use crate::marker::{self, Rank};
use crate::names::{NoNames, PlaceNames};
use crate::normalize::clean;
use crate::place::{self, Part, Place};
use crate::split::{balance, groups, split_top};

/// One period of a band's history: step 0 is the origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// 0 for the origin, then 1, 2, … with no gap.
    pub order: i32,
    /// `early`, `mid`, `later`, a combination (`early/mid`), a written year span
    /// (`1990-1995`), or for an unmarked step `origin` (first) / `later` (others).
    pub label: String,
    /// The places of the step, never empty.
    pub places: Vec<Place>,
}

/// A step before labels and orders are final.
struct Draft {
    label: Option<String>,
    places: Vec<Place>,
}

/// Parse a band's location text. `band_country` (name or code) supplies the country of
/// places that do not name one. An empty result means no place (country-only band).
/// Never panics, whatever the input.
pub fn parse(location_text: &str, band_country: Option<&str>) -> Vec<Step> {
    parse_with(location_text, band_country, &NoNames)
}

/// [`parse`] with a gazetteer's knowledge of place names (issue 13): a comma inside a
/// place name does not split it (`Sant Pere, Santa Caterina i La Ribera`), and a town
/// written where a region goes makes a second place of the same step (`Tukums, Riga` →
/// Tukums and Riga). With [`NoNames`] it is [`parse`].
pub fn parse_with(
    location_text: &str,
    band_country: Option<&str>,
    names: &dyn PlaceNames,
) -> Vec<Step> {
    let band = band_country.and_then(countries::resolve);
    let text = balance(&mark_unknown(&clean(location_text)));
    let mut drafts = Vec::new();
    for segment in split_top(&text, |c| c == ';') {
        for chunk in marker_chunks(segment) {
            read_chunk(chunk, band, names, &mut drafts);
        }
    }
    drafts.retain(|d| !d.places.is_empty());
    sort_by_period(&mut drafts);
    drafts
        .into_iter()
        .zip(0..)
        .map(|(d, order)| Step {
            order,
            label: d
                .label
                .unwrap_or_else(|| if order == 0 { "origin" } else { "later" }.to_owned()),
            places: d.places,
        })
        .collect()
}

/// Replace a standalone `N/A` (or `n\a`) by `?` before anything splits on its slash.
fn mark_unknown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(['n', 'N']) {
        let (before, tail) = rest.split_at(i);
        out.push_str(before);
        let b = tail.as_bytes();
        let is_na = b.len() >= 3
            && matches!(b[1], b'/' | b'\\')
            && matches!(b[2], b'a' | b'A')
            && !out.chars().next_back().is_some_and(char::is_alphanumeric)
            && !tail[3..].chars().next().is_some_and(char::is_alphanumeric);
        let take = if is_na { 3 } else { 1 };
        out.push_str(if is_na { "?" } else { &tail[..1] });
        rest = &tail[take..];
    }
    out.push_str(rest);
    out
}

/// Split a `;`-segment at commas that follow a time marker, as in
/// `Bergen (early), Bø (mid), Limousin, France (later)` — but only when a marker still
/// follows, because `Cape Town (later), Western Cape` is one place, not two steps.
fn marker_chunks(segment: &str) -> Vec<&str> {
    let markers: Vec<_> = groups(segment)
        .into_iter()
        .filter(|g| marker::label(g.inner).is_some())
        .collect();
    let Some(last_start) = markers.last().map(|g| g.start) else {
        return vec![segment];
    };
    let mut chunks = Vec::new();
    let mut start = 0;
    for g in &markers {
        let after = &segment[g.end..];
        let gap = after.len() - after.trim_start().len();
        let comma = g.end + gap;
        if comma < last_start && after.trim_start().starts_with(',') {
            chunks.push(&segment[start..comma]);
            start = comma + 1;
        }
    }
    chunks.push(&segment[start..]);
    chunks
}

/// Read a chunk's slash-separated parts and append its steps: a part carrying a time
/// marker closes a step (`Helderberg (early)/Cape Town (later), Western Cape`).
fn read_chunk(
    chunk: &str,
    band: Option<&'static Country>,
    known: &dyn PlaceNames,
    drafts: &mut Vec<Draft>,
) {
    let mut parts: Vec<Part> = split_top(chunk, |c| c == '/' || c == '\\')
        .into_iter()
        .map(place::read_part)
        .collect();
    share_regions(&mut parts);
    let first = drafts.len();
    let mut current = Vec::new();
    for part in parts {
        let names: Vec<String> = part.components.into_iter().flatten().collect();
        if let Some(p) = place::build(names, band) {
            for p in place::read_names(p, known) {
                if !current.contains(&p) {
                    current.push(p);
                }
            }
        }
        if !part.labels.is_empty() {
            let label = Some(part.labels.join("/"));
            let in_chunk = drafts.len() > first;
            match drafts.last_mut() {
                // `A (early)/B (early)`: one early step with two places.
                Some(prev) if in_chunk && prev.label == label => {
                    prev.places.extend(std::mem::take(&mut current));
                }
                _ => drafts.push(Draft {
                    label,
                    places: std::mem::take(&mut current),
                }),
            }
        }
    }
    if !current.is_empty() {
        drafts.push(Draft {
            label: None,
            places: current,
        });
    }
}

/// `City1/City2, Region`: parts made of a single component take the regions (and
/// country) of the last part, which names them once for all.
fn share_regions(parts: &mut [Part]) {
    let Some((last, rest)) = parts.split_last_mut() else {
        return;
    };
    if last.components.len() < 2 {
        return;
    }
    let shared: Vec<String> = last.components[1..].iter().flatten().cloned().collect();
    for p in rest.iter_mut().filter(|p| p.components.len() == 1) {
        p.components.push(shared.clone());
    }
}

/// Put steps in time order when every step says when it was (`Mannheim (later);
/// Rheinzabern (early)` → Rheinzabern first), all with periods or all with years.
/// Otherwise the written order stands. The sort is stable.
fn sort_by_period(drafts: &mut Vec<Draft>) {
    let ranks: Option<Vec<Rank>> = drafts
        .iter()
        .map(|d| d.label.as_deref().and_then(marker::rank))
        .collect();
    let Some(ranks) = ranks else { return };
    let same_kind = ranks.windows(2).all(|w| {
        matches!(
            w,
            [Rank::Period(_), Rank::Period(_)] | [Rank::Year(_), Rank::Year(_)]
        )
    });
    if same_kind {
        let mut keyed: Vec<(Rank, Draft)> = ranks.into_iter().zip(drafts.drain(..)).collect();
        keyed.sort_by_key(|(rank, _)| *rank);
        drafts.extend(keyed.into_iter().map(|(_, d)| d));
    }
}
