//! The rows of the public name search (`GET /api/search`), for the in-memory copy of
//! `bandmap_index::name_search`: every band's id, name, country, genre and primary point, in
//! the order the search ranks ties (`length(name), name, ma_id`, the database's collation).
//! The copy is reloaded after each change notification (migration 024 makes inserts and
//! primary-point changes notify too).

use crate::Result;
use futures::TryStreamExt;
use sqlx::PgPool;

// One band as the public search shows it.
/// One search result.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = SearchHit))]
pub struct NameRow {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Country name.
    pub country: Option<String>,
    /// Genre.
    pub genre: Option<String>,
    /// Primary point latitude (null when not located).
    pub lat: Option<f64>,
    /// Primary point longitude.
    pub lon: Option<f64>,
}

const ROWS_SQL: &str = "SELECT ma_id, name, country, genre, lat, lon FROM bands \
     ORDER BY length(name), name, ma_id";

/// Every band, in search order, handed to `each` as it is decoded (the copy packs it at
/// once, so the owned rows never exist together).
pub async fn load_each(pool: &PgPool, mut each: impl FnMut(NameRow) + Send) -> Result<()> {
    let mut rows = sqlx::query_as::<_, NameRow>(ROWS_SQL).fetch(pool);
    while let Some(row) = rows.try_next().await? {
        each(row);
    }
    Ok(())
}

// Exact names first, then names starting with the text, then shorter names (the trigram
// index `bands_name_trgm` serves the ILIKE). The in-memory copy answers the same.
const SEARCH_SQL: &str = "SELECT ma_id, name, country, genre, lat, lon FROM bands \
     WHERE name ILIKE $1 ESCAPE '\\' \
     ORDER BY lower(name) = lower($2) DESC, name ILIKE $3 ESCAPE '\\' DESC, \
              length(name), name, ma_id \
     LIMIT $4";

/// The search in SQL: at most `limit` bands whose name holds `text` (case-insensitive, `%`
/// and `_` literal), exact names first, then names starting with it, then by length,
/// name and id.
pub async fn search(db: impl sqlx::PgExecutor<'_>, text: &str, limit: i64) -> Result<Vec<NameRow>> {
    let escaped = crate::like::escape(text);
    Ok(sqlx::query_as(SEARCH_SQL)
        .bind(format!("%{escaped}%"))
        .bind(text)
        .bind(format!("{escaped}%"))
        .bind(limit)
        .fetch_all(db)
        .await?)
}
