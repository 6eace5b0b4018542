-- LLM worker: the geocoder's own failure kept apart from the LLM worker's, and one
-- llm_cache row per call. Every statement is replay-safe (IF [NOT] EXISTS, OR REPLACE,
-- guarded UPDATE), so applying this file twice changes nothing.

-- 1. The prompt of the LLM worker quotes the geocoder's last query and error. The worker
--    writes its own failures into band_locations.error (CONTRACT §3), so the geocoder's
--    are copied, at the moment the row enters llm_needed, into columns the LLM worker never
--    writes. A retry then sends the same request (same cache key) as the first attempt.
ALTER TABLE band_locations ADD COLUMN IF NOT EXISTS geocode_query TEXT;
ALTER TABLE band_locations ADD COLUMN IF NOT EXISTS geocode_error TEXT;

-- Only the geocoder's hand-over (processing → llm_needed) and rows created directly in
-- llm_needed (imports, fixtures) are copied: any other way into llm_needed (an admin
-- moving a manual row back) carries an LLM message in `error`, not a geocoder one, and the
-- earlier copy stays the right one.
CREATE OR REPLACE FUNCTION band_locations_keep_geocode_failure() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.geocode_status = 'llm_needed'
       AND (TG_OP = 'INSERT' OR OLD.geocode_status = 'processing') THEN
        NEW.geocode_query := NEW.query;
        NEW.geocode_error := NEW.error;
    END IF;
    RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS band_locations_keep_geocode_failure ON band_locations;
CREATE TRIGGER band_locations_keep_geocode_failure
    BEFORE INSERT OR UPDATE OF geocode_status ON band_locations
    FOR EACH ROW EXECUTE FUNCTION band_locations_keep_geocode_failure();

-- Rows already waiting for the LLM: their `error` is the geocoder's unless the LLM worker
-- has retried them already (its messages have recognisable shapes); those keep NULL and
-- the prompt simply leaves the error line out.
UPDATE band_locations
SET geocode_query = query,
    geocode_error = CASE
        WHEN error LIKE 'LLM %' OR error LIKE 'geocoding LLM city %'
             OR error LIKE '%malformed LLM reply%' OR error LIKE 'LLM paused%'
        THEN NULL ELSE error END
WHERE geocode_status = 'llm_needed' AND geocode_query IS NULL AND geocode_error IS NULL;

-- 2. One llm_cache row per call (SPEC rule 21): a malformed reply and the later valid one
--    for the same request are two billed calls, so the key is no longer unique. Only rows
--    with a validated extraction are served as cache hits (bandmap_db::llm_cache).
ALTER TABLE llm_cache DROP CONSTRAINT IF EXISTS llm_cache_key_key;
CREATE INDEX IF NOT EXISTS llm_cache_key ON llm_cache (key, id DESC)
    WHERE extraction IS NOT NULL;
