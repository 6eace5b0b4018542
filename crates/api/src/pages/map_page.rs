//! What the server adds to the static map page (`web/map/index.html`, issue 28): the
//! preview tags and the public origin for `/`, and for `/embed` the same page as an
//! embed — controls chosen by the URL, a credit line linking back to the full map,
//! `noindex`. The page file itself stays as the front end wrote it.

use super::i18n::Lang;
use super::meta::{self, PageMeta};
use maud::html;

/// Title of the map in previews.
pub const MAP_TITLE: &str = "Band Map — les groupes de metal d’Europe";
/// Description of the map page.
pub const MAP_DESCRIPTION: &str = "La carte des groupes de metal d’Europe : où chaque groupe \
     s’est formé, où il est allé, par ville, genre et année. Pages des villes et des groupes, \
     export des données.";

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

/// The map page for `/`: preview tags, the origin, the "Intégrer" dialog's script.
pub fn map_page(page: &str, base: &str) -> String {
    let meta = PageMeta {
        title: MAP_TITLE.to_string(),
        description: MAP_DESCRIPTION.to_string(),
        path: "/".to_string(),
        og_type: "website",
        lang: Lang::Fr,
        translated: false,
    };
    let extra = format!(
        "{}{}<link rel=\"stylesheet\" href=\"/map/share.css\">\n<script type=\"module\" src=\"/map/share.js\"></script>\n",
        meta::tags(&meta, base).into_string(),
        origin_and_share(base),
    );
    with_head(page, &extra)
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
pub fn embed_page(page: &str, base: &str, query: &[(String, String)]) -> String {
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
        meta name="description" content=(MAP_DESCRIPTION);
        link rel="canonical" href={ (base) "/" };
        link rel="stylesheet" href="/map/embed.css";
    }
    .into_string();
    let credit = html! {
        p class="embed-credit" {
            a href=(back_url) target="_blank" rel="noopener" { "Band Map — voir la carte complète ↗" }
            " · groupes : Encyclopaedia Metallum · lieux : GeoNames (CC BY 4.0)"
        }
    }
    .into_string();
    let page = with_head(page, &head);
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
        let out = map_page(PAGE, "https://m.example");
        assert!(out.contains(r#"<meta property="og:url" content="https://m.example/">"#));
        assert!(out.contains(r#"<meta name="description""#));
        assert!(out.contains(r#"<script type="module" src="/map/share.js"></script>"#));
        assert!(out.find("og:title").unwrap() < out.find("</head>").unwrap());
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
        );
        assert!(out.contains(r#"<html class="embed embed-no-filters embed-no-timeline embed-no-legend" lang="fr">"#), "{out}");
        assert!(out.contains("href=\"https://m.example/?lat=60&amp;lon=10&amp;z=6&amp;genre=a%22%3E%3Cscript%3E\""), "{out}");
        assert!(!out.contains("<script>"));
        assert!(out.contains(r#"<meta name="robots" content="noindex">"#));
        let plain = embed_page(PAGE, "https://m.example", &[]);
        assert!(
            plain.contains("class=\"embed embed-no-search embed-no-filters embed-no-timeline\"")
        );
        assert!(plain.contains("href=\"https://m.example/\""));
    }
}
