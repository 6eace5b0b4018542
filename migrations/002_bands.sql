-- The catalogue: one row per upstream band (ma_id is the upstream id, up to ~3.5e9).
CREATE TABLE IF NOT EXISTS bands (
    ma_id               BIGINT PRIMARY KEY,
    name                TEXT NOT NULL,
    country             TEXT,
    country_code        TEXT,
    location_text       TEXT,
    genre               TEXT,
    themes              TEXT,
    status              TEXT,
    formed_year         INTEGER,
    label               TEXT,
    years_active        TEXT,
    -- Denormalised primary point: the origin step (rule 19).
    lat                 DOUBLE PRECISION CHECK (lat IS NULL OR lat BETWEEN -90 AND 90),
    lon                 DOUBLE PRECISION CHECK (lon IS NULL OR lon BETWEEN -180 AND 180),
    geom                geometry(Point, 4326) GENERATED ALWAYS AS (
                            CASE WHEN lat IS NOT NULL AND lon IS NOT NULL
                                 THEN ST_SetSRID(ST_MakePoint(lon, lat), 4326) END) STORED,
    geocode_status      TEXT,
    geocode_provider    TEXT,
    geocode_confidence  DOUBLE PRECISION,
    geocode_location_id BIGINT,
    geocode_updated_at  TIMESTAMPTZ,
    enriched            BOOLEAN NOT NULL DEFAULT FALSE,
    enrich_pending      BOOLEAN NOT NULL DEFAULT FALSE,
    locked_fields       TEXT[] NOT NULL DEFAULT '{}',
    crawler_pending     JSONB NOT NULL DEFAULT '{}'::jsonb,
    data                JSONB NOT NULL DEFAULT '{}'::jsonb,
    band_page           JSONB,
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    crawled_at          TIMESTAMPTZ,
    crawled_hash        TEXT,
    ma_created_at       TIMESTAMPTZ,
    ma_modified_at      TIMESTAMPTZ,
    ma_modified_text    TEXT,
    first_seen_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT bands_crawler_pending_is_object CHECK (jsonb_typeof(crawler_pending) = 'object')
);
