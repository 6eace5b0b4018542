-- Crawler bookkeeping (docs/crawler.md). Safe to replay.
--
-- Enrichment failures and their backoff: a band whose page keeps failing (deleted upstream,
-- page that never parses) steps aside for 15 min × 2^(attempts−1), capped at 7 days, so it
-- cannot block the queue; a successful enrichment deletes its row. A table of its own
-- rather than columns on bands: writing it never runs the bands triggers, so it can neither
-- move updated_at (rule 3) nor send a map change notification.
CREATE TABLE IF NOT EXISTS enrich_failures (
    ma_id     BIGINT PRIMARY KEY REFERENCES bands (ma_id) ON DELETE CASCADE,
    attempts  INTEGER NOT NULL CHECK (attempts > 0),
    next_at   TIMESTAMPTZ NOT NULL,
    error     TEXT,
    failed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS enrich_failures_next ON enrich_failures (next_at);

-- Run owners (rule 7 with several crawler replicas, CONTRACT §1): a crawler run records the
-- instance that runs it; the instance holds the session advisory lock
-- (CRAWL_OWNER_LOCK_CLASS, owner_lock) for its lifetime. Start recovery closes only runs
-- without an owner or whose owner's lock nobody holds (a dead instance).
ALTER TABLE crawl_run ADD COLUMN IF NOT EXISTS owner TEXT;
ALTER TABLE crawl_run ADD COLUMN IF NOT EXISTS owner_lock INTEGER;
