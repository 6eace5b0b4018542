//! Admin edits of one band, each in one transaction with its audit row: the PATCH (edited
//! fields join `locked_fields`, only their keys leave `crawler_pending`) and the resolution
//! of one pending conflict (`keep` or `accept`).

use super::detail::{BandDetail, band_detail};
use super::fields::{BandField, FieldValue};
use crate::Result;
use crate::audit::{Entry, record};
use serde_json::{Map, Value};
use sqlx::{Acquire, PgConnection, Postgres};

/// Who acts, for the audit row.
#[derive(Debug, Clone)]
pub struct Audit<'a> {
    /// Admin username.
    pub username: &'a str,
    /// Client address.
    pub ip: Option<String>,
}

/// How a conflict is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictAction {
    /// Keep the admin's value; the field stays locked.
    Keep,
    /// Write the upstream value (cast to the column type) and unlock the field.
    Accept,
}

impl ConflictAction {
    /// `keep` or `accept`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConflictAction::Keep => "keep",
            ConflictAction::Accept => "accept",
        }
    }
}

/// Result of a conflict resolution.
#[derive(Debug, Clone)]
pub enum ResolveOutcome {
    /// No such band.
    NotFound,
    /// The band has no pending conflict on that field.
    NoConflict,
    /// The upstream value cannot be cast to the column type (nothing written).
    BadValue(String),
    /// Done; the band as it is now.
    Resolved(Box<BandDetail>),
}

/// Maps a country name (as edited or accepted) to its ISO alpha-2 code. The database crate
/// knows no country table; the caller passes the lookup of `bandmap_location::countries`.
pub type CountryCodeOf = fn(&str) -> Option<&'static str>;

const WRITE_VALUES: &str = "UPDATE bands SET
        name = CASE WHEN 'name' = ANY($2) THEN coalesce($3, name) ELSE name END,
        genre = CASE WHEN 'genre' = ANY($2) THEN $4 ELSE genre END,
        themes = CASE WHEN 'themes' = ANY($2) THEN $5 ELSE themes END,
        status = CASE WHEN 'status' = ANY($2) THEN $6 ELSE status END,
        country = CASE WHEN 'country' = ANY($2) THEN $7 ELSE country END,
        country_code = CASE WHEN 'country' = ANY($2) THEN $10 ELSE country_code END,
        location_text = CASE WHEN 'location_text' = ANY($2) THEN $8 ELSE location_text END,
        formed_year = CASE WHEN 'formed_year' = ANY($2) THEN $9 ELSE formed_year END
    WHERE ma_id = $1";

fn text_of(edits: &[(BandField, FieldValue)], field: BandField) -> Option<String> {
    edits.iter().find_map(|(f, v)| match v {
        FieldValue::Text(t) if *f == field => t.clone(),
        _ => None,
    })
}

/// Writes the edited values. A new `country` also rewrites `country_code`, so a filter by
/// code (CONTRACT §11) keeps finding the band where the admin put it.
async fn write_values(
    conn: &mut PgConnection,
    ma_id: i64,
    edits: &[(BandField, FieldValue)],
    code_of: CountryCodeOf,
) -> Result<()> {
    let country = text_of(edits, BandField::Country);
    let code = country.as_deref().and_then(code_of);
    let names: Vec<&str> = edits.iter().map(|(f, _)| f.as_str()).collect();
    let year = edits.iter().find_map(|(_, v)| match v {
        FieldValue::Year(y) => *y,
        FieldValue::Text(_) => None,
    });
    sqlx::query(WRITE_VALUES)
        .bind(ma_id)
        .bind(&names)
        .bind(text_of(edits, BandField::Name))
        .bind(text_of(edits, BandField::Genre))
        .bind(text_of(edits, BandField::Themes))
        .bind(text_of(edits, BandField::Status))
        .bind(&country)
        .bind(text_of(edits, BandField::LocationText))
        .bind(year)
        .bind(code)
        .execute(conn)
        .await?;
    Ok(())
}

/// Adds `fields` to `locked_fields` (keeping order, no duplicates) and removes their keys
/// from `crawler_pending`.
async fn lock_fields(conn: &mut PgConnection, ma_id: i64, fields: &[&str]) -> Result<()> {
    sqlx::query(
        "UPDATE bands SET
             locked_fields = locked_fields
                 || ARRAY(SELECT f FROM unnest($2::text[]) WITH ORDINALITY AS u(f, i)
                          WHERE f <> ALL(locked_fields) GROUP BY f ORDER BY min(i)),
             crawler_pending = crawler_pending - $2::text[]
         WHERE ma_id = $1",
    )
    .bind(ma_id)
    .bind(fields)
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes `field` from `locked_fields` and its key from `crawler_pending`.
async fn unlock_field(conn: &mut PgConnection, ma_id: i64, field: &str) -> Result<()> {
    sqlx::query(
        "UPDATE bands SET locked_fields = array_remove(locked_fields, $2),
                          crawler_pending = crawler_pending - $2
         WHERE ma_id = $1",
    )
    .bind(ma_id)
    .bind(field)
    .execute(conn)
    .await?;
    Ok(())
}

/// The whole row as JSON, locked for the transaction.
async fn row_for_update(conn: &mut PgConnection, ma_id: i64) -> Result<Option<Value>> {
    Ok(sqlx::query_scalar(
        "SELECT to_jsonb(b) - ARRAY['geom', 'search_xid'] FROM bands b WHERE ma_id = $1 FOR UPDATE",
    )
    .bind(ma_id)
    .fetch_optional(conn)
    .await?)
}

fn pick(row: &Value, keys: &[&str]) -> Value {
    let mut out = Map::new();
    for k in keys {
        out.insert(
            (*k).to_string(),
            row.get(*k).cloned().unwrap_or(Value::Null),
        );
    }
    Value::Object(out)
}

/// Applies an admin edit. Returns None when the band does not exist (nothing written).
pub async fn patch_band(
    db: impl Acquire<'_, Database = Postgres>,
    ma_id: i64,
    edits: &[(BandField, FieldValue)],
    who: &Audit<'_>,
    code_of: CountryCodeOf,
) -> Result<Option<BandDetail>> {
    let mut tx = db.begin().await?;
    let Some(before) = row_for_update(&mut tx, ma_id).await? else {
        return Ok(None);
    };
    let names: Vec<&str> = edits.iter().map(|(f, _)| f.as_str()).collect();
    write_values(&mut tx, ma_id, edits, code_of).await?;
    lock_fields(&mut tx, ma_id, &names).await?;
    let after = row_for_update(&mut tx, ma_id).await?.unwrap_or(Value::Null);
    let target = format!("band:{ma_id}");
    record(
        &mut tx,
        &Entry {
            username: who.username,
            action: "band.patch",
            target: &target,
            before: Some(pick(&before, &names)),
            after: Some(pick(&after, &names)),
            ip: who.ip.clone(),
        },
    )
    .await?;
    let band = band_detail(&mut *tx, ma_id).await?;
    tx.commit().await?;
    Ok(band)
}

/// Casts an upstream (JSON) value to the column type of `field`.
pub fn cast_upstream(field: BandField, v: &Value) -> std::result::Result<FieldValue, String> {
    if field == BandField::FormedYear {
        let year = match v {
            Value::Null => None,
            Value::Number(n) => Some(
                n.as_i64()
                    .and_then(|i| i32::try_from(i).ok())
                    .ok_or_else(|| format!("upstream formed_year {n} is not an integer year"))?,
            ),
            Value::String(s) if s.trim().is_empty() => None,
            Value::String(s) => Some(
                s.trim()
                    .parse::<i32>()
                    .map_err(|_| format!("upstream formed_year {s:?} is not an integer"))?,
            ),
            other => return Err(format!("upstream formed_year {other} is not an integer")),
        };
        return Ok(FieldValue::Year(year));
    }
    let text = match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(_) | Value::Object(_) => {
            return Err(format!("upstream {} is not a text value", field.as_str()));
        }
    };
    if field == BandField::Name && text.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return Err("upstream name is empty".to_string());
    }
    Ok(FieldValue::Text(text))
}

/// Resolves the pending conflict on `field`, in one transaction with its audit row.
pub async fn resolve_conflict(
    db: impl Acquire<'_, Database = Postgres>,
    ma_id: i64,
    field: BandField,
    action: ConflictAction,
    who: &Audit<'_>,
    code_of: CountryCodeOf,
) -> Result<ResolveOutcome> {
    let mut tx = db.begin().await?;
    let Some(before) = row_for_update(&mut tx, ma_id).await? else {
        return Ok(ResolveOutcome::NotFound);
    };
    let key = field.as_str();
    let Some(upstream) = before
        .get("crawler_pending")
        .and_then(|p| p.get(key))
        .cloned()
    else {
        return Ok(ResolveOutcome::NoConflict);
    };
    match action {
        ConflictAction::Accept => {
            let value = match cast_upstream(field, &upstream) {
                Ok(v) => v,
                Err(msg) => return Ok(ResolveOutcome::BadValue(msg)),
            };
            write_values(&mut tx, ma_id, &[(field, value)], code_of).await?;
            unlock_field(&mut tx, ma_id, key).await?;
        }
        ConflictAction::Keep => lock_fields(&mut tx, ma_id, &[key]).await?,
    }
    let after = row_for_update(&mut tx, ma_id).await?.unwrap_or(Value::Null);
    let diff_keys = [key, "locked_fields", "crawler_pending"];
    let target = format!("band:{ma_id}");
    let action_name = format!("band.resolve_conflict.{}", action.as_str());
    record(
        &mut tx,
        &Entry {
            username: who.username,
            action: &action_name,
            target: &target,
            before: Some(pick(&before, &diff_keys)),
            after: Some(pick(&after, &diff_keys)),
            ip: who.ip.clone(),
        },
    )
    .await?;
    let band = band_detail(&mut *tx, ma_id).await?;
    tx.commit().await?;
    Ok(band.map_or(ResolveOutcome::NotFound, |b| {
        ResolveOutcome::Resolved(Box::new(b))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn casts_follow_the_column_type() {
        let y = BandField::FormedYear;
        assert_eq!(
            cast_upstream(y, &json!(1991)),
            Ok(FieldValue::Year(Some(1991)))
        );
        assert_eq!(
            cast_upstream(y, &json!(" 1991 ")),
            Ok(FieldValue::Year(Some(1991)))
        );
        assert_eq!(cast_upstream(y, &json!(null)), Ok(FieldValue::Year(None)));
        assert!(cast_upstream(y, &json!("early 90s")).is_err());
        assert!(cast_upstream(y, &json!(19.5)).is_err());
        assert!(cast_upstream(y, &json!(1e12)).is_err());
        let g = BandField::Genre;
        assert_eq!(
            cast_upstream(g, &json!("Doom")),
            Ok(FieldValue::Text(Some("Doom".into())))
        );
        assert!(cast_upstream(g, &json!({"a": 1})).is_err());
        assert!(cast_upstream(BandField::Name, &json!(null)).is_err());
    }
}
