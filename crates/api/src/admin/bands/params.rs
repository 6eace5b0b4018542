//! Inputs of the band endpoints, parsed into valid values (STYLE "parse, don't validate"):
//! the list query, the PATCH body and the resolve-conflict body.

use crate::error::ApiError;
use crate::extract::{Page, clean_text, contains_pattern, parse_bool};
use bandmap_db::bands::admin::{BandField, BandFilter, BandSort, FieldValue};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// Text searches are cut to this many characters (SPEC limits).
pub const SEARCH_CHARS: usize = 100;
/// `genre`, `country`, `status` longer than this are refused.
pub const BOUNDED_CHARS: usize = 100;
/// Earliest accepted `formed_year`.
pub const YEAR_MIN: i32 = 1900;

/// Query of `GET /admin/api/bands`. Values arrive as text so each error names its field.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BandListParams {
    /// Substring of the name (case-insensitive, wildcards literal, cut to 100 characters);
    /// a numeric value also matches that exact `ma_id`.
    pub q: Option<String>,
    /// Substring of `location_text` (cut to 100 characters).
    pub location_q: Option<String>,
    /// Substring of `themes` (cut to 100 characters).
    pub themes_q: Option<String>,
    /// Substring of `genre`, case-insensitive; more than 100 characters → 400.
    pub genre: Option<String>,
    /// Country name or ISO code, case-insensitive equality; more than 100 characters → 400.
    pub country: Option<String>,
    /// Status, case-insensitive equality; more than 100 characters → 400.
    pub status: Option<String>,
    /// `true`/`1`: only bands with a primary point; `false`/`0`: only without.
    #[param(value_type = Option<bool>)]
    pub has_lat: Option<String>,
    /// `true`/`1`: `location_text` filled; `false`/`0`: empty.
    #[param(value_type = Option<bool>)]
    pub has_location: Option<String>,
    /// `true`/`1`: only bands with pending conflicts; `false`/`0`: the others.
    #[param(value_type = Option<bool>)]
    pub has_conflict: Option<String>,
    /// `name` (default), `ma_id`, `country`, `formed_year`, `updated_at`; prefix `-` for
    /// descending.
    #[param(pattern = "^-?(name|ma_id|country|formed_year|updated_at)$")]
    pub sort: Option<String>,
    /// Page size (default 50, larger than 500 is clamped).
    #[param(value_type = Option<i64>, minimum = 0)]
    pub limit: Option<String>,
    /// Rows skipped.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
}

fn non_blank(v: &Option<String>) -> Option<&str> {
    v.as_deref()
        .filter(|s| !clean_text(s, false).trim().is_empty())
}

fn pattern(v: &Option<String>) -> Option<String> {
    non_blank(v).map(|s| contains_pattern(s, SEARCH_CHARS))
}

fn bounded(name: &str, v: &Option<String>) -> Result<Option<String>, ApiError> {
    crate::filter_text::bounded(name, v.as_deref())
}

fn boolean(name: &str, v: &Option<String>) -> Result<Option<bool>, ApiError> {
    v.as_deref().map(|s| parse_bool(name, s.trim())).transpose()
}

impl BandListParams {
    /// Validates every parameter.
    pub fn into_filter(self) -> Result<BandFilter, ApiError> {
        let page = Page::parse(self.limit.as_deref(), self.offset.as_deref())?;
        let sort = match self.sort.as_deref().map(str::trim) {
            None | Some("") => BandSort::default(),
            Some(s) => BandSort::parse(s).ok_or_else(|| {
                ApiError::bad_request(
                    "sort must be one of name, ma_id, country, formed_year, updated_at, optionally prefixed with -",
                )
            })?,
        };
        let genre = bounded("genre", &self.genre)?;
        Ok(BandFilter {
            name_pattern: pattern(&self.q),
            ma_id: non_blank(&self.q)
                .and_then(|s| s.trim().parse::<i64>().ok())
                .filter(|id| *id > 0),
            location_pattern: pattern(&self.location_q),
            themes_pattern: pattern(&self.themes_q),
            genre_pattern: genre.map(|g| contains_pattern(&g, BOUNDED_CHARS)),
            country: bounded("country", &self.country)?,
            status: bounded("status", &self.status)?,
            has_lat: boolean("has_lat", &self.has_lat)?,
            has_location: boolean("has_location", &self.has_location)?,
            has_conflict: boolean("has_conflict", &self.has_conflict)?,
            sort,
            limit: page.limit,
            offset: page.offset,
        })
    }
}

/// A JSON body that must be an object (serde would also read a struct from an array).
pub fn from_object<T: DeserializeOwned>(body: Value) -> Result<T, ApiError> {
    if !body.is_object() {
        return Err(ApiError::bad_request("the body must be a JSON object"));
    }
    serde_json::from_value(body).map_err(|e| ApiError::bad_request(format!("invalid body: {e}")))
}

/// Present-but-null → `Some(None)`, absent → `None` (through `#[serde(default)]`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// Body of `PATCH /admin/api/bands/{ma_id}`: any of these keys; `null` clears a field
/// (except `name`). Another key → 400.
// The schema says what the handler checks where OpenAPI can: a `name` that is a non-blank
// string (never null). "At least one key" stays unsaid: utoipa 5 writes `min_properties`
// out as `maxProperties`, which would forbid editing two fields at once.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BandPatchRequest {
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = String, required = false, min_length = 1, max_length = 300, pattern = "\\S")]
    pub name: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 300)]
    pub genre: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 1000)]
    pub themes: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub status: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub country: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 1000)]
    pub location_text: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i32>, minimum = 1900)]
    pub formed_year: Option<Option<i32>>,
}

fn text_value(field: BandField, v: Option<String>) -> Result<FieldValue, ApiError> {
    let keep_newlines = field == BandField::Themes;
    let cleaned = v
        .map(|s| clean_text(&s, keep_newlines).trim().to_string())
        .filter(|s| !s.is_empty());
    let name = field.as_str();
    match &cleaned {
        None if field == BandField::Name => {
            return Err(ApiError::bad_request("name cannot be empty"));
        }
        Some(s) if s.chars().count() > field.max_chars() => {
            return Err(ApiError::bad_request(format!(
                "{name} must be at most {} characters",
                field.max_chars()
            )));
        }
        _ => {}
    }
    Ok(FieldValue::Text(cleaned))
}

impl BandPatchRequest {
    /// The edits, validated; an empty body → 400. `max_year` is next year.
    pub fn into_edits(self, max_year: i32) -> Result<Vec<(BandField, FieldValue)>, ApiError> {
        let mut edits = Vec::new();
        for (field, value) in [
            (BandField::Name, self.name),
            (BandField::Genre, self.genre),
            (BandField::Themes, self.themes),
            (BandField::Status, self.status),
            (BandField::Country, self.country),
            (BandField::LocationText, self.location_text),
        ] {
            if let Some(v) = value {
                edits.push((field, text_value(field, v)?));
            }
        }
        if let Some(year) = self.formed_year {
            if let Some(y) = year
                && !(YEAR_MIN..=max_year).contains(&y)
            {
                return Err(ApiError::bad_request(format!(
                    "formed_year must be between {YEAR_MIN} and {max_year}"
                )));
            }
            edits.push((BandField::FormedYear, FieldValue::Year(year)));
        }
        if edits.is_empty() {
            return Err(ApiError::bad_request(
                "the body must hold at least one of name, genre, themes, status, country, location_text, formed_year",
            ));
        }
        Ok(edits)
    }
}

/// A field of the conflict allowlist (the PATCH fields).
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConflictField {
    Name,
    Genre,
    Themes,
    Status,
    Country,
    LocationText,
    FormedYear,
}

impl From<ConflictField> for BandField {
    fn from(f: ConflictField) -> Self {
        match f {
            ConflictField::Name => BandField::Name,
            ConflictField::Genre => BandField::Genre,
            ConflictField::Themes => BandField::Themes,
            ConflictField::Status => BandField::Status,
            ConflictField::Country => BandField::Country,
            ConflictField::LocationText => BandField::LocationText,
            ConflictField::FormedYear => BandField::FormedYear,
        }
    }
}

/// `keep` the admin's value or `accept` the upstream one.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConflictActionName {
    Keep,
    Accept,
}

/// Body of `POST /admin/api/bands/{ma_id}/resolve-conflict`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveConflictRequest {
    pub field: ConflictField,
    pub action: ConflictActionName,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Result<BandFilter, ApiError> {
        let q: String = pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&");
        let p: BandListParams = serde_urlencoded_like(&q);
        p.into_filter()
    }

    fn serde_urlencoded_like(q: &str) -> BandListParams {
        let uri: axum::http::Uri = format!("/x?{q}").parse().unwrap();
        axum::extract::Query::<BandListParams>::try_from_uri(&uri)
            .unwrap()
            .0
    }

    #[test]
    fn list_validation() {
        assert!(params(&[("limit", "abc")]).is_err());
        assert!(params(&[("has_lat", "yes")]).is_err());
        assert!(params(&[("sort", "bogus")]).is_err());
        assert!(params(&[("country", &"x".repeat(101))]).is_err());
        assert!(params(&[("country", &"x".repeat(100))]).is_ok());
        let f = params(&[("q", "666"), ("sort", "-updated_at"), ("has_conflict", "1")]).unwrap();
        assert_eq!(f.ma_id, Some(666));
        assert_eq!(f.name_pattern.as_deref(), Some("%666%"));
        assert!(f.sort.desc);
        assert_eq!(f.has_conflict, Some(true));
        let long = params(&[("q", &"a".repeat(300))]).unwrap();
        assert_eq!(long.name_pattern.map(|p| p.len()), Some(102));
    }

    #[test]
    fn patch_validation() {
        let empty = BandPatchRequest::default();
        assert!(empty.into_edits(2027).is_err());
        let p: BandPatchRequest =
            serde_json::from_str(r#"{"genre": "Black\u0007 Metal", "formed_year": null}"#).unwrap();
        let edits = p.into_edits(2027).unwrap();
        assert_eq!(
            edits,
            vec![
                (
                    BandField::Genre,
                    FieldValue::Text(Some("Black Metal".into()))
                ),
                (BandField::FormedYear, FieldValue::Year(None)),
            ]
        );
        assert!(serde_json::from_str::<BandPatchRequest>(r#"{"label": "x"}"#).is_err());
        assert!(serde_json::from_str::<BandPatchRequest>(r#"{"formed_year": "1990"}"#).is_err());
        let p: BandPatchRequest = serde_json::from_str(r#"{"name": null}"#).unwrap();
        assert!(p.into_edits(2027).is_err());
        let p: BandPatchRequest = serde_json::from_str(r#"{"formed_year": 1850}"#).unwrap();
        assert!(p.into_edits(2027).is_err());
    }
}
