//! The filtered, sorted, paged band list of `GET /admin/api/bands`: the page rows of a
//! selection made by the in-memory search (`bandmap_index::band_search`, which reads its
//! rows through [`super::search`]) read by id, or, without a usable search copy, the list
//! in SQL alone. In SQL the WHERE clause holds only the active filters (built with `QueryBuilder`, every value bound), because a static
//! query with `$n IS NULL OR …` guards keeps the planner from using the trigram indexes.

use crate::Result;
use chrono::{DateTime, Utc};
use sqlx::{Acquire, PgExecutor, PgPool, Postgres, QueryBuilder};

/// Columns the list can be sorted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Case-insensitive name (default).
    #[default]
    Name,
    /// Upstream id.
    MaId,
    /// Country name.
    Country,
    /// Year of formation.
    FormedYear,
    /// Last catalogue change.
    UpdatedAt,
}

impl SortKey {
    /// Parses `name`, `ma_id`, `country`, `formed_year`, `updated_at`.
    pub fn parse(s: &str) -> Option<SortKey> {
        Some(match s {
            "name" => SortKey::Name,
            "ma_id" => SortKey::MaId,
            "country" => SortKey::Country,
            "formed_year" => SortKey::FormedYear,
            "updated_at" => SortKey::UpdatedAt,
            _ => return None,
        })
    }

    /// The SQL expression the list orders by.
    pub(crate) fn expr(self) -> &'static str {
        match self {
            SortKey::Name => "lower(name)",
            SortKey::MaId => "ma_id",
            SortKey::Country => "country",
            SortKey::FormedYear => "formed_year",
            SortKey::UpdatedAt => "updated_at",
        }
    }
}

/// A sort key and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BandSort {
    /// Column.
    pub key: SortKey,
    /// Descending when true.
    pub desc: bool,
}

impl BandSort {
    /// Parses `key` or `-key`.
    pub fn parse(s: &str) -> Option<BandSort> {
        let (desc, key) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        SortKey::parse(key).map(|key| BandSort { key, desc })
    }

    pub(crate) fn order_by(self) -> String {
        let dir = if self.desc { "DESC" } else { "ASC" };
        if self.key == SortKey::MaId {
            return format!("ma_id {dir}");
        }
        // NULLs last either way, then ma_id so paging is stable.
        format!("{} {dir} NULLS LAST, ma_id {dir}", self.key.expr())
    }
}

/// Validated filters of the list. Patterns are ready for `ILIKE … ESCAPE '\'` (wildcards
/// escaped, truncated); `country` and `status` are compared case-insensitively.
#[derive(Debug, Clone, Default)]
pub struct BandFilter {
    /// Pattern on the name.
    pub name_pattern: Option<String>,
    /// Exact upstream id, OR-ed with `name_pattern` (when `q` is numeric).
    pub ma_id: Option<i64>,
    /// Pattern on `location_text`.
    pub location_pattern: Option<String>,
    /// Pattern on `themes`.
    pub themes_pattern: Option<String>,
    /// Pattern on `genre`.
    pub genre_pattern: Option<String>,
    /// Country name or ISO code, any case.
    pub country: Option<String>,
    /// Status, any case.
    pub status: Option<String>,
    /// Has a primary point.
    pub has_lat: Option<bool>,
    /// Has a non-blank `location_text`.
    pub has_location: Option<bool>,
    /// Has pending conflicts.
    pub has_conflict: Option<bool>,
    /// Order.
    pub sort: BandSort,
    /// Page size.
    pub limit: i64,
    /// Rows skipped.
    pub offset: i64,
}

/// One row of `GET /admin/api/bands`.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = BandItem))]
pub struct BandListItem {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Country name.
    pub country: Option<String>,
    /// Free-text location.
    pub location_text: Option<String>,
    /// Genre.
    pub genre: Option<String>,
    /// Lyrical themes.
    pub themes: Option<String>,
    /// Status.
    pub status: Option<String>,
    /// Year of formation.
    pub formed_year: Option<i32>,
    /// Primary point latitude.
    pub lat: Option<f64>,
    /// Primary point longitude.
    pub lon: Option<f64>,
    /// Enriched from the band page.
    pub enriched: bool,
    /// Enrichment requested.
    pub enrich_pending: bool,
    /// Fields edited by an admin.
    pub locked_fields: Vec<String>,
    /// At least one field is locked.
    pub locked: bool,
    /// `crawler_pending` is not empty.
    pub has_conflict: bool,
    /// Last catalogue change.
    pub updated_at: DateTime<Utc>,
    /// Last crawl.
    pub crawled_at: Option<DateTime<Utc>>,
    /// Upstream page.
    pub url: Option<String>,
}

const SELECT_ITEMS: &str = "SELECT ma_id, name, country, location_text, genre, themes, status,
        formed_year, lat, lon, enriched, enrich_pending, locked_fields,
        cardinality(locked_fields) > 0 AS locked,
        crawler_pending <> '{}'::jsonb AS has_conflict,
        updated_at, crawled_at, data->>'url' AS url
    FROM bands";

fn push_where(qb: &mut QueryBuilder<Postgres>, f: &BandFilter) {
    let mut first = true;
    let mut and = |qb: &mut QueryBuilder<Postgres>| {
        qb.push(if first { " WHERE " } else { " AND " });
        first = false;
    };
    match (&f.name_pattern, f.ma_id) {
        (Some(p), Some(id)) => {
            and(qb);
            qb.push("(name ILIKE ").push_bind(p.clone());
            qb.push(" ESCAPE '\\' OR ma_id = ").push_bind(id).push(")");
        }
        (Some(p), None) => {
            and(qb);
            qb.push("name ILIKE ")
                .push_bind(p.clone())
                .push(" ESCAPE '\\'");
        }
        (None, Some(id)) => {
            and(qb);
            qb.push("ma_id = ").push_bind(id);
        }
        (None, None) => {}
    }
    for (column, pattern) in [
        ("location_text", &f.location_pattern),
        ("themes", &f.themes_pattern),
        ("genre", &f.genre_pattern),
    ] {
        if let Some(p) = pattern {
            and(qb);
            qb.push(column).push(" ILIKE ").push_bind(p.clone());
            qb.push(" ESCAPE '\\'");
        }
    }
    if let Some(c) = &f.country {
        and(qb);
        // Codes are stored upper-case (CONTRACT §11); both sides use an index.
        qb.push("(lower(country) = ").push_bind(c.to_lowercase());
        qb.push(" OR country_code = ")
            .push_bind(c.to_uppercase())
            .push(")");
    }
    if let Some(s) = &f.status {
        and(qb);
        qb.push("lower(status) = ").push_bind(s.to_lowercase());
    }
    if let Some(b) = f.has_lat {
        and(qb);
        qb.push(if b { "lat IS NOT NULL" } else { "lat IS NULL" });
    }
    if let Some(b) = f.has_location {
        and(qb);
        qb.push(if b {
            "btrim(location_text) <> ''"
        } else {
            "coalesce(btrim(location_text), '') = ''"
        });
    }
    if let Some(b) = f.has_conflict {
        and(qb);
        // Same expression as the partial index `bands_has_conflict`.
        qb.push(if b {
            "crawler_pending <> '{}'::jsonb"
        } else {
            "NOT (crawler_pending <> '{}'::jsonb)"
        });
    }
}

/// How the page and the total are fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagePlan {
    /// Walk the sort order and filter (fast when matches are dense); the exact count runs
    /// at the same time on a second connection.
    Ordered,
    /// Collect every match once (through the trigram / partial indexes), count them and
    /// sort them, in one query: the planner would otherwise walk the name index and
    /// filter, which is slow when the matches sit late in the sort order (e.g. every name
    /// starting with "Storm"), and a separate count would visit the same rows again.
    Collect,
}

/// Largest estimated result collected and sorted rather than walked in sort order.
pub const COLLECT_MAX_ROWS: i64 = 20_000;

impl BandFilter {
    /// The text patterns: name, location, themes, genre.
    pub fn patterns(&self) -> [Option<&str>; 4] {
        [
            self.name_pattern.as_deref(),
            self.location_pattern.as_deref(),
            self.themes_pattern.as_deref(),
            self.genre_pattern.as_deref(),
        ]
    }

    /// Whether any filter is active.
    fn is_filtered(&self) -> bool {
        self.name_pattern.is_some()
            || self.ma_id.is_some()
            || self.location_pattern.is_some()
            || self.themes_pattern.is_some()
            || self.genre_pattern.is_some()
            || self.country.is_some()
            || self.status.is_some()
            || self.has_lat.is_some()
            || self.has_location.is_some()
            || self.has_conflict.is_some()
    }
}

impl PagePlan {
    /// The plan for a filter the planner expects to match `estimate` rows.
    pub fn for_estimate(f: &BandFilter, estimate: i64) -> PagePlan {
        if f.is_filtered() && estimate <= COLLECT_MAX_ROWS {
            PagePlan::Collect
        } else {
            PagePlan::Ordered
        }
    }
}

/// Builds the page query.
pub fn page_query(f: &BandFilter, plan: PagePlan) -> QueryBuilder<Postgres> {
    page_query_with_prefix("", f, plan)
}

/// The page; with [`PagePlan::Collect`] each row also carries the total (`total`).
fn page_query_with_prefix(prefix: &str, f: &BandFilter, plan: PagePlan) -> QueryBuilder<Postgres> {
    let mut qb = QueryBuilder::new(prefix);
    if plan == PagePlan::Collect {
        qb.push("WITH m AS MATERIALIZED (");
    }
    qb.push(SELECT_ITEMS);
    push_where(&mut qb, f);
    if plan == PagePlan::Collect {
        qb.push(") SELECT *, (SELECT count(*) FROM m) AS total FROM m");
    }
    qb.push(" ORDER BY ").push(f.sort.order_by());
    qb.push(" LIMIT ").push_bind(f.limit);
    qb.push(" OFFSET ").push_bind(f.offset);
    qb
}

/// Builds the count query.
pub fn count_query(f: &BandFilter) -> QueryBuilder<Postgres> {
    count_query_with_prefix("", f)
}

fn count_query_with_prefix(prefix: &str, f: &BandFilter) -> QueryBuilder<Postgres> {
    let mut qb = QueryBuilder::new(format!("{prefix}SELECT count(*) FROM bands"));
    push_where(&mut qb, f);
    qb
}

/// The planner's estimate of the rows matching the filters (planning only, nothing read).
async fn estimate(db: impl PgExecutor<'_>, f: &BandFilter) -> Result<i64> {
    let mut qb = QueryBuilder::new("EXPLAIN (FORMAT JSON) SELECT 1 FROM bands");
    push_where(&mut qb, f);
    let plan: serde_json::Value = qb.build_query_scalar().fetch_one(db).await?;
    let rows = plan[0]["Plan"]["Plan Rows"].as_f64().unwrap_or(f64::MAX);
    Ok(rows.min(i64::MAX as f64) as i64)
}

/// The page plan [`list_bands_sql`] picks for `f`.
pub async fn choose_plan(db: impl PgExecutor<'_>, f: &BandFilter) -> Result<PagePlan> {
    if !f.is_filtered() {
        return Ok(PagePlan::Ordered);
    }
    Ok(PagePlan::for_estimate(f, estimate(db, f).await?))
}

const EXPLAIN_PREFIX: &str = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ";

/// `EXPLAIN (ANALYZE)` of the page query and of the count query as [`list_bands_sql`] would
/// run them (benchmark and docs: shows which indexes the planner picks). With
/// [`PagePlan::Collect`] the count is part of the page query and the second list is empty.
pub async fn explain(
    db: impl Acquire<'_, Database = Postgres>,
    f: &BandFilter,
) -> Result<(Vec<String>, Vec<String>)> {
    const PREFIX: &str = EXPLAIN_PREFIX;
    let mut conn = db.acquire().await?;
    let plan = choose_plan(&mut *conn, f).await?;
    let page = page_query_with_prefix(PREFIX, f, plan)
        .build_query_scalar::<String>()
        .fetch_all(&mut *conn)
        .await?;
    let count = match plan {
        PagePlan::Collect => Vec::new(),
        PagePlan::Ordered => {
            count_query_with_prefix(PREFIX, f)
                .build_query_scalar::<String>()
                .fetch_all(&mut *conn)
                .await?
        }
    };
    Ok((page, count))
}

/// A page row of the collect plan: the item and the total.
#[derive(sqlx::FromRow)]
struct CollectedRow {
    #[sqlx(flatten)]
    item: BandListItem,
    total: i64,
}

async fn count(db: impl PgExecutor<'_>, f: &BandFilter) -> Result<i64> {
    Ok(count_query(f)
        .build_query_scalar::<i64>()
        .fetch_one(db)
        .await?)
}

/// One page of bands and the total matching the filters, in SQL alone (the fallback of
/// `bandmap_index::band_search::list_bands`, and its reference in tests). The planner's estimate picks the plan: a
/// selective filter collects, counts and sorts its matches in one query; a broad one (or
/// none) walks the sort order while the count runs beside it on another connection (hence
/// a pool, not any executor).
pub async fn list_bands_sql(pool: &PgPool, f: &BandFilter) -> Result<(Vec<BandListItem>, i64)> {
    if f.limit == 0 {
        return Ok((Vec::new(), count(pool, f).await?));
    }
    match choose_plan(pool, f).await? {
        PagePlan::Collect => {
            let rows: Vec<CollectedRow> = page_query(f, PagePlan::Collect)
                .build_query_as()
                .fetch_all(pool)
                .await?;
            // No row: nothing matches (total 0 when the page starts at 0), or the page
            // starts past the end (then the total needs its own count).
            let total = match rows.first() {
                Some(r) => r.total,
                None if f.offset == 0 => 0,
                None => count(pool, f).await?,
            };
            Ok((rows.into_iter().map(|r| r.item).collect(), total))
        }
        PagePlan::Ordered => {
            let page = async {
                page_query(f, PagePlan::Ordered)
                    .build_query_as::<BandListItem>()
                    .fetch_all(pool)
                    .await
                    .map_err(crate::DbError::from)
            };
            let (items, total) = tokio::try_join!(page, count(pool, f))?;
            Ok((items, total))
        }
    }
}

/// What the in-memory band search (`bandmap_index::band_search`) selected for a filter:
/// the total and the ids of the page, which [`list_selected`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Rows matching the filter.
    pub total: i64,
    /// Ids to fetch, in no particular order.
    pub ids: Vec<i64>,
    /// The page is `ids` in list order from this position on (0 when `ids` is exactly the
    /// page), at most `limit` of them.
    pub offset: i64,
}

/// The rows of `selection` (made by the in-memory search for `f`) and its total: the
/// in-memory search gives the total and the ids of the page, PostgreSQL the rows.
pub async fn list_selected(
    db: impl PgExecutor<'_>,
    selection: &Selection,
    f: &BandFilter,
) -> Result<(Vec<BandListItem>, i64)> {
    if selection.ids.is_empty() {
        return Ok((Vec::new(), selection.total));
    }
    let items = selected_page_query("", selection, f)
        .build_query_as()
        .fetch_all(db)
        .await?;
    Ok((items, selection.total))
}

/// The rows of a [`Selection`]: its ids in list order, from its offset.
fn selected_page_query(
    prefix: &str,
    selection: &Selection,
    f: &BandFilter,
) -> QueryBuilder<Postgres> {
    let mut qb = QueryBuilder::new(prefix);
    qb.push(SELECT_ITEMS);
    qb.push(" WHERE ma_id = ANY(")
        .push_bind(selection.ids.clone());
    qb.push(") ORDER BY ").push(f.sort.order_by());
    qb.push(" LIMIT ").push_bind(f.limit);
    qb.push(" OFFSET ").push_bind(selection.offset);
    qb
}

/// `EXPLAIN (ANALYZE)` of the page query [`list_selected`] runs for `selection`.
pub async fn explain_selected_page(
    db: impl PgExecutor<'_>,
    selection: &Selection,
    f: &BandFilter,
) -> Result<Vec<String>> {
    Ok(selected_page_query(EXPLAIN_PREFIX, selection, f)
        .build_query_scalar()
        .fetch_all(db)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_parsing() {
        assert_eq!(
            BandSort::parse("-formed_year"),
            Some(BandSort {
                key: SortKey::FormedYear,
                desc: true
            })
        );
        assert_eq!(BandSort::parse("name").map(|s| s.desc), Some(false));
        assert_eq!(BandSort::parse("bogus"), None);
        assert_eq!(BandSort::parse("--name"), None);
    }

    #[test]
    fn only_active_filters_reach_the_sql() {
        let f = BandFilter {
            genre_pattern: Some("%black%".into()),
            has_conflict: Some(true),
            limit: 50,
            ..BandFilter::default()
        };
        let sql = page_query(&f, PagePlan::Ordered)
            .into_sql()
            .as_str()
            .to_string();
        assert!(sql.contains("genre ILIKE $1"), "{sql}");
        assert!(sql.contains("crawler_pending <> '{}'::jsonb"), "{sql}");
        assert!(!sql.contains("name ILIKE"), "{sql}");
        assert!(!sql.contains("location_text ILIKE"), "{sql}");
        assert_eq!(PagePlan::for_estimate(&f, 100), PagePlan::Collect);
        assert_eq!(PagePlan::for_estimate(&f, 100_000), PagePlan::Ordered);
        let all = BandFilter::default();
        assert_eq!(PagePlan::for_estimate(&all, 10), PagePlan::Ordered);
        let collect = page_query(&f, PagePlan::Collect)
            .into_sql()
            .as_str()
            .to_string();
        assert!(collect.starts_with("WITH m AS MATERIALIZED ("), "{collect}");
    }
}
