-- Change tracking for the in-memory band search of `GET /admin/api/bands`
-- (crates/db/src/bands/admin/search). A reader keeps a copy of the searched and sorted
-- columns and, before each list, reads only what changed since its copy: rows whose
-- `search_xid` belongs to a transaction that was not yet visible to the copy's snapshot,
-- and the tombstones of deleted rows written by such transactions.
--
-- `search_xid` is the transaction that last changed a searched or sorted column (a new row
-- takes the inserting transaction through the column default). NULL on rows that predate
-- this migration: a reader's full load covers them. Added without a default first, so
-- existing rows are not rewritten.
ALTER TABLE bands ADD COLUMN IF NOT EXISTS search_xid xid8;
ALTER TABLE bands ALTER COLUMN search_xid SET DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS bands_search_xid ON bands (search_xid);

-- Bookkeeping, not catalogue: the change marker must never move updated_at (rule 3).
CREATE OR REPLACE FUNCTION bands_catalogue_part(b bands) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT to_jsonb(b) - ARRAY[
        'updated_at', 'crawled_at', 'crawled_hash', 'enriched', 'enrich_pending',
        'first_seen_at', 'ma_created_at', 'ma_modified_at', 'ma_modified_text',
        'lat', 'lon', 'geom', 'geocode_status', 'geocode_provider', 'geocode_confidence',
        'geocode_location_id', 'geocode_updated_at', 'locked_fields', 'crawler_pending',
        'search_xid'
    ]
$$;

-- Deleted bands (ma_id NULL: the whole table was truncated). Readers look rows up by
-- transaction; rows older than a day are pruned by the readers' full loads, and a reader
-- whose copy is older than that reloads in full instead of reading changes.
CREATE TABLE IF NOT EXISTS band_search_deletes (
    xid        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    ma_id      BIGINT,
    deleted_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS band_search_deletes_xid ON band_search_deletes (xid);
CREATE INDEX IF NOT EXISTS band_search_deletes_at ON band_search_deletes (deleted_at);

-- Runs after bands_before_update (triggers of one kind fire in name order), so it sees
-- the updated_at that trigger settled on.
CREATE OR REPLACE FUNCTION bands_search_mark() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.search_xid := pg_current_xact_id();
    IF NEW.ma_id <> OLD.ma_id THEN
        INSERT INTO band_search_deletes (ma_id) VALUES (OLD.ma_id);
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS bands_search_mark ON bands;
CREATE TRIGGER bands_search_mark
    BEFORE UPDATE ON bands
    FOR EACH ROW
    WHEN (OLD.ma_id IS DISTINCT FROM NEW.ma_id
          OR OLD.name IS DISTINCT FROM NEW.name
          OR OLD.genre IS DISTINCT FROM NEW.genre
          OR OLD.location_text IS DISTINCT FROM NEW.location_text
          OR OLD.themes IS DISTINCT FROM NEW.themes
          OR OLD.country IS DISTINCT FROM NEW.country
          OR OLD.country_code IS DISTINCT FROM NEW.country_code
          OR OLD.status IS DISTINCT FROM NEW.status
          OR OLD.formed_year IS DISTINCT FROM NEW.formed_year
          OR OLD.updated_at IS DISTINCT FROM NEW.updated_at
          OR (OLD.lat IS NULL) IS DISTINCT FROM (NEW.lat IS NULL)
          OR (OLD.crawler_pending = '{}'::jsonb) IS DISTINCT FROM (NEW.crawler_pending = '{}'::jsonb))
    EXECUTE FUNCTION bands_search_mark();

CREATE OR REPLACE FUNCTION bands_search_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO band_search_deletes (ma_id) VALUES (OLD.ma_id);
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS bands_search_delete ON bands;
CREATE TRIGGER bands_search_delete
    AFTER DELETE ON bands
    FOR EACH ROW
    EXECUTE FUNCTION bands_search_deleted();

CREATE OR REPLACE FUNCTION bands_search_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO band_search_deletes (ma_id) VALUES (NULL);
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS bands_search_truncate ON bands;
CREATE TRIGGER bands_search_truncate
    AFTER TRUNCATE ON bands
    FOR EACH STATEMENT
    EXECUTE FUNCTION bands_search_truncated();
