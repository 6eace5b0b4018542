-- Runs of every job (crawls and enqueue scans) and their log lines.
CREATE TABLE IF NOT EXISTS crawl_run (
    id               BIGSERIAL PRIMARY KEY,
    type             TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'running',
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    started_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at      TIMESTAMPTZ,
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    stats            JSONB NOT NULL DEFAULT '{}'::jsonb,
    error            TEXT,
    trigger_id       BIGINT,
    CONSTRAINT crawl_run_type_check CHECK (type IN ('incremental', 'enrich', 'full_crawl', 'geocoder_enqueue')),
    CONSTRAINT crawl_run_status_check CHECK (status IN ('running', 'success', 'error', 'cancelled', 'interrupted'))
);
CREATE INDEX IF NOT EXISTS crawl_run_running ON crawl_run (started_at) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS crawl_run_started ON crawl_run (started_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS crawl_log (
    id      BIGSERIAL PRIMARY KEY,
    run_id  BIGINT REFERENCES crawl_run (id) ON DELETE CASCADE,
    at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    level   TEXT NOT NULL DEFAULT 'info',
    message TEXT NOT NULL,
    CONSTRAINT crawl_log_level_check CHECK (level IN ('debug', 'info', 'warn', 'error'))
);
CREATE INDEX IF NOT EXISTS crawl_log_run ON crawl_log (run_id, id);

CREATE TABLE IF NOT EXISTS crawl_checkpoint (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Admin job requests. job_type is free text on purpose: the crawler must be able to close
-- an unknown type as an error (rule 9); the API validates what it accepts.
CREATE TABLE IF NOT EXISTS job_triggers (
    id          BIGSERIAL PRIMARY KEY,
    job_type    TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    created_by  TEXT,
    claimed_at  TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    run_id      BIGINT REFERENCES crawl_run (id) ON DELETE SET NULL,
    error       TEXT,
    CONSTRAINT job_triggers_status_check CHECK (status IN ('pending', 'claimed', 'done', 'error', 'cancelled'))
);
CREATE INDEX IF NOT EXISTS job_triggers_pending ON job_triggers (job_type, id) WHERE status = 'pending';
