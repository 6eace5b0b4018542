//! The queries of the public HTML pages (issue 28, docs/frontend.md "Town and band
//! pages"): a town's bands, a band's path, the sitemap's lists, and the derived fields of
//! the export. A *town* is the set of `done` rows (places, not country centroids) at one
//! point rounded to 1e-4 degree ([`TownKey`]); the rounding is done in SQL only
//! (`town_key!`), so the key of a row read here and the key a page looks up always agree.

/// The town key of a `band_locations` row aliased `bl`: its latitude and longitude rounded
/// to four decimals, as whole 1e-4 degrees (a macro, so queries are `'static` strings).
macro_rules! town_key {
    () => {
        "(round(bl.lat::numeric, 4) * 10000)::int AS lat_e4, \
         (round(bl.lon::numeric, 4) * 10000)::int AS lon_e4"
    };
}

/// The rows of the town whose key is `$1, $2`: `done` rows (`$3`) whose rounded point is the
/// key. The box test (`$4..$7`, [`town::envelope`]) first uses the GiST index on `geom`; the
/// rounding then keeps exactly the key's rows.
macro_rules! at_town {
    () => {
        "bl.geocode_status = $3 \
         AND bl.geom && ST_MakeEnvelope($4, $5, $6, $7, 4326) \
         AND (round(bl.lat::numeric, 4) * 10000)::int = $1 \
         AND (round(bl.lon::numeric, 4) * 10000)::int = $2"
    };
}

pub mod band;
pub mod export;
pub mod sitemap;
pub mod town;

pub use town::TownKey;
