-- Issue 13: plans of the geocoder's batch that stay linear whatever the table statistics
-- say. The pipeline turns `pending` rows into `done` ones by the tens of thousands between
-- two ANALYZE runs (and with autovacuum off, or behind, there may be none): the statistics
-- then describe a table without `done` rows, and the planner walked the whole
-- `(geocode_status, id)` index for every claimed row's rule-17 twin and every band's
-- primary point ("status = 'done' matches almost nothing, so scanning it is free"). At
-- 150,000 rows that made each batch read every `done` row: 161 s instead of under a minute
-- (docs/performance.md, "Geocoding pipeline on 150,000 bands").
--
-- * band_locations_status goes: every query on a status either has its own partial index
--   (claim, LLM claim, processing, twin) or reads the table whole anyway (counts per
--   status, the admin list ordered by band).
-- * The twin index gives the rule-17 twin directly in id order: (lower(location_raw),
--   coalesce(country, ''), id) over `done` rows; the query also keeps
--   `country IS NOT DISTINCT FROM`, so NULL and '' are still two countries.
-- Replay-safe.
DROP INDEX IF EXISTS band_locations_status;
DROP INDEX IF EXISTS band_locations_dedup;
CREATE INDEX IF NOT EXISTS band_locations_twin
    ON band_locations (lower(location_raw), coalesce(country, ''), id)
    WHERE geocode_status = 'done';
