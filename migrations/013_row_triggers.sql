-- band_locations.updated_at follows the row's real changes only (rule 3's spirit for the
-- location rows). The version in 008 compared the whole row, but in a BEFORE trigger the
-- generated `geom` column is still NULL in NEW while OLD holds the computed point, so every
-- no-op UPDATE of a located row moved updated_at. `geom` is derived from lat/lon, which
-- are compared, so leaving it out loses nothing.
CREATE OR REPLACE FUNCTION band_locations_touch() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF to_jsonb(NEW) - ARRAY['updated_at', 'geom'] IS DISTINCT FROM
       to_jsonb(OLD) - ARRAY['updated_at', 'geom'] THEN
        NEW.updated_at := now();
    ELSE
        NEW.updated_at := OLD.updated_at;
    END IF;
    RETURN NEW;
END
$$;

-- `GET /admin/api/llm?q=` is a substring search on the place of each call.
CREATE INDEX IF NOT EXISTS llm_cache_location_raw_trgm
    ON llm_cache USING GIN (location_raw gin_trgm_ops);
