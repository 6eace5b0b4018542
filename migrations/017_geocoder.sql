-- Geocoder schema changes (placeholder of the geocoder work).
SELECT 1;
