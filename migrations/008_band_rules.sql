-- Rules that belong in the database.
--
-- Rule 3: updated_at moves only when a catalogue value really changes. Crawl bookkeeping,
-- the derived point, the lock list and pending conflicts never move it (CONTRACT §11).
-- Rule 20: a real change of location_text deletes the band's band_locations rows (and
-- clears the primary point they produced) so the pipeline re-enqueues the band.
CREATE OR REPLACE FUNCTION bands_catalogue_part(b bands) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT to_jsonb(b) - ARRAY[
        'updated_at', 'crawled_at', 'crawled_hash', 'enriched', 'enrich_pending',
        'first_seen_at', 'ma_created_at', 'ma_modified_at', 'ma_modified_text',
        'lat', 'lon', 'geom', 'geocode_status', 'geocode_provider', 'geocode_confidence',
        'geocode_location_id', 'geocode_updated_at', 'locked_fields', 'crawler_pending'
    ]
$$;

CREATE OR REPLACE FUNCTION bands_before_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.location_text IS DISTINCT FROM OLD.location_text THEN
        NEW.lat := NULL;
        NEW.lon := NULL;
        NEW.geocode_status := NULL;
        NEW.geocode_provider := NULL;
        NEW.geocode_confidence := NULL;
        NEW.geocode_location_id := NULL;
        NEW.geocode_updated_at := NULL;
    END IF;
    IF bands_catalogue_part(NEW) IS DISTINCT FROM bands_catalogue_part(OLD) THEN
        NEW.updated_at := now();
    ELSE
        NEW.updated_at := OLD.updated_at;
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION bands_after_location_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM band_locations WHERE ma_id = NEW.ma_id;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS bands_before_update ON bands;
CREATE TRIGGER bands_before_update BEFORE UPDATE ON bands
    FOR EACH ROW EXECUTE FUNCTION bands_before_update();

DROP TRIGGER IF EXISTS bands_after_location_change ON bands;
CREATE TRIGGER bands_after_location_change AFTER UPDATE OF location_text ON bands
    FOR EACH ROW WHEN (OLD.location_text IS DISTINCT FROM NEW.location_text)
    EXECUTE FUNCTION bands_after_location_change();

-- band_locations.updated_at follows its own real changes.
CREATE OR REPLACE FUNCTION band_locations_touch() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF to_jsonb(NEW) - 'updated_at' IS DISTINCT FROM to_jsonb(OLD) - 'updated_at' THEN
        NEW.updated_at := now();
    ELSE
        NEW.updated_at := OLD.updated_at;
    END IF;
    RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS band_locations_touch ON band_locations;
CREATE TRIGGER band_locations_touch BEFORE UPDATE ON band_locations
    FOR EACH ROW EXECUTE FUNCTION band_locations_touch();
