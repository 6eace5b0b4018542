-- Zoom >= 17 within the cell budget: every point of the bbox on its own, lowest id first.
SELECT bl.id AS location_id
FROM band_locations bl
JOIN bands b ON b.ma_id = bl.ma_id
WHERE bl.geocode_status IN ('done', 'country_only')
  AND bl.lat IS NOT NULL AND bl.lon IS NOT NULL
  AND bl.lon BETWEEN $1 AND $3 AND bl.lat BETWEEN $2 AND $4
  AND ($7::text IS NULL OR b.genre ILIKE $7 ESCAPE '\')
  AND ($8::text IS NULL OR lower(b.country) = lower($8) OR lower(b.country_code) = lower($8))
  AND ($9::text IS NULL OR lower(b.status) = lower($9))
  AND ($10::int IS NULL OR b.formed_year >= $10)
  AND ($11::int IS NULL OR b.formed_year <= $11)
  AND $5::int >= 0 AND $6::int >= 0
ORDER BY bl.id
LIMIT 5000
