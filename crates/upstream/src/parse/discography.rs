//! The discography fragment (`/band/discography/id/{id}/tab/all`): a `table.discog` whose body
//! rows are releases. An empty discography is a table whose only row has no release link.

use std::sync::LazyLock;

use scraper::{Html, Selector};

use super::ParseError;
use super::text::{element_text, non_na, trailing_id};

/// One release of a band.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// Upstream release id (last segment of the album link).
    pub id: i64,
    /// Title as shown.
    pub title: String,
    /// Album page URL.
    pub url: String,
    /// Type text (`Full-length`, `Demo`, `Split`…).
    pub kind: String,
    /// Release year.
    pub year: Option<i32>,
    /// Reviews cell (`31 (87%)`), when there are reviews.
    pub reviews: Option<String>,
}

struct Selectors {
    table: Selector,
    row: Selector,
    td: Selector,
    link: Selector,
}

static SELECTORS: LazyLock<Option<Selectors>> = LazyLock::new(|| {
    Some(Selectors {
        table: Selector::parse("table.discog").ok()?,
        row: Selector::parse("tr").ok()?,
        td: Selector::parse("td").ok()?,
        link: Selector::parse("a[href]").ok()?,
    })
});

/// Parse a discography fragment. A fragment without `table.discog` is not a discography
/// (a block page or garbage) and fails; an empty discography gives an empty list.
pub fn parse_discography(html: &str) -> Result<Vec<Release>, ParseError> {
    let sel = SELECTORS.as_ref().ok_or(ParseError::Missing("selectors"))?;
    let doc = Html::parse_document(html);
    let table = doc
        .root_element()
        .select(&sel.table)
        .next()
        .ok_or(ParseError::Missing("table.discog"))?;
    let mut out = Vec::new();
    for tr in table.select(&sel.row) {
        let tds: Vec<_> = tr.select(&sel.td).collect();
        let Some(first) = tds.first() else { continue };
        let Some(href) = first
            .select(&sel.link)
            .next()
            .and_then(|a| a.value().attr("href"))
        else {
            continue;
        };
        let Some(id) = trailing_id(href) else {
            continue;
        };
        let text = |i: usize| tds.get(i).map(|td| element_text(*td)).unwrap_or_default();
        out.push(Release {
            id,
            title: element_text(*first),
            url: href.to_owned(),
            kind: text(1),
            year: text(2).get(..4).and_then(|y| y.parse().ok()),
            reviews: non_na(text(3)),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_build() {
        assert!(SELECTORS.is_some());
    }
}
