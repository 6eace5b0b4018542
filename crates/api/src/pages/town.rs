//! `GET /town/{key}/{slug}`: what came from one town — the bands formed there, those that
//! arrived and those that left, their genres and years, and a link to the map there. The
//! key is the town's point ([`TownKey`], stable while its rows keep their point); the slug
//! is its name, for readers. A key written another way, or a missing or outdated slug,
//! answers 308 (permanent) to the canonical URL; an unknown key the 404 page.

use super::i18n::{HtmlLang, Lang};
use super::layout;
use super::meta::PageMeta;
use super::not_found::{self, Missing};
use super::{origin, slug};
use crate::error::ApiError;
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use bandmap_db::pages::TownKey;
use bandmap_db::pages::town::{self, Town, TownBand};
use maud::{Markup, html};

/// Zoom of the map link of a town.
const MAP_ZOOM: u8 = 11;
/// Genres named in the summary.
const TOP_GENRES: usize = 5;

/// The canonical path of the town at `key` named `name`.
pub fn path(key: TownKey, name: &str) -> String {
    format!("/town/{key}/{}", slug::slug(name))
}

/// The map page centred on `key`.
pub fn map_link(key: TownKey) -> String {
    format!("/?lat={:.4}&lon={:.4}&z={MAP_ZOOM}", key.lat(), key.lon())
}

/// `/town/{key}`: redirects to the canonical URL (or 404).
pub async fn page(
    State(state): State<AppState>,
    HtmlLang(lang): HtmlLang,
    Path(key): Path<String>,
) -> Result<Response, ApiError> {
    render(&state, lang, &key, None).await
}

/// `/town/{key}/{slug}`.
pub async fn page_with_slug(
    State(state): State<AppState>,
    HtmlLang(lang): HtmlLang,
    Path((key, slug)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    render(&state, lang, &key, Some(&slug)).await
}

async fn render(
    state: &AppState,
    lang: Lang,
    key_text: &str,
    slug: Option<&str>,
) -> Result<Response, ApiError> {
    let Some(key) = TownKey::parse(key_text) else {
        return Ok(not_found::page(lang, Missing::Town));
    };
    let Some(town) = town::town(&state.public_pool, key).await? else {
        return Ok(not_found::page(lang, Missing::Town));
    };
    let canonical = path(key, town.name());
    if key.to_string() != key_text || slug != canonical.rsplit('/').next() {
        return Ok(Redirect::permanent(&lang.link(&canonical)).into_response());
    }
    let bands = town::bands(&state.public_pool, key).await?;
    let base = origin::public_base(&state.config);
    let meta = PageMeta {
        title: lang.fill("town.title", &[("place", &place_name(&town))]),
        description: describe(lang, &town, &bands),
        path: canonical,
        og_type: "website",
        lang,
        translated: true,
    };
    let content = content(lang, key, &town, &bands);
    Ok(layout::respond(
        StatusCode::OK,
        layout::page(&meta, &base, content),
    ))
}

/// `Oslo, Norway`.
fn place_name(town: &Town) -> String {
    match town.country.as_deref().filter(|c| !c.is_empty()) {
        Some(country) => format!("{}, {country}", town.name()),
        None => town.name().to_string(),
    }
}

/// The most frequent genre words of `bands` (`Black/Death Metal` counts for both).
fn top_genres(bands: &[TownBand]) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for genre in bands.iter().filter_map(|b| b.genre.as_deref()) {
        for part in without_periods(genre).split(['/', ',', ';']) {
            let word = part.trim().trim_end_matches(" Metal").trim();
            if word.is_empty() {
                continue;
            }
            match counts
                .iter_mut()
                .find(|(w, _)| w.eq_ignore_ascii_case(word))
            {
                Some((_, n)) => *n += 1,
                None => counts.push((word.to_string(), 1)),
            }
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
        .into_iter()
        .take(TOP_GENRES)
        .map(|(w, _)| w)
        .collect()
}

/// `genre` without its era notes (`Black Metal (early); Ambient (later)` → `Black Metal ;
/// Ambient `).
fn without_periods(genre: &str) -> String {
    let mut out = String::with_capacity(genre.len());
    let mut depth = 0u32;
    for c in genre.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn years(bands: &[TownBand]) -> Option<(i32, i32)> {
    let mut it = bands.iter().filter_map(|b| b.formed_year);
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), y| (lo.min(y), hi.max(y))))
}

fn counts(bands: &[TownBand]) -> (usize, usize, usize) {
    (
        bands.iter().filter(|b| b.formed_here).count(),
        bands.iter().filter(|b| b.arrived).count(),
        bands.iter().filter(|b| b.left_town).count(),
    )
}

fn describe(lang: Lang, town: &Town, bands: &[TownBand]) -> String {
    let (formed, arrived, left) = counts(bands);
    let mut text = lang.fill(
        "town.description",
        &[
            ("place", &place_name(town)),
            ("bands", &bands.len().to_string()),
            ("formed", &formed.to_string()),
            ("arrived", &arrived.to_string()),
            ("left", &left.to_string()),
        ],
    );
    let genres = top_genres(bands);
    if !genres.is_empty() {
        text.push(' ');
        text.push_str(&lang.fill("town.genres", &[("genres", &genres.join(", "))]));
    }
    if let Some((lo, hi)) = years(bands) {
        text.push(' ');
        text.push_str(&lang.fill(
            "town.years",
            &[("first", &lo.to_string()), ("last", &hi.to_string())],
        ));
    }
    text
}

fn content(lang: Lang, key: TownKey, town: &Town, bands: &[TownBand]) -> Markup {
    let (formed, arrived, left) = counts(bands);
    let genres = top_genres(bands);
    let summary = lang.fill(
        "town.summary",
        &[
            ("bands", &bands.len().to_string()),
            ("formed", &formed.to_string()),
            ("arrived", &arrived.to_string()),
            ("left", &left.to_string()),
        ],
    );
    html! {
        h1 { (town.name()) }
        @if let Some(country) = town.country.as_deref().filter(|c| !c.is_empty()) {
            p class="lede" { (country) }
        }
        p { (summary) }
        @if !genres.is_empty() { p { (lang.fill("town.genres", &[("genres", &genres.join(", "))])) } }
        @if let Some((lo, hi)) = years(bands) {
            p { (lang.fill("town.years", &[("first", &lo.to_string()), ("last", &hi.to_string())])) }
        }
        p { a class="button" href=(map_link(key)) { (lang.t("town.map_link")) } }
        (section(lang, "town.formed", "formed", bands.iter().filter(|b| b.formed_here)))
        (section(lang, "town.arrived", "arrived", bands.iter().filter(|b| b.arrived)))
        (section(lang, "town.left", "left", bands.iter().filter(|b| b.left_town)))
    }
}

fn section<'a>(
    lang: Lang,
    title: &str,
    id: &str,
    bands: impl Iterator<Item = &'a TownBand>,
) -> Markup {
    let bands: Vec<&TownBand> = bands.collect();
    html! {
        @if !bands.is_empty() {
            section id=(id) aria-labelledby={ (id) "-title" } {
                h2 id={ (id) "-title" } { (lang.t(title)) " (" (bands.len()) ")" }
                table class="bands" {
                    thead { tr {
                        th scope="col" { (lang.t("table.band")) }
                        th scope="col" { (lang.t("table.genre")) }
                        th scope="col" { (lang.t("table.formed")) }
                        th scope="col" { (lang.t("table.status")) }
                    } }
                    tbody {
                        @for b in &bands {
                            tr {
                                td { a href=(lang.link(&super::band::path(b.ma_id))) { (b.name) } }
                                td { (b.genre.as_deref().unwrap_or("—")) }
                                td { @if let Some(y) = b.formed_year { (y) } @else { "—" } }
                                td { (b.status.as_deref().unwrap_or("—")) }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(genre: &str) -> TownBand {
        TownBand {
            ma_id: 1,
            name: "x".into(),
            genre: Some(genre.into()),
            status: None,
            formed_year: None,
            formed_here: true,
            arrived: false,
            left_town: false,
        }
    }

    #[test]
    fn genre_words_count_once_each_without_era_notes() {
        let bands = [
            band("Black Metal (early); Black 'n' Roll (later)"),
            band("Black/Thrash Metal"),
            band("Thrash Metal"),
            band("Experimental/Ambient (later)"),
        ];
        assert_eq!(
            top_genres(&bands),
            [
                "Black",
                "Thrash",
                "Ambient",
                "Black 'n' Roll",
                "Experimental"
            ]
        );
    }
}
