-- Cached provider answers (rule 16: confidence is read from here on a hit).
CREATE TABLE IF NOT EXISTS geocode_cache (
    key         TEXT PRIMARY KEY,
    provider    TEXT NOT NULL,
    query       TEXT NOT NULL,
    raw         JSONB NOT NULL,
    lat         DOUBLE PRECISION,
    lon         DOUBLE PRECISION,
    confidence  DOUBLE PRECISION,
    granularity TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS geocode_cache_provider ON geocode_cache (provider);

-- One row per LLM call, keyed by the sha256 of the canonical request.
CREATE TABLE IF NOT EXISTS llm_cache (
    id                BIGSERIAL PRIMARY KEY,
    key               TEXT NOT NULL UNIQUE,
    ma_id             BIGINT,
    location_id       BIGINT,
    location_raw      TEXT,
    country           TEXT,
    model             TEXT NOT NULL,
    extraction        JSONB,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    -- NUMERIC may hold NaN; every reader tolerates it.
    cost_usd          NUMERIC,
    prompt            TEXT,
    response          TEXT,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS llm_cache_ma_id ON llm_cache (ma_id);
CREATE INDEX IF NOT EXISTS llm_cache_model ON llm_cache (model, created_at);
CREATE INDEX IF NOT EXISTS llm_cache_created ON llm_cache (created_at DESC, id DESC);
