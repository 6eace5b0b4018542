-- Provider pacing across processes (rule 14, issue 19 point 2): one row per provider key
-- (identified by a hash, never the key itself) holding the earliest instant the next call
-- may start. A caller of any process locks the key's row (FOR UPDATE), waits until next_at,
-- calls, sets next_at = end of its call + spacing and commits, so the spacing holds across
-- replicas and services, not only inside one process.
CREATE TABLE IF NOT EXISTS provider_pacing (
    key_hash TEXT PRIMARY KEY,
    next_at  TIMESTAMPTZ NOT NULL
);
