-- A cheap change counter for in-memory readers (the map index): every statement that
-- changes mappable data advances a sequence and sends NOTIFY bandmap_map_changed.
-- A sequence, not a counter row, so concurrent writers never wait on one another
-- (a rolled-back change still advances it: readers then refresh for nothing, harmlessly).
CREATE SEQUENCE IF NOT EXISTS map_data_version;

CREATE OR REPLACE FUNCTION bump_map_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM nextval('map_data_version');
    PERFORM pg_notify('bandmap_map_changed', '');
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS band_locations_map_version ON band_locations;
CREATE TRIGGER band_locations_map_version
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON band_locations
    FOR EACH STATEMENT EXECUTE FUNCTION bump_map_version();

DROP TRIGGER IF EXISTS bands_map_version ON bands;
CREATE TRIGGER bands_map_version
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON bands
    FOR EACH STATEMENT EXECUTE FUNCTION bump_map_version();
