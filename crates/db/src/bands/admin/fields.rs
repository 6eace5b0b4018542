//! The band fields an admin may edit (the PATCH allowlist, which is also the conflict
//! allowlist), and their typed values.

use serde_json::Value;

/// An editable band column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BandField {
    /// `name` (text, not null).
    Name,
    /// `genre` (text).
    Genre,
    /// `themes` (text).
    Themes,
    /// `status` (text).
    Status,
    /// `country` (text).
    Country,
    /// `location_text` (text).
    LocationText,
    /// `formed_year` (integer).
    FormedYear,
}

impl BandField {
    /// Every editable field, in a fixed order.
    pub const ALL: [BandField; 7] = [
        BandField::Name,
        BandField::Genre,
        BandField::Themes,
        BandField::Status,
        BandField::Country,
        BandField::LocationText,
        BandField::FormedYear,
    ];

    /// Column name (also the key in `locked_fields` and `crawler_pending`).
    pub fn as_str(self) -> &'static str {
        match self {
            BandField::Name => "name",
            BandField::Genre => "genre",
            BandField::Themes => "themes",
            BandField::Status => "status",
            BandField::Country => "country",
            BandField::LocationText => "location_text",
            BandField::FormedYear => "formed_year",
        }
    }

    /// Parses a column name of the allowlist.
    pub fn parse(s: &str) -> Option<BandField> {
        BandField::ALL.into_iter().find(|f| f.as_str() == s)
    }

    /// Longest accepted text, in characters.
    pub fn max_chars(self) -> usize {
        match self {
            BandField::Name | BandField::Genre => 300,
            BandField::Themes | BandField::LocationText => 1000,
            BandField::Status | BandField::Country => 100,
            BandField::FormedYear => 0,
        }
    }
}

/// A value for one field, already of the column's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    /// A text column (None = NULL).
    Text(Option<String>),
    /// `formed_year` (None = NULL).
    Year(Option<i32>),
}

impl FieldValue {
    /// The value as JSON (for audit diffs).
    pub fn to_json(&self) -> Value {
        match self {
            FieldValue::Text(t) => t.clone().map_or(Value::Null, Value::String),
            FieldValue::Year(y) => y.map_or(Value::Null, Value::from),
        }
    }
}
