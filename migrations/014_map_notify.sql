-- The map version (migration 010) moves only when something the map shows or filters on
-- can change. The statement triggers of 010 fired on every UPDATE, so pipeline bookkeeping
-- (geocoder claims, crawled_at, attempts, updated_at…) rebuilt the whole in-memory snapshot
-- and emptied its filter caches and ETags many times a minute while the pipeline ran.
-- Row triggers with WHEN clauses compare OLD and NEW instead; the columns are those read by
-- crates/map/src/points.sql. Replay-safe: CREATE OR REPLACE and DROP ... IF EXISTS only.

-- Once per transaction: a bulk statement touching 150,000 mapped rows must not pay
-- 150,000 nextval/pg_notify calls. A reader only needs the counter to move before the
-- writer commits (it then either sees the rows or lists the writer as in flight, see
-- crates/map/src/load.rs), so one bump per writing transaction is enough. The marker is
-- transaction-local (set_config(..., true)), and a rolled-back savepoint undoes it, so a
-- later change in the same transaction bumps again.
CREATE OR REPLACE FUNCTION bump_map_version() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    xact text := txid_current()::text;
BEGIN
    IF current_setting('bandmap.map_bumped_xact', true) IS DISTINCT FROM xact THEN
        PERFORM nextval('map_data_version');
        PERFORM pg_notify('bandmap_map_changed', '');
        PERFORM set_config('bandmap.map_bumped_xact', xact, true);
    END IF;
    RETURN NULL;
END
$$;

-- The statement triggers of 010.
DROP TRIGGER IF EXISTS band_locations_map_version ON band_locations;
DROP TRIGGER IF EXISTS bands_map_version ON bands;

-- band_locations: a row counts on the map when its status is `done` or `country_only`.
DROP TRIGGER IF EXISTS band_locations_map_insert ON band_locations;
CREATE TRIGGER band_locations_map_insert
    AFTER INSERT ON band_locations
    FOR EACH ROW
    WHEN (NEW.geocode_status IN ('done', 'country_only'))
    EXECUTE FUNCTION bump_map_version();

DROP TRIGGER IF EXISTS band_locations_map_delete ON band_locations;
CREATE TRIGGER band_locations_map_delete
    AFTER DELETE ON band_locations
    FOR EACH ROW
    WHEN (OLD.geocode_status IN ('done', 'country_only'))
    EXECUTE FUNCTION bump_map_version();

-- Entering or leaving the mappable statuses, or a mapped row changing a shown column.
-- (A change between two mappable statuses, done ↔ country_only, shows nothing new.)
DROP TRIGGER IF EXISTS band_locations_map_update ON band_locations;
CREATE TRIGGER band_locations_map_update
    AFTER UPDATE ON band_locations
    FOR EACH ROW
    WHEN ((OLD.geocode_status IN ('done', 'country_only'))
              IS DISTINCT FROM (NEW.geocode_status IN ('done', 'country_only'))
          OR (NEW.geocode_status IN ('done', 'country_only')
              AND (OLD.lat IS DISTINCT FROM NEW.lat
                   OR OLD.lon IS DISTINCT FROM NEW.lon
                   OR OLD.step_label IS DISTINCT FROM NEW.step_label
                   OR OLD.location_raw IS DISTINCT FROM NEW.location_raw
                   OR OLD.step_order IS DISTINCT FROM NEW.step_order
                   OR OLD.ma_id IS DISTINCT FROM NEW.ma_id)))
    EXECUTE FUNCTION bump_map_version();

DROP TRIGGER IF EXISTS band_locations_map_truncate ON band_locations;
CREATE TRIGGER band_locations_map_truncate
    AFTER TRUNCATE ON band_locations
    FOR EACH STATEMENT
    EXECUTE FUNCTION bump_map_version();

-- bands: only the columns of the map's single points and filters. No INSERT trigger: a new
-- band has no band_locations row yet (the foreign key), so its points arrive through the
-- band_locations INSERT trigger. DELETE cascades to band_locations (whose trigger fires);
-- the bands trigger below also covers it should the cascade ever change.
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
          OR OLD.formed_year IS DISTINCT FROM NEW.formed_year)
    EXECUTE FUNCTION bump_map_version();

DROP TRIGGER IF EXISTS bands_map_delete ON bands;
CREATE TRIGGER bands_map_delete
    AFTER DELETE ON bands
    FOR EACH ROW
    EXECUTE FUNCTION bump_map_version();

DROP TRIGGER IF EXISTS bands_map_truncate ON bands;
CREATE TRIGGER bands_map_truncate
    AFTER TRUNCATE ON bands
    FOR EACH STATEMENT
    EXECUTE FUNCTION bump_map_version();
