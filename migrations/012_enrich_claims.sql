-- Enrichment claims: several crawler replicas may enrich at once; each band of the queue is
-- leased to one run so no two replicas fetch the same band page. A lease that outlives its
-- run (replica killed) expires and the band is claimable again.
CREATE TABLE IF NOT EXISTS enrich_claims (
    ma_id         BIGINT PRIMARY KEY REFERENCES bands (ma_id) ON DELETE CASCADE,
    run_id        BIGINT NOT NULL,
    claimed_until TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS enrich_claims_run ON enrich_claims (run_id);
