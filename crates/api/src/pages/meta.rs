//! The tags that make a link preview (issue 28): `<meta name="description">`, canonical
//! link, OpenGraph (`og:*`) and Twitter card tags, with a static preview image
//! (`/map/preview.png`, 1200×630). Used by the town and band pages and written into the
//! map page and the embed by [`crate::web`].

use super::i18n::Lang;
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
    /// Path of the page (`/band/1`); the canonical URL is the origin, the path and, for
    /// English, `?lang=en`.
    pub path: String,
    /// `og:type` (`website`, `profile`, `place`…).
    pub og_type: &'static str,
    /// The language of this answer.
    pub lang: Lang,
    /// Whether the page exists in both languages (`hreflang` alternates).
    pub translated: bool,
}

/// The canonical URL of `path` in `lang`: French without a parameter.
pub fn canonical(base: &str, path: &str, lang: Lang) -> String {
    match lang {
        Lang::Fr => format!("{base}{path}"),
        Lang::En => format!("{base}{path}{}", lang.query()),
    }
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
    let url = canonical(base, &meta.path, meta.lang);
    let lang = meta.lang;
    html! {
        meta name="description" content=(description);
        link rel="canonical" href=(url);
        @if meta.translated {
            @for l in Lang::ALL {
                link rel="alternate" hreflang=(l.code()) href=(canonical(base, &meta.path, l));
            }
            link rel="alternate" hreflang="x-default" href=(canonical(base, &meta.path, Lang::Fr));
        }
        meta property="og:site_name" content=(SITE_NAME);
        meta property="og:type" content=(meta.og_type);
        meta property="og:title" content=(meta.title);
        meta property="og:description" content=(description);
        meta property="og:url" content=(url);
        meta property="og:image" content=(image);
        meta property="og:image:width" content=(PREVIEW_SIZE.0);
        meta property="og:image:height" content=(PREVIEW_SIZE.1);
        meta property="og:image:alt" content=(lang.t("site.map_alt"));
        meta property="og:locale" content=(lang.t("lang.locale"));
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
            path: "/band/1".into(),
            og_type: "profile",
            lang: Lang::En,
            translated: true,
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
