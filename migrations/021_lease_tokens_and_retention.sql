-- Issue 18. The LLM worker's lease gets a claim token (like the geocoder's `claimed_at`):
-- every claim draws a new number from a sequence and every exit applies only while the row
-- still carries the number its claim drew, so a worker whose lease expired (and whose row
-- another worker re-claimed) can no longer write over the second worker's result.
CREATE SEQUENCE IF NOT EXISTS band_locations_llm_lease_seq;
ALTER TABLE band_locations ADD COLUMN IF NOT EXISTS llm_lease BIGINT;

-- Retention (docs/reliability.md): the daily prune deletes by age; these indexes let it
-- find the old rows without reading the tables whole.
CREATE INDEX IF NOT EXISTS admin_login_attempts_at ON admin_login_attempts (at);
CREATE INDEX IF NOT EXISTS crawl_log_at ON crawl_log (at);
