//! Typed query parameters (docs/architecture.md "Typed edges"): each value type parses one
//! kind of parameter text once, at the edge, and describes itself to OpenAPI, so a handler
//! receives valid values and the document's parameter schemas come from the types.
//!
//! A field of a query struct is `Option<T>` read through the function of its parameter's
//! name: `#[serde(default, deserialize_with = "param::zoom")] zoom: Option<Zoom>` (and
//! `#[param(inline)]` for its schema). Absent or blank (whitespace only; for texts, once
//! control characters are removed) → `None`, the parameter's default. A value `T` refuses
//! is CONTRACT's JSON 400 with `T`'s message, which names the parameter: the message
//! travels through serde marked by [`TAG`], and [`crate::extract::Query`] answers it as is
//! (axum's "customize extractor error" pattern). Other failures of the query string (a
//! parameter given twice) keep the extractor's `invalid query: …` message. With several
//! bad values, the first in the query string is the one named.
//!
//! A parameter not declared by the struct is ignored, as before.

use crate::extract::{clean_text, contains_pattern, parse_bool};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{KnownFormat, RefOr, SchemaFormat};

/// Marks a typed parameter's message inside serde's error text (never in a message
/// itself: the extractor keeps what follows it).
pub(crate) const TAG: &str = "\u{0}param\u{0}";

/// The message of a refused value, when `error_text` is a typed parameter's refusal.
pub(crate) fn refusal(error_text: &str) -> Option<&str> {
    error_text.split_once(TAG).map(|(_, message)| message)
}

/// A value of a query parameter, parsed from its text.
pub trait FromParam: Sized {
    /// Parses the text of parameter `name` (as sent, not blank); the error is the whole
    /// message of the 400, naming `name`.
    fn from_param(name: &str, raw: &str) -> Result<Self, String>;

    /// Whether `raw` means the parameter is absent: blank.
    fn is_blank(raw: &str) -> bool {
        raw.trim().is_empty()
    }
}

/// Reads parameter `name` as an optional `T` (see the module documentation).
pub fn named<'de, D, T>(name: &str, d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromParam,
{
    let raw = Cow::<str>::deserialize(d)?;
    if T::is_blank(&raw) {
        return Ok(None);
    }
    T::from_param(name, &raw)
        .map(Some)
        .map_err(|message| D::Error::custom(format!("{TAG}{message}")))
}

/// One `deserialize_with` function per parameter name, so the name in a message is the
/// field's.
macro_rules! names {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("Reads the `", stringify!($name), "` parameter (see [`named`]).")]
            pub fn $name<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
            where
                D: Deserializer<'de>,
                T: FromParam,
            {
                named(stringify!($name), d)
            }
        )*
    };
}

names!(
    bbox,
    zoom,
    genre,
    country,
    status,
    year_min,
    year_max,
    family,
    breakdown,
    limit,
    offset,
    from,
    to,
    q,
    location_q,
    themes_q,
    has_lat,
    has_location,
    has_conflict,
    sort,
    run_id,
    min_id,
    level,
    kind,
    model,
    ma_id,
    city_null,
    malformed,
    place,
    band,
    range,
    days,
);

fn integer(format: KnownFormat) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(SchemaType::new(Type::Integer))
        .format(Some(SchemaFormat::KnownFormat(format)))
}

fn text() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::new(Type::String))
}

/// Implements utoipa's schema traits for a parameter type from an [`ObjectBuilder`].
macro_rules! schema {
    ($ty:ty, $build:expr) => {
        impl utoipa::PartialSchema for $ty {
            fn schema() -> RefOr<Schema> {
                let build: ObjectBuilder = $build;
                RefOr::T(Schema::Object(build.build()))
            }
        }
        impl utoipa::ToSchema for $ty {}
    };
}

/// `bbox=minLon,minLat,maxLon,maxLat`: four finite numbers, longitudes in [-180, 180],
/// latitudes in [-90, 90], each minimum at most its maximum. Absent → the whole world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bbox(pub bandmap_index::map::Bbox);

impl Default for Bbox {
    fn default() -> Self {
        Bbox(bandmap_index::map::Bbox::WORLD)
    }
}

impl FromParam for Bbox {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        let bad = || format!("{name} must be minLon,minLat,maxLon,maxLat (four numbers)");
        let parts: Vec<f64> = raw
            .trim()
            .split(',')
            .map(|p| p.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let [min_lon, min_lat, max_lon, max_lat] = parts[..] else {
            return Err(bad());
        };
        if parts.iter().any(|v| !v.is_finite()) {
            return Err(format!("{name} values must be finite numbers"));
        }
        let lon_ok = |v: f64| (-180.0..=180.0).contains(&v);
        let lat_ok = |v: f64| (-90.0..=90.0).contains(&v);
        if !(lon_ok(min_lon) && lon_ok(max_lon) && lat_ok(min_lat) && lat_ok(max_lat)) {
            return Err(format!(
                "{name} out of range: longitudes in [-180, 180], latitudes in [-90, 90]"
            ));
        }
        if min_lon > max_lon || min_lat > max_lat {
            return Err(format!(
                "{name} minimum greater than maximum (minLon,minLat,maxLon,maxLat)"
            ));
        }
        Ok(Bbox(bandmap_index::map::Bbox {
            min_lon,
            min_lat,
            max_lon,
            max_lat,
        }))
    }
}

schema!(
    Bbox,
    text().description(Some(
        "minLon,minLat,maxLon,maxLat in degrees (default: the whole world)"
    ))
);

/// A map zoom: an integer from 0 to 20; absent → 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zoom(pub u8);

impl Default for Zoom {
    fn default() -> Self {
        Zoom(3)
    }
}

impl FromParam for Zoom {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        match raw.trim().parse::<u8>() {
            Ok(z) if z <= bandmap_index::map::query::MAX_ZOOM => Ok(Zoom(z)),
            _ => Err(format!("{name} must be an integer from 0 to 20")),
        }
    }
}

schema!(
    Zoom,
    integer(KnownFormat::Int32)
        .minimum(Some(0))
        .maximum(Some(20))
);

/// A formation year bound: an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Year(pub i32);

impl FromParam for Year {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        raw.trim()
            .parse::<i32>()
            .map(Year)
            .map_err(|_| format!("{name} must be an integer"))
    }
}

schema!(Year, integer(KnownFormat::Int32));

/// A text filter (`genre`, `country`, `status`): cleaned of control characters and
/// trimmed ([`crate::filter_text`]); over [`crate::filter_text::MAX_FILTER_CHARS`]
/// characters → 400 (cutting it would answer for another filter than the one asked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterText(pub String);

impl FromParam for FilterText {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        match crate::filter_text::bounded(name, Some(raw)) {
            Ok(Some(text)) => Ok(FilterText(text)),
            // Blank is absent ([`FromParam::is_blank`]): not reached.
            Ok(None) => Ok(FilterText(String::new())),
            Err(e) => Err(e.to_string()),
        }
    }

    fn is_blank(raw: &str) -> bool {
        crate::filter_text::text(Some(raw)).is_none()
    }
}

schema!(FilterText, text());

/// A search text (`q`, `location_q`, `themes_q` of the band list): any text, matched as a
/// case-insensitive substring of at most 100 characters, wildcards literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchText(String);

/// Characters of a search text kept.
pub const SEARCH_CHARS: usize = 100;

impl SearchText {
    /// The `ILIKE` pattern (cleaned, cut to [`SEARCH_CHARS`], trimmed, escaped).
    pub fn pattern(&self) -> String {
        contains_pattern(&self.0, SEARCH_CHARS)
    }

    /// The text as a positive integer, when it is one.
    pub fn as_id(&self) -> Option<i64> {
        self.0.trim().parse::<i64>().ok().filter(|id| *id > 0)
    }
}

impl FromParam for SearchText {
    fn from_param(_name: &str, raw: &str) -> Result<Self, String> {
        Ok(SearchText(raw.to_string()))
    }

    fn is_blank(raw: &str) -> bool {
        clean_text(raw, false).trim().is_empty()
    }
}

schema!(SearchText, text());

/// `family=black,doom`: the genre families kept, as a mask of
/// [`bandmap_index::map::Family::bit`]s (0: every family); over 100 characters or an
/// unknown name → 400; names in any case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Families(pub u16);

impl FromParam for Families {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        use bandmap_index::map::{Family, family};
        let text = FilterText::from_param(name, raw)?;
        family::parse_mask(&text.0).map(Families).map_err(|bad| {
            format!(
                "{name}: unknown genre family {bad:?} (known: {})",
                Family::ALL.map(Family::name).join(", ")
            )
        })
    }

    fn is_blank(raw: &str) -> bool {
        FilterText::is_blank(raw)
    }
}

schema!(
    Families,
    text().description(Some("genre families, comma-separated"))
);

/// `breakdown=families` (any case): break the clusters down by genre family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakdown {
    /// Per genre family.
    Families,
}

impl FromParam for Breakdown {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        if raw.trim().eq_ignore_ascii_case("families") {
            Ok(Breakdown::Families)
        } else {
            Err(format!("{name} must be `families` (or absent)"))
        }
    }
}

schema!(Breakdown, text().enum_values(Some(["families"])));

/// The flows listed: an integer from 1 to [`MAX_FLOWS`]; absent → [`DEFAULT_FLOWS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowLimit(pub usize);

/// Most flows listed.
pub const MAX_FLOWS: usize = bandmap_index::map::flows::MAX_LIMIT;
/// Flows listed by default.
pub const DEFAULT_FLOWS: usize = bandmap_index::map::flows::DEFAULT_LIMIT;

impl Default for FlowLimit {
    fn default() -> Self {
        FlowLimit(DEFAULT_FLOWS)
    }
}

impl FromParam for FlowLimit {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        match raw.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_FLOWS).contains(&n) => Ok(FlowLimit(n)),
            _ => Err(format!("{name} must be an integer from 1 to {MAX_FLOWS}")),
        }
    }
}

schema!(
    FlowLimit,
    integer(KnownFormat::Int32)
        .minimum(Some(1))
        .maximum(Some(MAX_FLOWS as f64))
);

/// A place's cell `x,y` as sent. Whether it is one depends on the bbox and zoom beside it
/// (the coordinates must be below `2^level`), so it is checked by [`CellText::at_level`]
/// once those are parsed; the parse itself never refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellText(Option<(u32, u32)>);

impl FromParam for CellText {
    fn from_param(_name: &str, raw: &str) -> Result<Self, String> {
        let coord = |v: &str| v.trim().parse::<u32>().ok();
        Ok(CellText(
            raw.trim()
                .split_once(',')
                .and_then(|(x, y)| Some((coord(x)?, coord(y)?))),
        ))
    }
}

impl CellText {
    /// The cell of parameter `name` (`cell`: as sent, `None` when absent) at `level`:
    /// two integers below `2^level`, else the 400 naming it.
    pub fn at_level(
        name: &str,
        cell: Option<CellText>,
        level: u32,
    ) -> Result<(u32, u32), crate::error::ApiError> {
        let side = 1u64 << level;
        match cell.and_then(|c| c.0) {
            Some((x, y)) if u64::from(x) < side && u64::from(y) < side => Ok((x, y)),
            _ => Err(crate::error::ApiError::bad_request(format!(
                "{name} must be a place's cell `x,y` at this bbox and zoom (integers below {side})"
            ))),
        }
    }
}

schema!(CellText, text().pattern(Some(r"^[0-9]{1,6},[0-9]{1,6}$")));

/// A boolean: `true`, `false`, `1` or `0` (CONTRACT §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag(pub bool);

impl FromParam for Flag {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        parse_bool(name, raw.trim())
            .map(Flag)
            .map_err(|e| e.to_string())
    }
}

schema!(
    Flag,
    ObjectBuilder::new().schema_type(SchemaType::new(Type::Boolean))
);

/// A non-negative integer (`limit`, `offset` of a list page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonNegative(pub i64);

impl FromParam for NonNegative {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        match raw.trim().parse::<i64>() {
            Ok(n) if n >= 0 => Ok(NonNegative(n)),
            _ => Err(format!("{name} must be a non-negative integer")),
        }
    }
}

schema!(NonNegative, integer(KnownFormat::Int64).minimum(Some(0)));

/// An integer (`run_id`, `min_id`, `ma_id`, `days`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Integer(pub i64);

impl FromParam for Integer {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        raw.trim()
            .parse::<i64>()
            .map(Integer)
            .map_err(|_| format!("{name} must be an integer"))
    }
}

schema!(Integer, integer(KnownFormat::Int64));

/// A free text filter: cleaned of control characters and trimmed ([`crate::filter_text`]),
/// no bound (a search cuts it itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text(pub String);

impl FromParam for Text {
    fn from_param(_name: &str, raw: &str) -> Result<Self, String> {
        Ok(Text(
            crate::filter_text::text(Some(raw)).unwrap_or_default(),
        ))
    }

    fn is_blank(raw: &str) -> bool {
        crate::filter_text::text(Some(raw)).is_none()
    }
}

schema!(Text, text());

/// A closed vocabulary read from a parameter: its values, shown by their stored names,
/// and its OpenAPI schema.
pub trait Vocabulary: Copy + std::fmt::Display + 'static {
    /// Every value.
    fn all() -> &'static [Self];
    /// The schema listing the names.
    fn schema() -> utoipa::openapi::Object;
}

/// A value of vocabulary `T`, named in any case (CONTRACT §11); another name → 400 naming
/// the parameter and listing the names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OneOf<T>(pub T);

impl<T: Vocabulary> FromParam for OneOf<T> {
    fn from_param(name: &str, raw: &str) -> Result<Self, String> {
        let value = raw.trim();
        T::all()
            .iter()
            .find(|v| v.to_string().eq_ignore_ascii_case(value))
            .map(|v| OneOf(*v))
            .ok_or_else(|| {
                format!(
                    "{name} must be one of: {}",
                    T::all()
                        .iter()
                        .map(T::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}

impl<T: Vocabulary> utoipa::PartialSchema for OneOf<T> {
    fn schema() -> RefOr<Schema> {
        RefOr::T(Schema::Object(T::schema()))
    }
}

impl<T: Vocabulary> utoipa::ToSchema for OneOf<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_found_behind_the_tag_only() {
        assert_eq!(
            refusal(&format!("x: {TAG}zoom must be")),
            Some("zoom must be")
        );
        assert_eq!(refusal("duplicate field `zoom`"), None);
    }

    #[test]
    fn blank_means_absent() {
        assert!(Zoom::is_blank(" \t"));
        assert!(!Zoom::is_blank("\u{1}"));
        assert!(FilterText::is_blank(" \u{1} "));
        assert!(SearchText::is_blank("\u{7f}"));
    }

    #[test]
    fn cells_are_checked_at_their_level() {
        let cell = CellText::from_param("from", " 3, 4").unwrap();
        assert_eq!(CellText::at_level("from", Some(cell), 5).unwrap(), (3, 4));
        for bad in ["3", "3,32", "a,1", "-1,2"] {
            let cell = CellText::from_param("from", bad).unwrap();
            assert!(CellText::at_level("from", Some(cell), 5).is_err(), "{bad}");
        }
        assert!(CellText::at_level("to", None, 5).is_err());
    }
}

#[cfg(test)]
mod equivalence;
#[cfg(test)]
mod oracle;
