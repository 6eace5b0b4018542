//! The tags that make a link preview (issue 28): `<meta name="description">`, canonical
//! link, OpenGraph (`og:*`) and Twitter card tags, with a static preview image
//! (`/map/preview.png`, 1200×630). Used by the town and band pages and written into the
//! map page and the embed by [`crate::web`].

use maud::{Markup, html};

/// The static preview image (no browser runs on the server to draw one per page).
pub const PREVIEW_IMAGE: &str = "/map/preview.png";
/// Its size, as the tags announce it.
pub const PREVIEW_SIZE: (u32, u32) = (1200, 630);
/// Site name in previews.
pub const SITE_NAME: &str = "Band Map";
/// Longest description, in characters (search engines cut near 160).
const MAX_DESCRIPTION: usize = 200;

/// What one page says about itself.
#[derive(Debug, Clone)]
pub struct PageMeta {
    /// `<title>` and `og:title`.
    pub title: String,
    /// Meta description and `og:description` (cut to 200 characters).
    pub description: String,
    /// Absolute canonical URL (`og:url`).
    pub canonical: String,
    /// `og:type` (`website`, `profile`, `place`…).
    pub og_type: &'static str,
}

/// `text` cut to `max` characters at a word, with an ellipsis when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':']))
}

/// The tags of `meta`, for a site at `base` (absolute origin).
pub fn tags(meta: &PageMeta, base: &str) -> Markup {
    let description = shorten(&meta.description, MAX_DESCRIPTION);
    let image = format!("{base}{PREVIEW_IMAGE}");
    html! {
        meta name="description" content=(description);
        link rel="canonical" href=(meta.canonical);
        meta property="og:site_name" content=(SITE_NAME);
        meta property="og:type" content=(meta.og_type);
        meta property="og:title" content=(meta.title);
        meta property="og:description" content=(description);
        meta property="og:url" content=(meta.canonical);
        meta property="og:image" content=(image);
        meta property="og:image:width" content=(PREVIEW_SIZE.0);
        meta property="og:image:height" content=(PREVIEW_SIZE.1);
        meta property="og:image:alt" content="Carte des groupes de metal d’Europe";
        meta property="og:locale" content="fr_FR";
        meta name="twitter:card" content="summary_large_image";
        meta name="twitter:title" content=(meta.title);
        meta name="twitter:description" content=(description);
        meta name="twitter:image" content=(image);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_cut_at_a_word() {
        assert_eq!(shorten("short", 10), "short");
        assert_eq!(shorten("one two three four", 12), "one two…");
        assert!(shorten(&"x".repeat(300), 200).chars().count() <= 200);
    }

    #[test]
    fn tags_escape_their_values() {
        let m = PageMeta {
            title: "\"><script>alert(1)</script>".into(),
            description: "<img src=x onerror=alert(1)>".into(),
            canonical: "https://a.example/band/1".into(),
            og_type: "profile",
        };
        let out = tags(&m, "https://a.example").into_string();
        assert!(!out.contains("<script>") && !out.contains("<img"), "{out}");
        assert!(
            out.contains(
                r#"<meta property="og:image" content="https://a.example/map/preview.png">"#
            ),
            "{out}"
        );
    }
}
