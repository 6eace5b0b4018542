//! `GET /band/{ma_id}`: one band — its genre, country, status and year, its path step by
//! step (each located place linking to its town page), its upstream page and a link to
//! the map with its card open. An unknown or malformed id answers the 404 page.

use super::i18n::{HtmlLang, Lang};
use super::layout;
use super::meta::PageMeta;
use super::not_found::{self, Missing};
use super::{origin, town, upstream_link};
use crate::error::ApiError;
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use bandmap_db::pages::band::{self, BandPage, PageStep};
use maud::{Markup, html};

/// The canonical path of band `ma_id`.
pub fn path(ma_id: i64) -> String {
    format!("/band/{ma_id}")
}

/// `/band/{ma_id}`.
pub async fn page(
    State(state): State<AppState>,
    HtmlLang(lang): HtmlLang,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let Some(ma_id) = id.parse::<i64>().ok().filter(|&n| n > 0) else {
        return Ok(not_found::page(lang, Missing::Band));
    };
    let Some(b) = band::band(&state.public_pool, ma_id).await? else {
        return Ok(not_found::page(lang, Missing::Band));
    };
    let steps = group_steps(band::steps(&state.public_pool, ma_id).await?);
    let base = origin::public_base(&state.config);
    let upstream = upstream_link::band_url(&state.config, ma_id, b.url.as_deref());
    let meta = PageMeta {
        title: match b.genre.as_deref().filter(|g| !g.is_empty()) {
            Some(genre) => format!("{} — {genre} · Band Map", b.name),
            None => format!("{} · Band Map", b.name),
        },
        description: describe(lang, &b, &steps),
        path: path(ma_id),
        og_type: "website",
        lang,
        translated: true,
    };
    Ok(layout::respond(
        StatusCode::OK,
        layout::page(&meta, &base, content(lang, &b, &steps, &upstream)),
    ))
}

/// The steps of one parser step (a text naming two places gives two rows).
struct Step {
    label: Option<String>,
    places: Vec<PageStep>,
}

fn group_steps(rows: Vec<PageStep>) -> Vec<Step> {
    let mut out: Vec<(i32, Step)> = Vec::new();
    for row in rows {
        match out.last_mut() {
            Some((n, step)) if *n == row.parsed_step => step.places.push(row),
            _ => out.push((
                row.parsed_step,
                Step {
                    label: row.step_label.clone(),
                    places: vec![row],
                },
            )),
        }
    }
    out.into_iter().map(|(_, s)| s).collect()
}

/// The name a step's place is shown with: the parser's city, else the text.
fn place_name(p: &PageStep) -> &str {
    p.city
        .as_deref()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or(&p.location_raw)
}

fn describe(lang: Lang, b: &BandPage, steps: &[Step]) -> String {
    let mut facts: Vec<String> = Vec::new();
    if let Some(genre) = b.genre.as_deref().filter(|g| !g.is_empty()) {
        facts.push(genre.to_string());
    }
    if let Some(country) = b.country.as_deref().filter(|c| !c.is_empty()) {
        facts.push(country.to_string());
    }
    if let Some(year) = b.formed_year {
        facts.push(lang.fill("band.formed_in", &[("year", &year.to_string())]));
    }
    let mut text = if facts.is_empty() {
        lang.fill("band.description_plain", &[("name", &b.name)])
    } else {
        lang.fill(
            "band.description_facts",
            &[("name", &b.name), ("facts", &facts.join(", "))],
        )
    };
    let path: Vec<String> = steps
        .iter()
        .map(|s| {
            s.places
                .iter()
                .map(place_name)
                .collect::<Vec<_>>()
                .join(" / ")
        })
        .collect();
    if !path.is_empty() {
        text.push(' ');
        text.push_str(&lang.fill("band.description_path", &[("path", &path.join(" → "))]));
    }
    text.push(' ');
    text.push_str(lang.t("band.description_end"));
    text
}

fn content(lang: Lang, b: &BandPage, steps: &[Step], upstream: &str) -> Markup {
    html! {
        h1 { (b.name) }
        dl class="facts" {
            dt { (lang.t("table.genre")) } dd { (b.genre.as_deref().unwrap_or("—")) }
            dt { (lang.t("band.country")) } dd { (b.country.as_deref().unwrap_or("—")) }
            dt { (lang.t("table.status")) } dd { (b.status.as_deref().unwrap_or("—")) }
            dt { (lang.t("table.formed")) } dd { @if let Some(y) = b.formed_year { (y) } @else { "—" } }
        }
        h2 { (lang.t("band.path")) }
        @if steps.is_empty() {
            p { (lang.t("band.no_place")) }
        } @else {
            ol class="path" {
                @for s in steps {
                    li {
                        @if let Some(label) = s.label.as_deref().filter(|l| !l.is_empty()) {
                            span class="step-label" { (label) " : " }
                        }
                        @for (i, p) in s.places.iter().enumerate() {
                            @if i > 0 { " / " }
                            (place(lang, p))
                        }
                    }
                }
            }
        }
        p class="links" {
            a class="button" href={ "/?band=" (b.ma_id) } { (lang.t("band.map_link")) }
            " "
            a href=(upstream) rel="noopener" { (lang.t("band.upstream_link")) }
        }
    }
}

fn place(lang: Lang, p: &PageStep) -> Markup {
    html! {
        @if let Some(key) = p.town() {
            a href=(lang.link(&town::path(key, place_name(p)))) { (p.location_raw) }
        } @else if p.lat.is_some() {
            (p.location_raw) " " span class="note" { (lang.t("band.country_only")) }
        } @else {
            (p.location_raw) " " span class="note" { (lang.t("band.unlocated")) }
        }
    }
}
