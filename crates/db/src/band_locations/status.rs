//! [`GeocodeStatus`]: the `geocode_status` column (CONTRACT §3), as the CHECK constraint
//! `band_locations_status_check` lists it. Stored and serialised as its lower-case name;
//! bound and read as TEXT, so queries bind the enum instead of spelling the string.

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgHasArrayType, PgTypeInfo, PgValueRef};
use sqlx::{Decode, Encode, Postgres, Type};

/// Where a `band_locations` row is in the geocoding pipeline.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum GeocodeStatus {
    /// Queued for the geocoder (due at `next_attempt_at`).
    Pending,
    /// Claimed by a geocoding worker (`claimed_at` is its token).
    Processing,
    /// Located at a place.
    Done,
    /// Located at its country's centroid: the row names no place.
    CountryOnly,
    /// Every geocoding fallback failed: the LLM worker's queue (rule 18).
    LlmNeeded,
    /// Neither the geocoder nor the LLM could place it: waits for an admin.
    Manual,
    /// A refusal retrying will not fix, or processing that raised.
    Error,
}

impl GeocodeStatus {
    /// Every status, in pipeline order.
    pub const ALL: [GeocodeStatus; 7] = [
        GeocodeStatus::Pending,
        GeocodeStatus::Processing,
        GeocodeStatus::Done,
        GeocodeStatus::CountryOnly,
        GeocodeStatus::LlmNeeded,
        GeocodeStatus::Manual,
        GeocodeStatus::Error,
    ];

    /// The statuses whose coordinates count (the map, the band's primary point, the card).
    pub const LOCATED: [GeocodeStatus; 2] = [GeocodeStatus::Done, GeocodeStatus::CountryOnly];

    /// The stored name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GeocodeStatus::Pending => "pending",
            GeocodeStatus::Processing => "processing",
            GeocodeStatus::Done => "done",
            GeocodeStatus::CountryOnly => "country_only",
            GeocodeStatus::LlmNeeded => "llm_needed",
            GeocodeStatus::Manual => "manual",
            GeocodeStatus::Error => "error",
        }
    }

    /// Whether a row in this status carries a point that counts ([`Self::LOCATED`]).
    #[must_use]
    pub const fn is_located(self) -> bool {
        matches!(self, GeocodeStatus::Done | GeocodeStatus::CountryOnly)
    }
}

impl std::fmt::Display for GeocodeStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that names no [`GeocodeStatus`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown geocode status {0:?}")]
pub struct UnknownStatus(pub String);

impl std::str::FromStr for GeocodeStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GeocodeStatus::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| UnknownStatus(s.to_owned()))
    }
}

impl Type<Postgres> for GeocodeStatus {
    fn type_info() -> PgTypeInfo {
        <&str as Type<Postgres>>::type_info()
    }

    fn compatible(ty: &PgTypeInfo) -> bool {
        <&str as Type<Postgres>>::compatible(ty)
    }
}

impl PgHasArrayType for GeocodeStatus {
    fn array_type_info() -> PgTypeInfo {
        <&str as PgHasArrayType>::array_type_info()
    }

    fn array_compatible(ty: &PgTypeInfo) -> bool {
        <&str as PgHasArrayType>::array_compatible(ty)
    }
}

impl Encode<'_, Postgres> for GeocodeStatus {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <&str as Encode<'_, Postgres>>::encode(self.as_str(), buf)
    }
}

impl Decode<'_, Postgres> for GeocodeStatus {
    fn decode(value: PgValueRef<'_>) -> Result<Self, BoxDynError> {
        Ok(<&str as Decode<'_, Postgres>>::decode(value)?.parse()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in GeocodeStatus::ALL {
            assert_eq!(s.as_str().parse::<GeocodeStatus>(), Ok(s));
            let json = serde_json::to_string(&s).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
        }
        assert!("Done".parse::<GeocodeStatus>().is_err());
    }
}
