//! The CSV writer of the export: `#` comment lines with the credits, a header row, one
//! row per point. Every text cell is quoted (quotes doubled), and a cell a spreadsheet
//! would read as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`: band
//! names are outside text.

use super::Point;
use std::fmt::Write;

const COLUMNS: &str =
    "ma_id,name,url,step_order,step_label,town,town_id,town_url,country,lat,lon,placed_by";

/// The credit lines and the header row.
pub fn head(credits: &str) -> String {
    let one_line: String = credits.chars().filter(|c| !c.is_control()).collect();
    format!("# {one_line}\n{COLUMNS}\n")
}

/// A quoted text cell.
fn cell(text: Option<&str>) -> String {
    let Some(text) = text else {
        return String::new();
    };
    let guarded = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    format!("\"{}\"", guarded.replace('"', "\"\""))
}

/// The rows of one batch.
pub fn rows(points: &[Point]) -> String {
    let mut out = String::with_capacity(points.len() * 200);
    for p in points {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            p.ma_id,
            cell(Some(&p.name)),
            cell(Some(&p.url)),
            p.step_order,
            cell(p.step_label.as_deref()),
            cell(p.town.as_deref()),
            cell(p.town_id.as_deref()),
            cell(p.town_url.as_deref()),
            cell(p.country.as_deref()),
            p.lat,
            p.lon,
            p.placed_by,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_quoted_and_formulas_defused() {
        assert_eq!(cell(None), "");
        assert_eq!(cell(Some("Mayhem")), "\"Mayhem\"");
        assert_eq!(cell(Some("a \"b\", c")), "\"a \"\"b\"\", c\"");
        assert_eq!(
            cell(Some("=HYPERLINK(\"x\")")),
            "\"'=HYPERLINK(\"\"x\"\")\""
        );
        assert_eq!(cell(Some("line\nbreak")), "\"line\nbreak\"");
        assert!(head("a\nb").starts_with("# ab\n"));
    }
}
