-- Provider pacing across processes (rule 14, issue 19 point 2): one row per provider key
-- (identified by a hash, never the key itself) holding the earliest instant the next call
-- may start. Every process that uses the key reserves its turn with one
-- `INSERT … ON CONFLICT DO UPDATE SET next_at = GREATEST(next_at, now) + spacing`, so the
-- spacing holds across replicas and services, not only inside one process.
CREATE TABLE IF NOT EXISTS provider_pacing (
    key_hash TEXT PRIMARY KEY,
    next_at  TIMESTAMPTZ NOT NULL
);
