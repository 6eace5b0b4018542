//! The band page (`/bands/_/{id}`): identity, the `#band_stats` facts, the line-up, the
//! discography link, the comment and the audit trail. Rocket Loader attributes and scripts
//! are ignored; `N/A` values become `None`.

use std::sync::LazyLock;

use scraper::{ElementRef, Html, Selector};

use super::ParseError;
use super::text::{element_text, last_segment, non_na, squash, trailing_id};

/// What a band page says about the band.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BandPage {
    /// Upstream band id (from the band's own link).
    pub ma_id: i64,
    /// Display name.
    pub name: String,
    /// Canonical band page URL.
    pub url: String,
    /// ISO code of `Country of origin:` (from its `/lists/{CC}` link).
    pub country_code: Option<String>,
    /// Country name as written.
    pub country_name: Option<String>,
    /// `Location:` text as written.
    pub location: Option<String>,
    /// `Status:` label.
    pub status: Option<String>,
    /// `Formed in:` year.
    pub formed_year: Option<i32>,
    /// `Genre:` text.
    pub genre: Option<String>,
    /// `Themes:` or `Lyrical themes:` text.
    pub themes: Option<String>,
    /// `Current label:` or `Last label:` text.
    pub label: Option<String>,
    /// Link of the label, when it has a page.
    pub label_url: Option<String>,
    /// `Years active:` text, whitespace squashed.
    pub years_active: Option<String>,
    /// Members, in page order (the complete line-up when the page has tabs).
    pub lineup: Vec<Member>,
    /// Link to the complete discography fragment.
    pub discography_url: Option<String>,
    /// Text of the band comment.
    pub info_raw: Option<String>,
    /// `Added on:` timestamp text.
    pub added_on: Option<String>,
    /// `Last modified on:` timestamp text (drives SPEC rule 4).
    pub last_modified_text: Option<String>,
}

/// A line-up entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Section label (`Current`, `Last known`, `Past`, `Current (Live)`…).
    pub section: String,
    /// Name (alias) as shown.
    pub name: String,
    /// Artist page link.
    pub artist_url: Option<String>,
    /// Artist id from the link.
    pub artist_id: Option<i64>,
    /// Role text with years (`Guitars (1996-2003)`).
    pub role: String,
}

struct Selectors {
    name: Selector,
    name_link: Selector,
    stats_dt: Selector,
    link: Selector,
    members: Selector,
    all_tab: Selector,
    lineup_table: Selector,
    tr: Selector,
    td: Selector,
    comment: Selector,
    audit_td: Selector,
}

fn build_selectors() -> Result<Selectors, String> {
    let s = |css: &str| Selector::parse(css).map_err(|e| format!("{css}: {e}"));
    Ok(Selectors {
        name: s("h1.band_name")?,
        name_link: s("h1.band_name a")?,
        stats_dt: s("#band_stats dt")?,
        link: s("a[href]")?,
        members: s("#band_members")?,
        all_tab: s("#band_tab_members_all")?,
        lineup_table: s("table.lineupTable")?,
        tr: s("tr")?,
        td: s("td")?,
        comment: s("div.band_comment")?,
        audit_td: s("#auditTrail td")?,
    })
}

static SELECTORS: LazyLock<Result<Selectors, String>> = LazyLock::new(build_selectors);

/// Parse a band page. Fails only when the page has no band name or id (not a band page).
pub fn parse_band_page(html: &str) -> Result<BandPage, ParseError> {
    let sel = SELECTORS
        .as_ref()
        .map_err(|_| ParseError::Missing("selectors"))?;
    let doc = Html::parse_document(html);
    let root = doc.root_element();

    let h1 = root
        .select(&sel.name)
        .next()
        .ok_or(ParseError::Missing("h1.band_name"))?;
    let name = element_text(h1);
    let url = root
        .select(&sel.name_link)
        .next()
        .and_then(|a| a.value().attr("href"))
        .unwrap_or_default()
        .to_owned();
    let discography_url = discography_link(root, sel);
    let ma_id = trailing_id(&url)
        .or_else(|| discography_url.as_deref().and_then(id_after_id_segment))
        .ok_or(ParseError::Missing("band id"))?;
    if name.is_empty() {
        return Err(ParseError::Missing("band name"));
    }

    let mut page = BandPage {
        ma_id,
        name,
        url,
        discography_url,
        ..BandPage::default()
    };
    read_stats(root, sel, &mut page);
    page.lineup = read_lineup(root, sel);
    page.info_raw = root
        .select(&sel.comment)
        .next()
        .map(element_text)
        .map(|t| strip_read_more(&t))
        .and_then(non_na);
    for td in root.select(&sel.audit_td) {
        let text = element_text(td);
        if let Some(v) = text.strip_prefix("Added on:") {
            page.added_on = non_na(v.trim().to_owned());
        } else if let Some(v) = text.strip_prefix("Last modified on:") {
            page.last_modified_text = non_na(v.trim().to_owned());
        }
    }
    Ok(page)
}

fn read_stats(root: ElementRef<'_>, sel: &Selectors, page: &mut BandPage) {
    for dt in root.select(&sel.stats_dt) {
        let Some(dd) = dt
            .next_siblings()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "dd")
        else {
            continue;
        };
        let label = element_text(dt);
        let value = || non_na(element_text(dd));
        let link = || {
            dd.select(&sel.link)
                .next()
                .and_then(|a| a.value().attr("href"))
        };
        match label.trim_end_matches(':').trim() {
            "Country of origin" => {
                page.country_name = value();
                page.country_code = link()
                    .and_then(last_segment)
                    .filter(|cc| cc.len() == 2 && cc.chars().all(|c| c.is_ascii_alphabetic()))
                    .map(str::to_ascii_uppercase);
            }
            "Location" => page.location = value(),
            "Status" => page.status = value(),
            "Formed in" => {
                page.formed_year = value().and_then(|v| {
                    let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
                    digits.parse().ok()
                });
            }
            "Genre" => page.genre = value(),
            "Themes" | "Lyrical themes" => page.themes = value(),
            "Current label" | "Last label" => {
                page.label = value();
                page.label_url = link().map(str::to_owned);
            }
            "Years active" => page.years_active = value(),
            _ => {}
        }
    }
}

fn read_lineup(root: ElementRef<'_>, sel: &Selectors) -> Vec<Member> {
    let container = root
        .select(&sel.all_tab)
        .next()
        .or_else(|| root.select(&sel.members).next());
    let Some(container) = container else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for table in container.select(&sel.lineup_table) {
        let mut section = tab_section(table);
        for tr in table.select(&sel.tr) {
            let classes: Vec<&str> = tr.value().classes().collect();
            if classes.contains(&"lineupHeaders") {
                section = element_text(tr);
            } else if classes.contains(&"lineupRow") {
                let mut tds = tr.select(&sel.td);
                let Some(first) = tds.next() else { continue };
                let link = first.select(&sel.link).next();
                let artist_url = link.and_then(|a| a.value().attr("href")).map(str::to_owned);
                out.push(Member {
                    section: section.clone(),
                    name: element_text(first),
                    artist_id: artist_url.as_deref().and_then(trailing_id),
                    artist_url,
                    role: tds.next().map(element_text).unwrap_or_default(),
                });
            }
        }
    }
    out
}

/// Default section of a table from the tab holding it (pages without header rows).
fn tab_section(table: ElementRef<'_>) -> String {
    let tab_id = table
        .ancestors()
        .filter_map(ElementRef::wrap)
        .find_map(|e| {
            e.value()
                .id()
                .filter(|id| id.starts_with("band_tab_members_"))
        });
    match tab_id {
        Some("band_tab_members_past") => "Past",
        Some("band_tab_members_live") => "Live",
        _ => "Current",
    }
    .to_owned()
}

fn discography_link(root: ElementRef<'_>, sel: &Selectors) -> Option<String> {
    let links: Vec<&str> = root
        .select(&sel.link)
        .filter_map(|a| a.value().attr("href"))
        .filter(|h| h.contains("/band/discography/id/"))
        .collect();
    links
        .iter()
        .find(|h| h.contains("/tab/all"))
        .or(links.first())
        .map(|h| (*h).to_owned())
}

/// `…/band/discography/id/123/tab/all` → 123.
fn id_after_id_segment(url: &str) -> Option<i64> {
    let mut segs = url.split('/');
    segs.find(|s| *s == "id")?;
    segs.next()?.parse().ok()
}

fn strip_read_more(text: &str) -> String {
    let t = text.trim();
    squash(t.strip_suffix("Read more").unwrap_or(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_build() {
        assert!(build_selectors().is_ok());
    }

    #[test]
    fn discography_id() {
        assert_eq!(
            id_after_id_segment("https://x/band/discography/id/42/tab/all"),
            Some(42)
        );
    }
}
