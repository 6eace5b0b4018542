-- One row per background service, overwritten at each heartbeat. `stale` is computed by
-- the API in SQL from last_write_at (rule 24).
CREATE TABLE IF NOT EXISTS service_health (
    service       TEXT PRIMARY KEY,
    state         TEXT NOT NULL,
    checks        JSONB NOT NULL DEFAULT '{}'::jsonb,
    instance      TEXT,
    last_write_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT service_health_service_check CHECK (service IN ('crawler', 'geocoder', 'enqueue', 'llm')),
    CONSTRAINT service_health_state_check CHECK (state IN ('ok', 'degraded'))
);
