-- One row per step and place of a band's location (SPEC §5).
CREATE TABLE IF NOT EXISTS band_locations (
    id                  BIGSERIAL PRIMARY KEY,
    ma_id               BIGINT NOT NULL REFERENCES bands (ma_id) ON DELETE CASCADE,
    -- Display order; -1 marks a manual override (PATCH /admin/api/locations/:id).
    step_order          INTEGER NOT NULL,
    -- The step the parser gave; never changes, so a manual override does not make the
    -- enqueue scan create the row again.
    parsed_step         INTEGER NOT NULL,
    step_label          TEXT,
    location_raw        TEXT NOT NULL,
    city                TEXT,
    regions             TEXT[] NOT NULL DEFAULT '{}',
    country             TEXT,
    country_code        TEXT,
    lat                 DOUBLE PRECISION CHECK (lat IS NULL OR lat BETWEEN -90 AND 90),
    lon                 DOUBLE PRECISION CHECK (lon IS NULL OR lon BETWEEN -180 AND 180),
    geom                geometry(Point, 4326) GENERATED ALWAYS AS (
                            CASE WHEN lat IS NOT NULL AND lon IS NOT NULL
                                 THEN ST_SetSRID(ST_MakePoint(lon, lat), 4326) END) STORED,
    geocode_status      TEXT NOT NULL DEFAULT 'pending',
    geocode_granularity TEXT,
    provider            TEXT,
    confidence          DOUBLE PRECISION,
    attempts            INTEGER NOT NULL DEFAULT 0,
    error               TEXT,
    query               TEXT,
    -- Retry backoff: a pending row is not claimed before this instant.
    next_attempt_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- When the row entered `processing` (self-repair of stuck rows).
    claimed_at          TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT band_locations_status_check CHECK (geocode_status IN
        ('pending', 'processing', 'done', 'country_only', 'llm_needed', 'manual', 'error')),
    CONSTRAINT band_locations_step_check CHECK (step_order >= -1 AND parsed_step >= 0),
    CONSTRAINT band_locations_attempts_check CHECK (attempts >= 0)
);

-- Idempotent enqueue: one row per (band, parsed step, place), enforced here.
CREATE UNIQUE INDEX IF NOT EXISTS band_locations_identity
    ON band_locations (ma_id, parsed_step, location_raw);
CREATE INDEX IF NOT EXISTS band_locations_geom_gist ON band_locations USING GIST (geom);
CREATE INDEX IF NOT EXISTS band_locations_ma_id ON band_locations (ma_id, step_order, id);
-- Claim query of the geocoder: pending rows whose backoff has passed.
CREATE INDEX IF NOT EXISTS band_locations_claim
    ON band_locations (next_attempt_at, id) WHERE geocode_status = 'pending';
CREATE INDEX IF NOT EXISTS band_locations_llm_claim
    ON band_locations (next_attempt_at, id) WHERE geocode_status = 'llm_needed';
CREATE INDEX IF NOT EXISTS band_locations_processing
    ON band_locations (claimed_at) WHERE geocode_status = 'processing';
-- Dedup fast path (rule 17).
CREATE INDEX IF NOT EXISTS band_locations_dedup
    ON band_locations (lower(location_raw), country) WHERE geocode_status = 'done';
CREATE INDEX IF NOT EXISTS band_locations_status ON band_locations (geocode_status, id);
CREATE INDEX IF NOT EXISTS band_locations_raw_trgm
    ON band_locations USING GIN (location_raw gin_trgm_ops);
CREATE INDEX IF NOT EXISTS band_locations_country ON band_locations (lower(country));
