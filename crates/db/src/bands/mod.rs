//! `bands`: the catalogue. Upserts from the crawler and the import share one path that
//! respects locked fields and records conflicts; admin reads and edits live beside it.

pub mod admin;
pub mod by_name;
pub mod enrich;
pub mod upsert;
