-- Indexes of the admin filters (trigram for the text searches) and of enrichment selection.
CREATE INDEX IF NOT EXISTS bands_name_trgm ON bands USING GIN (name gin_trgm_ops);
CREATE INDEX IF NOT EXISTS bands_location_trgm ON bands USING GIN (location_text gin_trgm_ops);
CREATE INDEX IF NOT EXISTS bands_themes_trgm ON bands USING GIN (themes gin_trgm_ops);
CREATE INDEX IF NOT EXISTS bands_genre_trgm ON bands USING GIN (genre gin_trgm_ops);
CREATE INDEX IF NOT EXISTS bands_name_lower ON bands (lower(name), ma_id);
CREATE INDEX IF NOT EXISTS bands_country_lower ON bands (lower(country));
CREATE INDEX IF NOT EXISTS bands_country_code ON bands (country_code);
CREATE INDEX IF NOT EXISTS bands_status_lower ON bands (lower(status));
CREATE INDEX IF NOT EXISTS bands_formed_year ON bands (formed_year);
CREATE INDEX IF NOT EXISTS bands_updated_at ON bands (updated_at DESC);
CREATE INDEX IF NOT EXISTS bands_geom_gist ON bands USING GIST (geom);
CREATE INDEX IF NOT EXISTS bands_has_conflict ON bands (ma_id) WHERE crawler_pending <> '{}'::jsonb;
-- Enrichment queue (rule 2): flagged, changed since crawl, never enriched.
CREATE INDEX IF NOT EXISTS bands_enrich_pending ON bands (ma_id) WHERE enrich_pending;
CREATE INDEX IF NOT EXISTS bands_never_enriched ON bands (ma_id) WHERE NOT enriched;
-- Written as a difference (immutable) so it can be an index predicate; queries use the
-- same expression.
CREATE INDEX IF NOT EXISTS bands_changed_since_crawl ON bands (updated_at)
    WHERE updated_at - crawled_at > interval '1 minute';
