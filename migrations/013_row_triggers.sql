-- Row triggers: band_locations.updated_at ignores the generated geom (rule 3); llm_cache search index.
-- (placeholder, filled in this change)
SELECT 1;
