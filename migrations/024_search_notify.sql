-- The public name search (`GET /api/search`) answers from an in-memory copy of every band
-- (crates/index/src/name_search) that is reloaded when `map_data_version` moves. Until now
-- the counter moved only for what the map shows: a new band (no point yet) and a moved
-- primary point (`bands.lat`/`lon`, written by the geocoder's sync) did not move it, and the
-- copy would not have seen them. Both now bump it, once per transaction like every other
-- change (bump_map_version of migration 014). Replay-safe.

DROP TRIGGER IF EXISTS bands_map_insert ON bands;
CREATE TRIGGER bands_map_insert
    AFTER INSERT ON bands
    FOR EACH STATEMENT
    EXECUTE FUNCTION bump_map_version();

DROP TRIGGER IF EXISTS bands_map_update ON bands;
CREATE TRIGGER bands_map_update
    AFTER UPDATE ON bands
    FOR EACH ROW
    WHEN (OLD.ma_id IS DISTINCT FROM NEW.ma_id
          OR OLD.name IS DISTINCT FROM NEW.name
          OR OLD.genre IS DISTINCT FROM NEW.genre
          OR OLD.country IS DISTINCT FROM NEW.country
          OR OLD.country_code IS DISTINCT FROM NEW.country_code
          OR OLD.status IS DISTINCT FROM NEW.status
          OR OLD.formed_year IS DISTINCT FROM NEW.formed_year
          OR OLD.lat IS DISTINCT FROM NEW.lat
          OR OLD.lon IS DISTINCT FROM NEW.lon)
    EXECUTE FUNCTION bump_map_version();
