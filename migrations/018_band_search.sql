-- Lower-case copies of the texts the admin band list searches, kept by PostgreSQL, with
-- their trigram indexes (docs/admin-auth-and-bands.md, "Performance").
--
-- `x ILIKE p` lower-cases every row it tests (in a UTF-8 database, a conversion to wide
-- characters and back per row): on 150,000 bands that was ~25 of the ~40 ms a broad
-- `genre` filter took. `search_x LIKE lower(p)` matches the same rows (ILIKE is defined
-- as LIKE on both sides lower-cased) with a plain byte comparison.
-- Replay-safe: IF NOT EXISTS / OR REPLACE / IF EXISTS only.

ALTER TABLE bands
    ADD COLUMN IF NOT EXISTS search_name text GENERATED ALWAYS AS (lower(name)) STORED,
    ADD COLUMN IF NOT EXISTS search_genre text GENERATED ALWAYS AS (lower(genre)) STORED,
    ADD COLUMN IF NOT EXISTS search_location text
        GENERATED ALWAYS AS (lower(location_text)) STORED,
    ADD COLUMN IF NOT EXISTS search_themes text GENERATED ALWAYS AS (lower(themes)) STORED;

CREATE INDEX IF NOT EXISTS bands_search_name_trgm ON bands USING GIN (search_name gin_trgm_ops);
CREATE INDEX IF NOT EXISTS bands_search_genre_trgm ON bands USING GIN (search_genre gin_trgm_ops);
CREATE INDEX IF NOT EXISTS bands_search_location_trgm
    ON bands USING GIN (search_location gin_trgm_ops);
CREATE INDEX IF NOT EXISTS bands_search_themes_trgm
    ON bands USING GIN (search_themes gin_trgm_ops);

-- Only the admin list searched these three columns; their lower-case copies replace them.
-- `bands_name_trgm` stays: the public search and the locations list match `name ILIKE`.
DROP INDEX IF EXISTS bands_genre_trgm;
DROP INDEX IF EXISTS bands_location_trgm;
DROP INDEX IF EXISTS bands_themes_trgm;

-- Rule 3: the copies derive from catalogue columns already compared, and a BEFORE
-- trigger sees them before they are recomputed, so they are left out like `geom`.
CREATE OR REPLACE FUNCTION bands_catalogue_part(b bands) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT to_jsonb(b) - ARRAY[
        'updated_at', 'crawled_at', 'crawled_hash', 'enriched', 'enrich_pending',
        'first_seen_at', 'ma_created_at', 'ma_modified_at', 'ma_modified_text',
        'lat', 'lon', 'geom', 'geocode_status', 'geocode_provider', 'geocode_confidence',
        'geocode_location_id', 'geocode_updated_at', 'locked_fields', 'crawler_pending',
        'search_name', 'search_genre', 'search_location', 'search_themes'
    ]
$$;
