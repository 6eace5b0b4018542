//! Fixtures shared by the map tests: bulk insertion of bands and located rows, and the
//! reference SQL of the clustering definition.
#![allow(dead_code, clippy::unwrap_used)]

use bandmap_index::map::{Bbox, ClusterQuery, Feature, Snapshot};
use sqlx::PgPool;

/// A band to insert.
#[derive(Debug, Clone)]
pub struct Band {
    pub ma_id: i64,
    pub name: String,
    pub genre: Option<String>,
    pub country: Option<(String, String)>,
    pub status: Option<String>,
    pub formed_year: Option<i32>,
}

/// A location row to insert.
#[derive(Debug, Clone)]
pub struct Loc {
    pub ma_id: i64,
    pub step: i32,
    pub lon: f64,
    pub lat: f64,
    pub status: String,
}

pub async fn insert(pool: &PgPool, bands: &[Band], locs: &[Loc]) {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year) \
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[])",
    )
    .bind(bands.iter().map(|b| b.ma_id).collect::<Vec<_>>())
    .bind(bands.iter().map(|b| b.name.clone()).collect::<Vec<_>>())
    .bind(bands.iter().map(|b| b.genre.clone()).collect::<Vec<_>>())
    .bind(bands.iter().map(|b| b.country.as_ref().map(|c| c.0.clone())).collect::<Vec<_>>())
    .bind(bands.iter().map(|b| b.country.as_ref().map(|c| c.1.clone())).collect::<Vec<_>>())
    .bind(bands.iter().map(|b| b.status.clone()).collect::<Vec<_>>())
    .bind(bands.iter().map(|b| b.formed_year).collect::<Vec<_>>())
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) \
         SELECT m, s, s, 'step ' || s, 'Place ' || m || '/' || s, la, lo, st \
         FROM unnest($1::bigint[], $2::int[], $3::float8[], $4::float8[], $5::text[]) AS t(m, s, la, lo, st)",
    )
    .bind(locs.iter().map(|l| l.ma_id).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.step).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.lat).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.lon).collect::<Vec<_>>())
    .bind(locs.iter().map(|l| l.status.clone()).collect::<Vec<_>>())
    .execute(pool)
    .await
    .unwrap();
}

/// A feature reduced to what the definition fixes: cell, count, position, expansion zoom
/// and the location id of a single point.
#[derive(Debug, Clone, PartialEq)]
pub struct Cmp {
    pub gx: i64,
    pub gy: i64,
    pub count: i64,
    pub lon: f64,
    pub lat: f64,
    pub expansion_zoom: i32,
    pub location_id: i64,
}

fn like_pattern(s: &str) -> String {
    let mut out = String::from("%");
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

pub type PgQuery<'q, O> = sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>;

pub fn bind_all<'q, O>(q: PgQuery<'q, O>, query: &'q ClusterQuery, level: u32) -> PgQuery<'q, O> {
    let Bbox {
        min_lon,
        min_lat,
        max_lon,
        max_lat,
    } = query.bbox;
    let f = &query.filter;
    q.bind(min_lon)
        .bind(min_lat)
        .bind(max_lon)
        .bind(max_lat)
        .bind(level as i32)
        .bind(i32::from(query.zoom))
        .bind(f.genre.as_deref().map(like_pattern))
        .bind(f.country.clone())
        .bind(f.status.clone())
        .bind(f.year_min)
        .bind(f.year_max)
}

/// The reference answer: clustered cells, or the ids of individual points.
pub async fn reference(pool: &PgPool, query: &ClusterQuery) -> (Vec<Cmp>, Vec<i64>) {
    let plan = bandmap_index::map::plan(&query.bbox, query.zoom);
    if plan.individual {
        let ids: Vec<(i64,)> = bind_all(
            sqlx::query_as(include_str!("../reference_individual.sql")),
            query,
            plan.level,
        )
        .fetch_all(pool)
        .await
        .unwrap();
        return (Vec::new(), ids.into_iter().map(|r| r.0).collect());
    }
    let rows: Vec<(i64, i64, i64, f64, f64, i64, i32)> = bind_all(
        sqlx::query_as(include_str!("../reference.sql")),
        query,
        plan.level,
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let cells = rows
        .into_iter()
        .map(|(gx, gy, n, lon, lat, id, ez)| Cmp {
            gx,
            gy,
            count: n,
            lon,
            lat,
            expansion_zoom: if n == 1 { 0 } else { ez },
            location_id: if n == 1 { id } else { 0 },
        })
        .collect();
    (cells, Vec::new())
}

/// The in-memory answer in the same shape.
pub fn in_memory(snap: &Snapshot, query: &ClusterQuery) -> (Vec<Cmp>, Vec<i64>) {
    let res = snap.query(query);
    if res.plan.individual {
        let ids = res
            .features
            .iter()
            .map(|f| match f {
                Feature::Point { idx, .. } => snap.points.location_id[*idx as usize],
                Feature::Cluster { .. } => -1,
            })
            .collect();
        return (Vec::new(), ids);
    }
    let mut cells: Vec<Cmp> = res
        .features
        .iter()
        .map(|f| match *f {
            Feature::Cluster {
                key,
                lon,
                lat,
                count,
                expansion_zoom,
            } => {
                let (gx, gy) = bandmap_index::map::grid::decode(key);
                Cmp {
                    gx: gx.into(),
                    gy: gy.into(),
                    count: count.into(),
                    lon,
                    lat,
                    expansion_zoom: expansion_zoom.into(),
                    location_id: 0,
                }
            }
            Feature::Point { key, idx } => {
                let (gx, gy) = bandmap_index::map::grid::decode(key);
                let i = idx as usize;
                Cmp {
                    gx: gx.into(),
                    gy: gy.into(),
                    count: 1,
                    lon: snap.points.lon[i],
                    lat: snap.points.lat[i],
                    expansion_zoom: 0,
                    location_id: snap.points.location_id[i],
                }
            }
        })
        .collect();
    cells.sort_by_key(|c| (c.gx, c.gy));
    (cells, Vec::new())
}

/// Equal up to float summation order in the means.
pub fn same(a: &[Cmp], b: &[Cmp]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            (x.gx, x.gy, x.count, x.expansion_zoom, x.location_id)
                == (y.gx, y.gy, y.count, y.expansion_zoom, y.location_id)
                && (x.lon - y.lon).abs() < 1e-9
                && (x.lat - y.lat).abs() < 1e-9
        })
}
