//! The two languages of the server-rendered pages (issue 28): one catalogue per language,
//! `web/map/i18n/fr.json` and `web/map/i18n/en.json` (flat `key → text`, `{name}` placeholders),
//! embedded at build time. The language is the URL's `?lang=fr|en` when given, else the
//! browser's `Accept-Language` (highest q), else French. A key missing from one catalogue
//! fails the test below; at run time a missing text falls back to French, then to the key.

use std::collections::HashMap;
use std::sync::LazyLock;

/// A language of the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// French (the default).
    Fr,
    /// English.
    En,
}

const FR: &str = include_str!("../../../../web/map/i18n/fr.json");
const EN: &str = include_str!("../../../../web/map/i18n/en.json");

fn parse_catalogue(text: &str) -> HashMap<String, String> {
    serde_json::from_str(text).unwrap_or_else(|e| {
        tracing::error!(error = %e, "a page catalogue does not parse; its texts fall back");
        HashMap::new()
    })
}

static CATALOGUES: LazyLock<[HashMap<String, String>; 2]> =
    LazyLock::new(|| [parse_catalogue(FR), parse_catalogue(EN)]);

impl Lang {
    /// Both, French first.
    pub const ALL: [Lang; 2] = [Lang::Fr, Lang::En];

    /// `fr` or `en`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::Fr => "fr",
            Lang::En => "en",
        }
    }

    /// The language of a code or tag (`en`, `en-GB`, `FR`), if it is one of the two.
    pub fn parse(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "fr" => Some(Lang::Fr),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    /// The language of a request: `?lang=` when it names one, else `Accept-Language`.
    pub fn choose(query: Option<&str>, accept: Option<&str>) -> Lang {
        if let Some(lang) = query.and_then(Lang::parse) {
            return lang;
        }
        let mut best: Option<(f32, Lang)> = None;
        for item in accept.unwrap_or_default().split(',') {
            let mut parts = item.split(';');
            let Some(lang) = parts.next().and_then(Lang::parse) else {
                continue;
            };
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, lang));
            }
        }
        best.map_or(Lang::Fr, |(_, lang)| lang)
    }

    /// The query string that keeps this language on a link (`?lang=en`).
    pub fn query(self) -> String {
        format!("?lang={}", self.code())
    }

    /// `path` (which may hold a query) with this language in its query.
    pub fn link(self, path: &str) -> String {
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("{path}{sep}lang={}", self.code())
    }

    /// The text of `key`.
    pub fn t(self, key: &str) -> &'static str {
        let [fr, en] = &*CATALOGUES;
        let own = match self {
            Lang::Fr => fr,
            Lang::En => en,
        };
        own.get(key)
            .or_else(|| fr.get(key))
            .map_or("", String::as_str)
    }

    /// The text of `key` with its `{name}` placeholders filled.
    pub fn fill(self, key: &str, values: &[(&str, &str)]) -> String {
        values
            .iter()
            .fold(self.t(key).to_string(), |text, (name, value)| {
                text.replace(&format!("{{{name}}}"), value)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn placeholders(text: &str) -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|s| s.split_once('}').map(|(name, _)| name.to_string()))
            .collect()
    }

    /// The test of issue 28: a text present in one language and missing in the other (or
    /// empty, or with other placeholders) fails here.
    #[test]
    fn both_catalogues_have_the_same_texts() {
        let fr: HashMap<String, String> = serde_json::from_str(FR).unwrap();
        let en: HashMap<String, String> = serde_json::from_str(EN).unwrap();
        let fr_keys: BTreeSet<&String> = fr.keys().collect();
        let en_keys: BTreeSet<&String> = en.keys().collect();
        assert_eq!(
            fr_keys.difference(&en_keys).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "in fr.json, missing from en.json"
        );
        assert_eq!(
            en_keys.difference(&fr_keys).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "in en.json, missing from fr.json"
        );
        for (key, text) in &fr {
            assert!(
                !text.trim().is_empty() && !en[key].trim().is_empty(),
                "{key} empty"
            );
            assert_eq!(
                placeholders(text),
                placeholders(&en[key]),
                "{key}: placeholders differ"
            );
        }
    }

    #[test]
    fn the_url_wins_then_the_best_accepted_language_then_french() {
        assert_eq!(Lang::choose(Some("en"), Some("fr")), Lang::En);
        assert_eq!(Lang::choose(Some("FR"), Some("en")), Lang::Fr);
        assert_eq!(Lang::choose(Some("de"), Some("en-GB,en;q=0.9")), Lang::En);
        assert_eq!(
            Lang::choose(None, Some("de-DE,de;q=0.9,en;q=0.8,fr;q=0.7")),
            Lang::En
        );
        assert_eq!(
            Lang::choose(None, Some("fr-CH, fr;q=0.9, en;q=0.8")),
            Lang::Fr
        );
        assert_eq!(Lang::choose(None, Some("en;q=0, fr;q=0.1")), Lang::Fr);
        assert_eq!(Lang::choose(None, Some("de, nl")), Lang::Fr);
        assert_eq!(Lang::choose(None, None), Lang::Fr);
    }

    #[test]
    fn texts_fill_their_placeholders() {
        assert_eq!(
            Lang::En.fill("town.years", &[("first", "1990"), ("last", "2000")]),
            "Formed from 1990 to 2000."
        );
        assert_eq!(Lang::Fr.t("town.formed"), "Formés ici");
        assert_eq!(Lang::En.t("no.such.key"), "");
    }
}

/// The language of a page request (`?lang=`, then `Accept-Language`), as an extractor.
#[derive(Debug, Clone, Copy)]
pub struct PageLang(pub Lang);

/// `?lang=` of a query, when the query has one (whatever its value).
fn asked_lang(parts: &axum::http::request::Parts) -> Option<String> {
    let query = parts.uri.query().unwrap_or_default();
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "lang")
        .map(|(_, v)| v.into_owned())
}

fn accept_language(parts: &axum::http::request::Parts) -> Option<&str> {
    parts
        .headers
        .get(axum::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for PageLang {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        let asked = asked_lang(parts);
        Ok(PageLang(Lang::choose(
            asked.as_deref(),
            accept_language(parts),
        )))
    }
}

/// The language of a town or band page, with the choice in the URL: `?lang=` when the
/// query has one; without it, French, or — when the browser's `Accept-Language` prefers
/// another language — a 307 to the same URL with `?lang=` added. So one URL always holds
/// one language and a page's canonical link is its own URL (a bare URL answering in
/// English would name `?lang=en` as canonical, another `hreflang` location: search
/// engines and Lighthouse read that as an error).
#[derive(Debug, Clone, Copy)]
pub struct HtmlLang(pub Lang);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for HtmlLang {
    type Rejection = axum::response::Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        if let Some(asked) = asked_lang(parts) {
            return Ok(HtmlLang(Lang::choose(Some(&asked), accept_language(parts))));
        }
        let chosen = Lang::choose(None, accept_language(parts));
        if chosen == Lang::Fr {
            return Ok(HtmlLang(chosen));
        }
        let here = parts.uri.path_and_query().map_or_else(
            || parts.uri.path().to_string(),
            |pq| pq.as_str().to_string(),
        );
        let mut res = axum::response::IntoResponse::into_response(
            axum::response::Redirect::temporary(&chosen.link(&here)),
        );
        res.headers_mut().insert(
            axum::http::header::VARY,
            axum::http::HeaderValue::from_static("Accept-Language"),
        );
        Err(res)
    }
}
