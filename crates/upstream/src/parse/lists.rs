//! DataTables listing endpoints: the country browse list (`/browse/ajax-country/…`) and the
//! recently added/modified band list (`/archives/ajax-band-list/…`). Cells are HTML snippets;
//! a row we cannot read is counted in `skipped`, never fatal for the page.

use serde_json::Value;

use super::ParseError;
use super::text::{first_link, last_segment, strip_tags, trailing_id};

/// One page of a country's band list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountryPage {
    /// `iTotalRecords`: bands of the country in all pages.
    pub total: u64,
    /// Rows of this page, in upstream order.
    pub rows: Vec<ListedBand>,
    /// Rows present but unreadable (no band link or id).
    pub skipped: usize,
}

/// A band row of the country list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedBand {
    /// Upstream band id.
    pub ma_id: i64,
    /// Display name, entities decoded.
    pub name: String,
    /// Band page URL as linked.
    pub url: String,
    /// Genre text.
    pub genre: String,
    /// Location text exactly as upstream writes it (may be `N/A`).
    pub location: String,
    /// Status label (`Active`, `Split-up`…).
    pub status: String,
}

/// One page of the recently added / modified band list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangePage {
    /// `iTotalRecords`: changes in the month in all pages.
    pub total: u64,
    /// Rows of this page, newest first.
    pub rows: Vec<ChangedBand>,
    /// Rows present but unreadable.
    pub skipped: usize,
}

/// A band row of the change list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedBand {
    /// Upstream band id.
    pub ma_id: i64,
    /// Display name, entities decoded.
    pub name: String,
    /// Band page URL as linked.
    pub url: String,
    /// ISO code from the country link (`/lists/NO` → `NO`), when linked.
    pub country_code: Option<String>,
    /// Country name as upstream writes it.
    pub country_name: String,
    /// Genre text.
    pub genre: String,
    /// Date and time as shown (`November 7th, 14:02`); the year is the requested month's.
    pub changed_at_text: String,
    /// Name of the user who made the change, when shown.
    pub user: Option<String>,
}

/// Parse a country list page from its JSON document (see [`super::unwrap_json`]).
pub fn parse_country_page(json: &Value) -> Result<CountryPage, ParseError> {
    let (total, data) = envelope(json)?;
    let mut rows = Vec::with_capacity(data.len());
    let mut skipped = 0;
    for row in data {
        match country_row(row) {
            Some(r) => rows.push(r),
            None => skipped += 1,
        }
    }
    Ok(CountryPage {
        total: total.unwrap_or((rows.len() + skipped) as u64),
        rows,
        skipped,
    })
}

/// Parse a change list page from its JSON document.
pub fn parse_change_page(json: &Value) -> Result<ChangePage, ParseError> {
    let (total, data) = envelope(json)?;
    let mut rows = Vec::with_capacity(data.len());
    let mut skipped = 0;
    for row in data {
        match change_row(row) {
            Some(r) => rows.push(r),
            None => skipped += 1,
        }
    }
    Ok(ChangePage {
        total: total.unwrap_or((rows.len() + skipped) as u64),
        rows,
        skipped,
    })
}

/// `iTotalRecords` (number or numeric string) and `aaData`.
fn envelope(json: &Value) -> Result<(Option<u64>, &[Value]), ParseError> {
    let obj = json
        .as_object()
        .ok_or_else(|| ParseError::Shape("top level is not an object".into()))?;
    let data = obj
        .get("aaData")
        .and_then(Value::as_array)
        .ok_or_else(|| ParseError::Shape("no aaData array".into()))?;
    let total = ["iTotalRecords", "iTotalDisplayRecords"]
        .iter()
        .filter_map(|k| obj.get(*k))
        .find_map(|v| match v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        });
    Ok((total, data))
}

fn cell(row: &[Value], i: usize) -> &str {
    row.get(i).and_then(Value::as_str).unwrap_or_default()
}

fn band_link(html: &str) -> Option<(i64, String, String)> {
    let (url, name) = first_link(html)?;
    let id = trailing_id(&url)?;
    Some((id, name, url))
}

fn country_row(row: &Value) -> Option<ListedBand> {
    let row = row.as_array()?;
    let (ma_id, name, url) = band_link(cell(row, 0))?;
    Some(ListedBand {
        ma_id,
        name,
        url,
        genre: strip_tags(cell(row, 1)),
        location: strip_tags(cell(row, 2)),
        status: strip_tags(cell(row, 3)),
    })
}

fn change_row(row: &Value) -> Option<ChangedBand> {
    let row = row.as_array()?;
    let (ma_id, name, url) = band_link(cell(row, 1))?;
    let country_cell = cell(row, 2);
    let (country_code, country_name) = match first_link(country_cell) {
        Some((href, text)) => (
            last_segment(&href)
                .filter(|cc| cc.len() == 2 && cc.chars().all(|c| c.is_ascii_alphabetic()))
                .map(str::to_ascii_uppercase),
            text,
        ),
        None => (None, strip_tags(country_cell)),
    };
    let user = Some(strip_tags(cell(row, 5))).filter(|u| !u.is_empty());
    Some(ChangedBand {
        ma_id,
        name,
        url,
        country_code,
        country_name,
        genre: strip_tags(cell(row, 3)),
        changed_at_text: strip_tags(cell(row, 4)),
        user,
    })
}
