-- Crawler: enrichment attempts and backoff (placeholder of the crawler work).
SELECT 1;
