-- Geocoder: consecutive waits of a row that nothing could decide (no provider and a
-- gazetteer miss). The worker waits 10 min × 2^wait_count (capped at 6 h) instead of
-- re-claiming such rows every 10 minutes forever; every other exit resets it to 0.
-- Replay-safe.
ALTER TABLE band_locations ADD COLUMN IF NOT EXISTS wait_count integer NOT NULL DEFAULT 0;
