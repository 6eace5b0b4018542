-- Hourly activity counters behind the admin console's charts (issue 17): rows reaching
-- an outcome, provider calls and their errors, LLM cache hits, per hour. Nothing else
-- records these per hour (band_locations.updated_at only keeps a row's last change).
--
-- One row per (hour, metric, backend): each writer adds to the row of its own database
-- backend (pg_backend_pid()), so two transactions never wait on each other's counter
-- row — a counter written inside a geocoder batch can neither slow nor deadlock another
-- replica's batch. Readers sum over backends. Replay-safe.
CREATE TABLE IF NOT EXISTS activity_counters (
    hour    TIMESTAMPTZ NOT NULL,
    -- `status:<geocode status>` (a row entered that status), `provider_call`,
    -- `provider_error`, `llm_cache_hit`.
    metric  TEXT NOT NULL,
    backend INTEGER NOT NULL,
    count   BIGINT NOT NULL DEFAULT 0 CHECK (count >= 0),
    PRIMARY KEY (hour, metric, backend)
);
CREATE INDEX IF NOT EXISTS activity_counters_metric ON activity_counters (metric, hour);

-- Rows entering an outcome (any status but pending/processing), counted once per
-- statement from its transition tables, whoever writes: the geocoder, the LLM worker, an
-- admin's manual coordinate. A claim (pending → processing) writes nothing here.
CREATE OR REPLACE FUNCTION band_locations_count_outcomes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO activity_counters (hour, metric, backend, count)
        SELECT date_trunc('hour', now(), 'UTC'), 'status:' || n.geocode_status,
               pg_backend_pid(), count(*)
        FROM counted_new n
        WHERE n.geocode_status NOT IN ('pending', 'processing')
        GROUP BY n.geocode_status
        ON CONFLICT (hour, metric, backend)
            DO UPDATE SET count = activity_counters.count + EXCLUDED.count;
    ELSE
        INSERT INTO activity_counters (hour, metric, backend, count)
        SELECT date_trunc('hour', now(), 'UTC'), 'status:' || n.geocode_status,
               pg_backend_pid(), count(*)
        FROM counted_new n JOIN counted_old o ON o.id = n.id
        WHERE n.geocode_status IS DISTINCT FROM o.geocode_status
          AND n.geocode_status NOT IN ('pending', 'processing')
        GROUP BY n.geocode_status
        ON CONFLICT (hour, metric, backend)
            DO UPDATE SET count = activity_counters.count + EXCLUDED.count;
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS band_locations_count_inserts ON band_locations;
CREATE TRIGGER band_locations_count_inserts
    AFTER INSERT ON band_locations
    REFERENCING NEW TABLE AS counted_new
    FOR EACH STATEMENT EXECUTE FUNCTION band_locations_count_outcomes();
DROP TRIGGER IF EXISTS band_locations_count_updates ON band_locations;
CREATE TRIGGER band_locations_count_updates
    AFTER UPDATE ON band_locations
    REFERENCING OLD TABLE AS counted_old NEW TABLE AS counted_new
    FOR EACH STATEMENT EXECUTE FUNCTION band_locations_count_outcomes();
