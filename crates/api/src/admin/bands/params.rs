//! Inputs of the band endpoints, parsed into valid values (STYLE "parse, don't validate"):
//! the list query, the PATCH body and the resolve-conflict body.

use crate::error::ApiError;
use crate::extract::{Page, clean_text, contains_pattern};
use crate::param::{self, FilterText, Flag, FromParam, NonNegative, SearchText};
use bandmap_db::bands::admin::{BandField, BandFilter, BandSort, FieldValue};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{IntoParams, ToSchema};

/// `genre` is matched as a substring of at most this many characters.
pub const BOUNDED_CHARS: usize = 100;
/// Earliest accepted `formed_year`.
pub const YEAR_MIN: i32 = 1900;

/// Query of `GET /admin/api/bands`, typed ([`crate::param`]): each bad value is a 400
/// naming its parameter; blank is absent.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BandListParams {
    /// Substring of the name (case-insensitive, wildcards literal, cut to 100 characters);
    /// a numeric value also matches that exact `ma_id`.
    #[serde(default, deserialize_with = "param::q")]
    #[param(inline)]
    pub q: Option<SearchText>,
    /// Substring of `location_text` (cut to 100 characters).
    #[serde(default, deserialize_with = "param::location_q")]
    #[param(inline)]
    pub location_q: Option<SearchText>,
    /// Substring of `themes` (cut to 100 characters).
    #[serde(default, deserialize_with = "param::themes_q")]
    #[param(inline)]
    pub themes_q: Option<SearchText>,
    /// Substring of `genre`, case-insensitive; more than 100 characters → 400.
    #[serde(default, deserialize_with = "param::genre")]
    #[param(inline)]
    pub genre: Option<FilterText>,
    /// Country name or ISO code, case-insensitive equality; more than 100 characters → 400.
    #[serde(default, deserialize_with = "param::country")]
    #[param(inline)]
    pub country: Option<FilterText>,
    /// Status, case-insensitive equality; more than 100 characters → 400.
    #[serde(default, deserialize_with = "param::status")]
    #[param(inline)]
    pub status: Option<FilterText>,
    /// `true`/`1`: only bands with a primary point; `false`/`0`: only without.
    #[serde(default, deserialize_with = "param::has_lat")]
    #[param(inline)]
    pub has_lat: Option<Flag>,
    /// `true`/`1`: `location_text` filled; `false`/`0`: empty.
    #[serde(default, deserialize_with = "param::has_location")]
    #[param(inline)]
    pub has_location: Option<Flag>,
    /// `true`/`1`: only bands with pending conflicts; `false`/`0`: the others.
    #[serde(default, deserialize_with = "param::has_conflict")]
    #[param(inline)]
    pub has_conflict: Option<Flag>,
    /// `name` (default), `ma_id`, `country`, `formed_year`, `updated_at`; prefix `-` for
    /// descending.
    #[serde(default, deserialize_with = "param::sort")]
    #[param(inline)]
    pub sort: Option<Sort>,
    /// Page size (default 50, larger than 500 is clamped).
    #[serde(default, deserialize_with = "param::limit")]
    #[param(inline)]
    pub limit: Option<NonNegative>,
    /// Rows skipped.
    #[serde(default, deserialize_with = "param::offset")]
    #[param(inline)]
    pub offset: Option<NonNegative>,
}

/// The order of the band list: a key of CONTRACT §6, optionally prefixed with `-`
/// (exactly as CONTRACT spells them: another value → 400).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort(pub BandSort);

impl FromParam for Sort {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        BandSort::parse(raw.trim()).map(Sort).ok_or_else(|| {
            format!(
                "{name} must be one of name, ma_id, country, formed_year, updated_at, optionally prefixed with -"
            )
        })
    }
}

impl utoipa::PartialSchema for Sort {
    fn schema() -> RefOr<Schema> {
        let schema = ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^-?(name|ma_id|country|formed_year|updated_at)$"))
            .build();
        RefOr::T(Schema::Object(schema))
    }
}

impl utoipa::ToSchema for Sort {}

fn text(v: Option<FilterText>) -> Option<String> {
    v.map(|t| t.0)
}

impl BandListParams {
    /// The filter of the list.
    pub fn into_filter(self) -> BandFilter {
        let page = Page::of(self.limit, self.offset);
        let flag = |f: Option<Flag>| f.map(|f| f.0);
        BandFilter {
            name_pattern: self.q.as_ref().map(SearchText::pattern),
            ma_id: self.q.as_ref().and_then(SearchText::as_id),
            location_pattern: self.location_q.as_ref().map(SearchText::pattern),
            themes_pattern: self.themes_q.as_ref().map(SearchText::pattern),
            genre_pattern: self.genre.map(|g| contains_pattern(&g.0, BOUNDED_CHARS)),
            country: text(self.country),
            status: text(self.status),
            has_lat: flag(self.has_lat),
            has_location: flag(self.has_location),
            has_conflict: flag(self.has_conflict),
            sort: self.sort.map(|s| s.0).unwrap_or_default(),
            limit: page.limit,
            offset: page.offset,
        }
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

    fn params(pairs: &[(&str, &str)]) -> Result<BandFilter, String> {
        let q: String = pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&");
        serde_urlencoded_like(&q).map(BandListParams::into_filter)
    }

    fn serde_urlencoded_like(q: &str) -> Result<BandListParams, String> {
        let uri: axum::http::Uri = format!("/x?{q}").parse().unwrap();
        axum::extract::Query::<BandListParams>::try_from_uri(&uri)
            .map(|p| p.0)
            .map_err(|e| e.body_text())
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
