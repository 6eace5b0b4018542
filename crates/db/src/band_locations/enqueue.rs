//! band_locations queries of the enqueue daemon (rules 11, 12): find the bands that have
//! no `band_locations` row yet, keyset-paged by `ma_id`, and insert many rows in one
//! statement (`UNNEST` arrays). Idempotence is the unique index `band_locations_identity`
//! `(ma_id, parsed_step, location_raw)`: the insert says `ON CONFLICT DO NOTHING` and
//! returns only the rows it really created.
//!
//! Rows are planned from a band as it was read, and inserted later (the scan pipelines its
//! pages). Rule 20 deletes a band's rows when its `location_text` changes; rows inserted
//! after that delete, from the old text, would survive and the band would never be read
//! again (it has rows). So the insert creates a band's rows only while the band still has
//! the columns they were planned from ([`PlannedFrom`]), and reports the other bands as
//! stale.

use super::status::GeocodeStatus;
use crate::Result;
use sqlx::{PgConnection, PgPool};

/// A band that has no `band_locations` row.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct UnqueuedBand {
    /// Upstream id.
    pub ma_id: i64,
    /// Free-text upstream location.
    pub location_text: Option<String>,
    /// Country name as the upstream writes it.
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country_code: Option<String>,
}

/// Up to `limit` bands with `ma_id > after` and no `band_locations` row, by `ma_id`.
/// Pass the last `ma_id` of a page as `after` to read the next one.
pub async fn bands_without_rows(
    conn: impl sqlx::PgExecutor<'_>,
    after: i64,
    limit: i64,
) -> Result<Vec<UnqueuedBand>> {
    Ok(sqlx::query_as(
        "SELECT b.ma_id, b.location_text, b.country, b.country_code
         FROM bands b
         WHERE b.ma_id > $1
           AND NOT EXISTS (SELECT 1 FROM band_locations l WHERE l.ma_id = b.ma_id)
         ORDER BY b.ma_id
         LIMIT $2",
    )
    .bind(after)
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// How a new row starts its life.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// Queued for the geocoder (`pending`).
    Pending,
    /// Resolved at once with the country's centroid (`country_only`, granularity
    /// `country`, provider `centroid`).
    CountryCentroid {
        /// Latitude of the centroid.
        lat: f64,
        /// Longitude of the centroid.
        lon: f64,
        /// Confidence stored with the point (0.1 by the contract).
        confidence: f64,
    },
}

/// The band columns a row was planned from. The insert skips the row's band unless the
/// band still has exactly these values (`IS NOT DISTINCT FROM`, so NULL matches NULL).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlannedFrom {
    /// `bands.location_text` as read.
    pub location_text: Option<String>,
    /// `bands.country` as read.
    pub country: Option<String>,
    /// `bands.country_code` as read.
    pub country_code: Option<String>,
}

impl From<&UnqueuedBand> for PlannedFrom {
    fn from(b: &UnqueuedBand) -> Self {
        PlannedFrom {
            location_text: b.location_text.clone(),
            country: b.country.clone(),
            country_code: b.country_code.clone(),
        }
    }
}

/// One row to create: one place of one step of a band.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLocation {
    /// Band.
    pub ma_id: i64,
    /// The band's columns the row was planned from (see [`PlannedFrom`]).
    pub planned_from: PlannedFrom,
    /// The parser's step order: stored as both `step_order` and `parsed_step`.
    pub step: i32,
    /// `step_label`.
    pub label: String,
    /// `location_raw`: the place as the parser wrote it (part of the identity key).
    pub raw: String,
    /// Most specific name, if any.
    pub city: Option<String>,
    /// Enclosing areas, most specific first.
    pub regions: Vec<String>,
    /// Country name.
    pub country: Option<String>,
    /// ISO2 code.
    pub country_code: Option<String>,
    /// Initial state.
    pub start: Start,
}

/// A row the insert created.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Created {
    /// `band_locations.id`.
    pub id: i64,
    /// Band.
    pub ma_id: i64,
    /// `geocode_status` it was created with.
    pub geocode_status: GeocodeStatus,
}

/// What one insert did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inserted {
    /// The rows created (rows whose identity already existed are not in it).
    pub created: Vec<Created>,
    /// Bands whose rows were not inserted because the band changed (its location text or
    /// country differs from [`PlannedFrom`]) or disappeared since it was read; ascending.
    pub stale_bands: Vec<i64>,
}

/// One result row of the insert: a created row, or (`id` NULL) a stale band.
#[derive(sqlx::FromRow)]
struct Outcome {
    id: Option<i64>,
    ma_id: i64,
    geocode_status: Option<GeocodeStatus>,
}

/// Separator of the region lists packed into one text per row: PostgreSQL arrays cannot
/// be ragged, so `regions` travels as text and `string_to_array` unpacks it. The parser
/// removes control characters, so U+001F never occurs in a name (and is blanked if it did).
const REGION_SEP: char = '\u{1f}';

fn pack_regions(regions: &[String]) -> String {
    regions
        .iter()
        .map(|r| r.replace(REGION_SEP, " "))
        .collect::<Vec<_>>()
        .join(&REGION_SEP.to_string())
}

/// Column arrays of an `UNNEST` insert.
#[derive(Default)]
struct Columns {
    ma_id: Vec<i64>,
    step: Vec<i32>,
    label: Vec<String>,
    raw: Vec<String>,
    city: Vec<Option<String>>,
    regions: Vec<String>,
    country: Vec<Option<String>>,
    country_code: Vec<Option<String>>,
    from_text: Vec<Option<String>>,
    from_country: Vec<Option<String>>,
    from_code: Vec<Option<String>>,
    status: Vec<GeocodeStatus>,
    lat: Vec<Option<f64>>,
    lon: Vec<Option<f64>>,
    confidence: Vec<Option<f64>>,
    provider: Vec<Option<&'static str>>,
    granularity: Vec<Option<&'static str>>,
}

impl Columns {
    fn from_rows(rows: &[NewLocation]) -> Self {
        let mut c = Columns::default();
        for r in rows {
            c.ma_id.push(r.ma_id);
            c.step.push(r.step);
            c.label.push(r.label.clone());
            c.raw.push(r.raw.clone());
            c.city.push(r.city.clone());
            c.regions.push(pack_regions(&r.regions));
            c.country.push(r.country.clone());
            c.country_code.push(r.country_code.clone());
            c.from_text.push(r.planned_from.location_text.clone());
            c.from_country.push(r.planned_from.country.clone());
            c.from_code.push(r.planned_from.country_code.clone());
            match r.start {
                Start::Pending => {
                    c.status.push(GeocodeStatus::Pending);
                    c.lat.push(None);
                    c.lon.push(None);
                    c.confidence.push(None);
                    c.provider.push(None);
                    c.granularity.push(None);
                }
                Start::CountryCentroid {
                    lat,
                    lon,
                    confidence,
                } => {
                    c.status.push(GeocodeStatus::CountryOnly);
                    c.lat.push(Some(lat));
                    c.lon.push(Some(lon));
                    c.confidence.push(Some(confidence));
                    c.provider.push(Some(super::CENTROID_PROVIDER));
                    c.granularity.push(Some("country"));
                }
            }
        }
        c
    }
}

/// Inserts `rows` in one statement; rows whose identity already exists are left alone.
/// Only bands that still have the columns their rows were planned from get rows; the
/// others are returned as stale. One failing row fails the whole statement (the caller
/// may then insert band by band to isolate it).
///
/// The bands are locked `FOR SHARE` until the caller's transaction ends: an update of
/// `location_text` running at the same time either commits first (the re-checked join no
/// longer matches: the band is stale) or waits for this transaction, and its rule-20
/// trigger then deletes the committed rows. Without the lock, an update committed after
/// this statement's snapshot would delete only the rows it could see and miss these.
pub async fn insert_locations(conn: &mut PgConnection, rows: &[NewLocation]) -> Result<Inserted> {
    if rows.is_empty() {
        return Ok(Inserted::default());
    }
    let c = Columns::from_rows(rows);
    let outcomes: Vec<Outcome> = sqlx::query_as(
        "WITH r AS (
             SELECT * FROM UNNEST($1::bigint[], $2::integer[], $3::text[], $4::text[],
                                  $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                                  $10::float8[], $11::float8[], $12::float8[], $13::text[],
                                  $14::text[], $15::text[], $16::text[], $17::text[])
                  AS r(ma_id, step, label, raw, city, regions, country, country_code,
                       status, lat, lon, confidence, provider, granularity,
                       from_text, from_country, from_code)
         ),
         unchanged AS (
             SELECT b.ma_id
             FROM bands b
             JOIN (SELECT DISTINCT ma_id, from_text, from_country, from_code FROM r) p
               ON p.ma_id = b.ma_id
              AND b.location_text IS NOT DISTINCT FROM p.from_text
              AND b.country IS NOT DISTINCT FROM p.from_country
              AND b.country_code IS NOT DISTINCT FROM p.from_code
             ORDER BY b.ma_id
             FOR SHARE OF b
         ),
         ins AS (
             INSERT INTO band_locations (
                 ma_id, step_order, parsed_step, step_label, location_raw, city, regions,
                 country, country_code, geocode_status, lat, lon, confidence, provider,
                 geocode_granularity)
             SELECT r.ma_id, r.step, r.step, r.label, r.raw, r.city,
                    CASE WHEN r.regions = '' THEN '{}'::text[]
                         ELSE string_to_array(r.regions, chr(31)) END,
                    r.country, r.country_code, r.status, r.lat, r.lon, r.confidence,
                    r.provider, r.granularity
             FROM r JOIN unchanged u ON u.ma_id = r.ma_id
             ON CONFLICT (ma_id, parsed_step, location_raw) DO NOTHING
             RETURNING id, ma_id, geocode_status
         )
         SELECT id, ma_id, geocode_status FROM ins
         UNION ALL
         SELECT DISTINCT NULL::bigint, r.ma_id, NULL::text FROM r
         WHERE NOT EXISTS (SELECT 1 FROM unchanged u WHERE u.ma_id = r.ma_id)",
    )
    .bind(&c.ma_id)
    .bind(&c.step)
    .bind(&c.label)
    .bind(&c.raw)
    .bind(&c.city)
    .bind(&c.regions)
    .bind(&c.country)
    .bind(&c.country_code)
    .bind(&c.status)
    .bind(&c.lat)
    .bind(&c.lon)
    .bind(&c.confidence)
    .bind(&c.provider)
    .bind(&c.granularity)
    .bind(&c.from_text)
    .bind(&c.from_country)
    .bind(&c.from_code)
    .fetch_all(conn)
    .await?;
    let mut out = Inserted::default();
    for o in outcomes {
        match (o.id, o.geocode_status) {
            (Some(id), Some(geocode_status)) => out.created.push(Created {
                id,
                ma_id: o.ma_id,
                geocode_status,
            }),
            _ => out.stale_bands.push(o.ma_id),
        }
    }
    out.stale_bands.sort_unstable();
    Ok(out)
}

/// What the heartbeat needs to know of past scans.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct ScanHistory {
    /// Status of the latest finished `geocoder_enqueue` run, if any.
    pub last_status: Option<String>,
    /// Its error text.
    pub last_error: Option<String>,
    /// Seconds since the latest `success` run finished (database clock), if any.
    pub success_age_secs: Option<f64>,
}

/// The latest finished enqueue run and the age of the latest successful one.
pub async fn scan_history(pool: &PgPool) -> Result<ScanHistory> {
    Ok(sqlx::query_as(
        "SELECT l.status AS last_status, l.error AS last_error,
                (SELECT EXTRACT(EPOCH FROM now() - max(finished_at))::float8
                 FROM crawl_run WHERE type = 'geocoder_enqueue' AND status = 'success')
                    AS success_age_secs
         FROM (SELECT 1) AS one
         LEFT JOIN LATERAL (
             SELECT status, error FROM crawl_run
             WHERE type = 'geocoder_enqueue' AND status <> 'running'
             ORDER BY finished_at DESC NULLS LAST, id DESC LIMIT 1
         ) l ON TRUE",
    )
    .fetch_one(pool)
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_pack_with_the_unit_separator() {
        assert_eq!(pack_regions(&[]), "");
        assert_eq!(
            pack_regions(&["Essex".into(), "Eng\u{1f}land".into()]),
            "Essex\u{1f}Eng land"
        );
    }
}
