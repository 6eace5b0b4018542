//! What the server adds to the static map page (`web/map/index.html`, issue 28): the
//! preview tags and the public origin for `/`, and for `/embed` the same page as an
//! embed — controls chosen by the URL, a credit line linking back to the full map,
//! `noindex`. The page file itself stays as the front end wrote it.
//!
//! Languages: the page's texts are the front end's (`web/map/i18n.js` picks `?lang=`, else
//! the browser's languages). The server writes the language of `?lang=` into `<html lang>`,
//! the title and the preview tags; a bare `/` keeps French tags and its canonical `/` whatever
//! the browser asks (an English answer at `/` would name `/?lang=en` as canonical, another
//! `hreflang` location). The embed's credit line speaks the page's language (`?lang=`, else
//! `Accept-Language`: the same choice as the page's script).

use super::i18n::Lang;
use super::meta::{self, PageMeta};
use maud::html;

/// The language a map page is written in, and the one its browser will read.
#[derive(Debug, Clone, Copy)]
pub struct MapLang {
    /// `?lang=` when the URL names one of the two (then tags, title and `<html lang>` follow).
    pub asked: Option<Lang>,
    /// The choice of the page's script: `asked`, else `Accept-Language`, else French.
    pub chosen: Lang,
}

impl MapLang {
    /// From a request's `?lang=` value and `Accept-Language` header.
    pub fn new(query_lang: Option<&str>, accept: Option<&str>) -> Self {
        Self {
            asked: query_lang.and_then(Lang::parse),
            chosen: Lang::choose(query_lang, accept),
        }
    }

    /// The language of the map page's tags, title and `<html lang>`: `?lang=`, else
    /// French (what [`map_page`] writes reads nothing else).
    pub fn tags(self) -> Lang {
        self.asked.unwrap_or(Lang::Fr)
    }
}

/// The controls an embed may show, their URL parameter and whether they show by default.
pub const EMBED_CONTROLS: [(&str, bool); 4] = [
    ("search", false),
    ("filters", false),
    ("timeline", false),
    ("legend", true),
];

/// `page` with `extra` inserted before `</head>` (unchanged when it has none).
fn with_head(page: &str, extra: &str) -> String {
    match page.find("</head>") {
        Some(i) => format!("{}{extra}{}", &page[..i], &page[i..]),
        None => page.to_string(),
    }
}

/// The tags of the public origin (read by the embed dialog) and the share script.
fn origin_and_share(base: &str) -> String {
    html! {
        meta name="bandmap-origin" content=(base);
    }
    .into_string()
}

/// `page` in `lang`: `<html lang>` and `<title>` (French is the file's own).
fn in_language(page: &str, lang: Lang) -> String {
    if lang == Lang::Fr {
        return page.to_string();
    }
    let page = page.replacen(
        "<html lang=\"fr\"",
        &format!("<html lang=\"{}\"", lang.code()),
        1,
    );
    match (page.find("<title>"), page.find("</title>")) {
        (Some(a), Some(b)) if a < b => format!(
            "{}<title>{}{}",
            &page[..a],
            html! { (lang.t("map.title")) }.into_string(),
            &page[b..]
        ),
        _ => page,
    }
}

/// The map page for `/`: preview tags, the origin, the "Intégrer" dialog's script.
pub fn map_page(page: &str, base: &str, lang: MapLang) -> String {
    let tags_lang = lang.tags();
    let meta = PageMeta {
        title: tags_lang.t("map.title").to_string(),
        description: tags_lang.t("map.description").to_string(),
        path: "/".to_string(),
        og_type: "website",
        lang: tags_lang,
        translated: true,
    };
    let extra = format!(
        "{}{}<link rel=\"stylesheet\" href=\"/map/share.css\">\n<script type=\"module\" src=\"/map/share.js\"></script>\n",
        meta::tags(&meta, base).into_string(),
        origin_and_share(base),
    );
    with_head(&in_language(page, tags_lang), &extra)
}

/// Whether a boolean URL parameter is on (`1`, `true`), off (`0`, `false`) or absent.
fn flag(query: &[(String, String)], name: &str) -> Option<bool> {
    query
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| match v.as_str() {
            "1" | "true" => Some(true),
            "0" | "false" => Some(false),
            _ => None,
        })
}

/// The map page for `/embed?…`: `query` is the request's decoded query. Each control of
/// [`EMBED_CONTROLS`] hidden unless asked for (a class on `<html>`, so nothing flashes);
/// the view and filters are the map's own URL parameters; a credit line links back to the
/// full map at the same view (new tab: the embed stays on the host page).
pub fn embed_page(page: &str, base: &str, query: &[(String, String)], lang: MapLang) -> String {
    let lang_text = lang.chosen;
    let mut classes = vec!["embed".to_string()];
    for (name, default) in EMBED_CONTROLS {
        if !flag(query, name).unwrap_or(default) {
            classes.push(format!("embed-no-{name}"));
        }
    }
    // The map's own parameters pass to the full map; the embed's switches do not.
    let back: Vec<(String, String)> = query
        .iter()
        .filter(|(k, _)| !EMBED_CONTROLS.iter().any(|(c, _)| c == k))
        .cloned()
        .collect();
    let back_query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(back)
        .finish();
    let back_url = if back_query.is_empty() {
        format!("{base}/")
    } else {
        format!("{base}/?{back_query}")
    };
    let head = html! {
        meta name="robots" content="noindex";
        meta name="description" content=(lang_text.t("map.description"));
        link rel="canonical" href={ (base) "/" };
        link rel="stylesheet" href="/map/embed.css";
    }
    .into_string();
    let credit = html! {
        p class="embed-credit" {
            a href=(back_url) target="_blank" rel="noopener" { (lang_text.t("embed.back")) }
            " · " (lang_text.t("embed.credits"))
        }
    }
    .into_string();
    let page = with_head(&in_language(page, lang_text), &head);
    // The classes go first in the page's `<html` tag, whatever attributes follow.
    let page = match page.find("<html") {
        Some(i) => format!(
            "{}<html class=\"{}\"{}",
            &page[..i],
            classes.join(" "),
            &page[i + "<html".len()..]
        ),
        None => page,
    };
    match page.rfind("</body>") {
        Some(i) => format!("{}{credit}{}", &page[..i], &page[i..]),
        None => page,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!doctype html>\n<html lang=\"fr\">\n<head><title>x</title></head>\n<body><main></main></body>\n</html>";

    #[test]
    fn the_map_page_gets_preview_tags_and_the_share_script() {
        let out = map_page(PAGE, "https://m.example", MapLang::new(None, Some("en")));
        assert!(out.contains(r#"<meta property="og:url" content="https://m.example/">"#));
        assert!(out.contains(r#"<meta name="description""#));
        assert!(out.contains(r#"<script type="module" src="/map/share.js"></script>"#));
        assert!(out.find("og:title").unwrap() < out.find("</head>").unwrap());
        // A bare URL keeps French tags and `/` as canonical, whatever the browser prefers.
        assert!(
            out.contains(r#"<link rel="canonical" href="https://m.example/">"#),
            "{out}"
        );
        assert!(out.contains(r#"<html lang="fr">"#));
    }

    #[test]
    fn the_map_page_asked_in_english_is_english() {
        let out = map_page(
            PAGE,
            "https://m.example",
            MapLang::new(Some("en"), Some("fr")),
        );
        assert!(out.contains(r#"<html lang="en">"#), "{out}");
        assert!(
            out.contains("<title>Band Map — Europe’s metal bands</title>"),
            "{out}"
        );
        assert!(
            out.contains(r#"<link rel="canonical" href="https://m.example/?lang=en">"#),
            "{out}"
        );
        assert!(
            out.contains(r#"hreflang="fr" href="https://m.example/""#),
            "{out}"
        );
    }

    #[test]
    fn embed_switches_controls_and_links_back_without_its_switches() {
        let q = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        let out = embed_page(
            PAGE,
            "https://m.example",
            &q(&[
                ("lat", "60"),
                ("lon", "10"),
                ("z", "6"),
                ("genre", "a\"><script>"),
                ("search", "1"),
                ("legend", "0"),
            ]),
            MapLang::new(None, None),
        );
        assert!(out.contains(r#"<html class="embed embed-no-filters embed-no-timeline embed-no-legend" lang="fr">"#), "{out}");
        assert!(out.contains("href=\"https://m.example/?lat=60&amp;lon=10&amp;z=6&amp;genre=a%22%3E%3Cscript%3E\""), "{out}");
        assert!(!out.contains("<script>"));
        assert!(out.contains(r#"<meta name="robots" content="noindex">"#));
        assert!(out.contains("voir la carte complète"));
        let plain = embed_page(PAGE, "https://m.example", &[], MapLang::new(None, None));
        assert!(
            plain.contains("class=\"embed embed-no-search embed-no-filters embed-no-timeline\"")
        );
        assert!(plain.contains("href=\"https://m.example/\""));
        let english = embed_page(
            PAGE,
            "https://m.example",
            &q(&[("lang", "en")]),
            MapLang::new(Some("en"), None),
        );
        assert!(english.contains("see the full map"), "{english}");
        assert!(english.contains(r#"lang="en""#), "{english}");
        assert!(
            english.contains("href=\"https://m.example/?lang=en\""),
            "{english}"
        );
    }
}
