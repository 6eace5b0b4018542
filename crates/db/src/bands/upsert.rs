//! The one write path of upstream and imported band values (SPEC rules 3, 6, 20): insert new
//! bands; for existing ones write each provided field unless it is locked, in which case a
//! differing upstream value becomes a pending conflict (`crawler_pending[field]`) and an
//! equal one clears it. Set-based: one transaction per call, one bulk insert, one
//! `SELECT … FOR UPDATE` of the existing rows, the merge in Rust, one bulk update of the
//! rows that really change. `updated_at` and the `band_locations` cleanup are the database
//! triggers' business (migration 008).

use crate::Result;
use serde_json::{Map, Value};
use sqlx::{Acquire, PgConnection, Postgres};
use std::collections::BTreeMap;

/// One band as the crawler or the import provides it. `None` = "not provided": the stored
/// value is left as is (a provided value is never erased by an absent one).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BandInput {
    /// Upstream id (key).
    pub ma_id: i64,
    /// Band name.
    pub name: String,
    /// Country name as upstream writes it (`Norway`).
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2 code (`NO`).
    pub country_code: Option<String>,
    /// Free-text upstream location.
    pub location_text: Option<String>,
    /// Genre text.
    pub genre: Option<String>,
    /// Lyrical themes.
    pub themes: Option<String>,
    /// Status label (`Active`, `Split-up`…).
    pub status: Option<String>,
    /// Year of formation.
    pub formed_year: Option<i32>,
    /// Current or last label.
    pub label: Option<String>,
    /// Upstream URL of the band page (stored as `data.url`).
    pub url: Option<String>,
}

/// What an upsert did, per distinct `ma_id` of the input.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct UpsertReport {
    /// Bands that did not exist.
    pub inserted: u64,
    /// Existing bands where a stored value changed (a catalogue field or a pending
    /// conflict).
    pub updated: u64,
    /// Existing bands left exactly as they were.
    pub unchanged: u64,
}

impl UpsertReport {
    /// Adds another report's counts to this one.
    pub fn add(&mut self, other: UpsertReport) {
        self.inserted += other.inserted;
        self.updated += other.updated;
        self.unchanged += other.unchanged;
    }
}

/// Upserts `bands` in one transaction (see the module header for the semantics): its own
/// on a pool or connection, a savepoint inside a caller's transaction.
pub async fn upsert_bands(
    db: impl Acquire<'_, Database = Postgres>,
    bands: &[BandInput],
) -> Result<UpsertReport> {
    let mut tx = db.begin().await?;
    let report = upsert_in(&mut tx, bands).await?;
    tx.commit().await?;
    Ok(report)
}

/// [`upsert_bands`] on a connection already inside the caller's transaction (the
/// enrichment stores a band page and its fields atomically).
pub(crate) async fn upsert_in(
    conn: &mut PgConnection,
    bands: &[BandInput],
) -> Result<UpsertReport> {
    let inputs = coalesce(bands);
    if inputs.is_empty() {
        return Ok(UpsertReport::default());
    }
    let inserted = insert_new(conn, &inputs).await?;
    let rest: Vec<&BandInput> = inputs
        .iter()
        .filter(|b| !inserted.contains(&b.ma_id))
        .collect();
    let mut report = UpsertReport {
        inserted: inserted.len() as u64,
        ..UpsertReport::default()
    };
    if rest.is_empty() {
        return Ok(report);
    }
    let ids: Vec<i64> = rest.iter().map(|b| b.ma_id).collect();
    let stored = lock_existing(conn, &ids).await?;
    let mut changes = Vec::new();
    for input in rest {
        match stored.get(&input.ma_id) {
            Some(row) => match merge(row, input) {
                Some(change) => changes.push(change),
                None => report.unchanged += 1,
            },
            // Deleted between our insert and our lock: nothing to update.
            None => report.unchanged += 1,
        }
    }
    report.updated = changes.len() as u64;
    write_changes(conn, &changes).await?;
    Ok(report)
}

/// One input per `ma_id`, sorted by `ma_id` (a stable lock order avoids deadlocks between
/// concurrent upserts); a later duplicate's provided fields win over an earlier one's.
fn coalesce(bands: &[BandInput]) -> Vec<BandInput> {
    let mut by_id: BTreeMap<i64, BandInput> = BTreeMap::new();
    for b in bands {
        match by_id.get_mut(&b.ma_id) {
            None => {
                by_id.insert(b.ma_id, b.clone());
            }
            Some(acc) => {
                acc.name.clone_from(&b.name);
                overlay(&mut acc.country, &b.country);
                overlay(&mut acc.country_code, &b.country_code);
                overlay(&mut acc.location_text, &b.location_text);
                overlay(&mut acc.genre, &b.genre);
                overlay(&mut acc.themes, &b.themes);
                overlay(&mut acc.status, &b.status);
                overlay(&mut acc.formed_year, &b.formed_year);
                overlay(&mut acc.label, &b.label);
                overlay(&mut acc.url, &b.url);
            }
        }
    }
    by_id.into_values().collect()
}

fn overlay<T: Clone>(acc: &mut Option<T>, later: &Option<T>) {
    if later.is_some() {
        acc.clone_from(later);
    }
}

/// Inserts the bands that do not exist yet; returns their ids. A band inserted
/// concurrently by another transaction is skipped here and merged as an existing row.
async fn insert_new(conn: &mut PgConnection, inputs: &[BandInput]) -> Result<Vec<i64>> {
    let col = |f: fn(&BandInput) -> Option<String>| inputs.iter().map(f).collect::<Vec<_>>();
    let ids: Vec<i64> = inputs.iter().map(|b| b.ma_id).collect();
    let names: Vec<String> = inputs.iter().map(|b| b.name.clone()).collect();
    let years: Vec<Option<i32>> = inputs.iter().map(|b| b.formed_year).collect();
    let inserted: Vec<i64> = sqlx::query_scalar(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text, genre, themes,
                            status, formed_year, label, data)
         SELECT u.ma_id, u.name, u.country, u.country_code, u.location_text, u.genre, u.themes,
                u.status, u.formed_year, u.label,
                CASE WHEN u.url IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('url', u.url) END
         FROM UNNEST($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                     $7::text[], $8::text[], $9::int4[], $10::text[], $11::text[])
              AS u(ma_id, name, country, country_code, location_text, genre, themes, status,
                   formed_year, label, url)
         ORDER BY u.ma_id
         ON CONFLICT (ma_id) DO NOTHING
         RETURNING ma_id",
    )
    .bind(&ids)
    .bind(&names)
    .bind(col(|b| b.country.clone()))
    .bind(col(|b| b.country_code.clone()))
    .bind(col(|b| b.location_text.clone()))
    .bind(col(|b| b.genre.clone()))
    .bind(col(|b| b.themes.clone()))
    .bind(col(|b| b.status.clone()))
    .bind(&years)
    .bind(col(|b| b.label.clone()))
    .bind(col(|b| b.url.clone()))
    .fetch_all(&mut *conn)
    .await?;
    Ok(inserted)
}

/// The stored values an upsert may touch.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
struct Stored {
    ma_id: i64,
    name: String,
    country: Option<String>,
    country_code: Option<String>,
    location_text: Option<String>,
    genre: Option<String>,
    themes: Option<String>,
    status: Option<String>,
    formed_year: Option<i32>,
    label: Option<String>,
    url: Option<String>,
    locked_fields: Vec<String>,
    crawler_pending: Value,
}

async fn lock_existing(conn: &mut PgConnection, ids: &[i64]) -> Result<BTreeMap<i64, Stored>> {
    let rows: Vec<Stored> = sqlx::query_as(
        "SELECT ma_id, name, country, country_code, location_text, genre, themes, status,
                formed_year, label, data->>'url' AS url, locked_fields, crawler_pending
         FROM bands WHERE ma_id = ANY($1) ORDER BY ma_id FOR UPDATE",
    )
    .bind(ids)
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows.into_iter().map(|r| (r.ma_id, r)).collect())
}

/// Merges one input into its stored row; `None` when nothing would change.
fn merge(stored: &Stored, input: &BandInput) -> Option<Stored> {
    let mut next = stored.clone();
    let mut pending = match &stored.crawler_pending {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let locked = |f: &str| stored.locked_fields.iter().any(|l| l == f);
    let mut m = Merger {
        pending: &mut pending,
        locked: &locked,
    };
    m.field("name", &mut next.name, Some(&input.name));
    m.opt("country", &mut next.country, input.country.as_ref());
    m.opt(
        "country_code",
        &mut next.country_code,
        input.country_code.as_ref(),
    );
    m.opt(
        "location_text",
        &mut next.location_text,
        input.location_text.as_ref(),
    );
    m.opt("genre", &mut next.genre, input.genre.as_ref());
    m.opt("themes", &mut next.themes, input.themes.as_ref());
    m.opt("status", &mut next.status, input.status.as_ref());
    m.opt(
        "formed_year",
        &mut next.formed_year,
        input.formed_year.as_ref(),
    );
    m.opt("label", &mut next.label, input.label.as_ref());
    m.opt("url", &mut next.url, input.url.as_ref());
    next.crawler_pending = Value::Object(pending);
    (next != *stored).then_some(next)
}

/// Applies the lock/conflict rule field by field.
struct Merger<'a, L: Fn(&str) -> bool> {
    pending: &'a mut Map<String, Value>,
    locked: &'a L,
}

impl<L: Fn(&str) -> bool> Merger<'_, L> {
    /// A NOT NULL field.
    fn field<T>(&mut self, name: &str, current: &mut T, upstream: Option<&T>)
    where
        T: Clone + PartialEq + serde::Serialize,
    {
        let Some(upstream) = upstream else { return };
        if !(self.locked)(name) {
            current.clone_from(upstream);
        } else if upstream == current {
            self.pending.remove(name);
        } else {
            self.pending.insert(
                name.to_string(),
                serde_json::to_value(upstream).unwrap_or(Value::Null),
            );
        }
    }

    /// A nullable field: the locked value may be NULL, which a provided value never equals.
    fn opt<T>(&mut self, name: &str, current: &mut Option<T>, upstream: Option<&T>)
    where
        T: Clone + PartialEq + serde::Serialize,
    {
        let Some(upstream) = upstream else { return };
        if !(self.locked)(name) {
            *current = Some(upstream.clone());
        } else if current.as_ref() == Some(upstream) {
            self.pending.remove(name);
        } else {
            self.pending.insert(
                name.to_string(),
                serde_json::to_value(upstream).unwrap_or(Value::Null),
            );
        }
    }
}

/// One bulk update of the rows that change. Writing an unchanged column is harmless: the
/// triggers compare old and new values (rule 3, rule 20).
async fn write_changes(conn: &mut PgConnection, rows: &[Stored]) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let col = |f: fn(&Stored) -> Option<String>| rows.iter().map(f).collect::<Vec<_>>();
    let ids: Vec<i64> = rows.iter().map(|r| r.ma_id).collect();
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    let years: Vec<Option<i32>> = rows.iter().map(|r| r.formed_year).collect();
    let pending: Vec<Value> = rows.iter().map(|r| r.crawler_pending.clone()).collect();
    sqlx::query(
        "UPDATE bands b SET name = u.name, country = u.country, country_code = u.country_code,
                location_text = u.location_text, genre = u.genre, themes = u.themes,
                status = u.status, formed_year = u.formed_year, label = u.label,
                data = CASE WHEN u.url IS NULL THEN b.data
                            ELSE b.data || jsonb_build_object('url', u.url) END,
                crawler_pending = u.pending
         FROM UNNEST($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                     $7::text[], $8::text[], $9::int4[], $10::text[], $11::text[], $12::jsonb[])
              AS u(ma_id, name, country, country_code, location_text, genre, themes, status,
                   formed_year, label, url, pending)
         WHERE b.ma_id = u.ma_id",
    )
    .bind(&ids)
    .bind(&names)
    .bind(col(|r| r.country.clone()))
    .bind(col(|r| r.country_code.clone()))
    .bind(col(|r| r.location_text.clone()))
    .bind(col(|r| r.genre.clone()))
    .bind(col(|r| r.themes.clone()))
    .bind(col(|r| r.status.clone()))
    .bind(&years)
    .bind(col(|r| r.label.clone()))
    .bind(col(|r| r.url.clone()))
    .bind(&pending)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored() -> Stored {
        Stored {
            ma_id: 1,
            name: "Band".into(),
            country: Some("Norway".into()),
            country_code: Some("NO".into()),
            location_text: Some("Bergen".into()),
            genre: Some("Black Metal".into()),
            themes: None,
            status: Some("Active".into()),
            formed_year: Some(1990),
            label: None,
            url: None,
            locked_fields: vec!["genre".into(), "themes".into()],
            crawler_pending: serde_json::json!({"genre": "Old"}),
        }
    }

    #[test]
    fn not_provided_fields_are_kept_and_equal_values_change_nothing() {
        let input = BandInput {
            ma_id: 1,
            name: "Band".into(),
            genre: Some("Old".into()),
            ..BandInput::default()
        };
        let next = merge(&stored(), &input);
        // The locked genre differs: the conflict stays "Old" → nothing changes.
        assert_eq!(next, None);
    }

    #[test]
    fn locked_field_records_conflict_and_equal_value_clears_it() {
        let mut input = BandInput {
            ma_id: 1,
            name: "Band".into(),
            genre: Some("Death Metal".into()),
            themes: Some("War".into()),
            formed_year: Some(1991),
            ..BandInput::default()
        };
        let next = merge(&stored(), &input).unwrap();
        assert_eq!(next.genre.as_deref(), Some("Black Metal"));
        assert_eq!(next.formed_year, Some(1991));
        assert_eq!(
            next.crawler_pending,
            serde_json::json!({"genre": "Death Metal", "themes": "War"})
        );
        input.genre = Some("Black Metal".into());
        let next = merge(&next, &input).unwrap();
        assert_eq!(next.crawler_pending, serde_json::json!({"themes": "War"}));
    }

    #[test]
    fn duplicates_coalesce_with_later_fields_winning() {
        let a = BandInput {
            ma_id: 2,
            name: "A".into(),
            genre: Some("g1".into()),
            themes: Some("t1".into()),
            ..BandInput::default()
        };
        let b = BandInput {
            ma_id: 2,
            name: "B".into(),
            genre: Some("g2".into()),
            ..BandInput::default()
        };
        let out = coalesce(&[a, b]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].name, "B");
        assert_eq!(out[0].genre.as_deref(), Some("g2"));
        assert_eq!(out[0].themes.as_deref(), Some("t1"));
    }
}
