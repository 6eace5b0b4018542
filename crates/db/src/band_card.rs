//! The public card of a band (`GET /api/bands/{ma_id}`): the band's catalogue values and
//! its location steps in path order, as the public API shows them.

use crate::Result;
use crate::band_locations::{GeocodeStatus, REGION_ONLY_NOTE};
use sqlx::PgPool;

// Themes, label and years active: the catalogue column when set, else what the band page
// said (`band_page`, written by the enrichment; `years_active` has no other writer).
const CARD_SQL: &str = "SELECT ma_id, name, genre, country, status, formed_year, \
     COALESCE(NULLIF(themes, ''), NULLIF(band_page->>'lyrical_themes', '')) AS themes, \
     COALESCE(NULLIF(label, ''), NULLIF(band_page->>'label', '')) AS label, \
     COALESCE(NULLIF(years_active, ''), NULLIF(band_page->>'years_active', '')) AS years_active, \
     data->>'url' AS url FROM bands WHERE ma_id = $1";
// Located only when geocoded (`$2` = the located statuses: `done`, `country_only`), like
// the map. The path order is
// the parser's (`parsed_step`, which never changes): a manual override sets `step_order`
// to -1 on the row it corrects, so ordering by `step_order` would move it to the front of
// the path; by `parsed_step` it keeps the place of the step it replaced. The client draws
// the steps in this order as they come.
const STEPS_SQL: &str = "SELECT id AS location_id, step_order, step_label, location_raw, \
     CASE WHEN geocode_status = ANY($2) THEN lat END AS lat, \
     CASE WHEN geocode_status = ANY($2) THEN lon END AS lon, \
     (geocode_status <> ALL($2) AND strpos(coalesce(error, ''), $3) > 0) AS region_only \
     FROM band_locations WHERE ma_id = $1 \
     ORDER BY parsed_step, id";

/// Public card of a band: its catalogue values and its location steps in path order.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = BandCard))]
pub struct CardRow {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Genre.
    pub genre: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// Status.
    pub status: Option<String>,
    /// Formation year.
    pub formed_year: Option<i32>,
    // Themes, label and years active: the column, else the band page's.
    /// Lyrical themes (absent when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub themes: Option<String>,
    /// Current label (absent when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Years active as the upstream writes them, e.g. `1991-2004, 2010-present` (absent
    /// when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub years_active: Option<String>,
    // When the crawl recorded none, the API writes the upstream's address of the band.
    /// Upstream page.
    pub url: Option<String>,
    // Read by a second query ([`steps`]), not a column of the card's.
    /// Location steps in path order (`parsed_step`; a manual override keeps its step's
    /// place), unlocated ones with null coordinates.
    #[sqlx(skip)]
    pub steps: Vec<CardStepRow>,
}

/// One step of a band's path.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = CardStep))]
pub struct CardStepRow {
    /// `band_locations.id`.
    pub location_id: i64,
    /// Display order (-1: manual override).
    pub step_order: i32,
    /// Label of the step.
    pub step_label: Option<String>,
    /// Location text.
    pub location_raw: String,
    // Coordinates only for a located status; a non-finite one is written `null` by
    // serde_json, so it shows as unknown.
    /// Latitude when located.
    pub lat: Option<f64>,
    /// Longitude when located.
    pub lon: Option<f64>,
    // From the geocoder's note.
    /// True when the step is not located because its text names a region alone (issue
    /// 30: the card says "région seulement"); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "openapi", schema(default = false))]
    pub region_only: bool,
}

/// The card of band `ma_id` with its [`steps`], or None when there is no such band.
pub async fn card(pool: &PgPool, ma_id: i64) -> Result<Option<CardRow>> {
    let card: Option<CardRow> = sqlx::query_as(CARD_SQL)
        .bind(ma_id)
        .fetch_optional(pool)
        .await?;
    let Some(mut card) = card else {
        return Ok(None);
    };
    card.steps = steps(pool, ma_id).await?;
    Ok(Some(card))
}

/// The steps of band `ma_id` in path order (`parsed_step`, then id).
pub async fn steps(pool: &PgPool, ma_id: i64) -> Result<Vec<CardStepRow>> {
    Ok(sqlx::query_as(STEPS_SQL)
        .bind(ma_id)
        .bind(&GeocodeStatus::LOCATED[..])
        .bind(REGION_ONLY_NOTE)
        .fetch_all(pool)
        .await?)
}
