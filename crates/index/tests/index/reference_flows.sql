-- The slow, obviously-correct definition of /api/flows (docs/map.md "Flows"), for the
-- property test: each band's located rows numbered in path order (parsed_step, id), every
-- row joined to the next one of its band when their steps differ (two places of one step
-- are no move), the pairs in two different cells of level $5
-- with an end in the bbox counted per (start cell, end cell, genre text) — the families
-- are folded from the genre texts in Rust, as the index derives them.
-- $1..$4 bbox, $5 grid level, $6 zoom (unused: the level says it), $7 genre ILIKE
-- pattern, $8 country, $9 status, $10 year_min, $11 year_max (NULL = none).
WITH pts AS (
    SELECT bl.id, bl.ma_id, bl.parsed_step, bl.lon, bl.lat, b.genre,
           LEAST(GREATEST(floor(((bl.lon + 180.0::float8) / 360.0::float8) * 262144.0::float8), 0), 262143)::bigint AS cx,
           LEAST(GREATEST(floor(((1.0::float8 - ln(tan(k.r) + 1.0::float8 / cos(k.r)) / pi()) / 2.0::float8) * 262144.0::float8), 0), 262143)::bigint AS cy
    FROM band_locations bl
    JOIN bands b ON b.ma_id = bl.ma_id
    CROSS JOIN LATERAL (SELECT LEAST(GREATEST(bl.lat, -85.0511287798066::float8), 85.0511287798066::float8)
                               * 0.017453292519943295::float8 AS r) k
    WHERE bl.geocode_status IN ('done', 'country_only')
      AND bl.lat IS NOT NULL AND bl.lon IS NOT NULL
      AND ($7::text IS NULL OR b.genre ILIKE $7 ESCAPE '\')
      AND ($8::text IS NULL OR lower(b.country) = lower($8) OR lower(b.country_code) = lower($8))
      AND ($9::text IS NULL OR lower(b.status) = lower($9))
      AND ($10::int IS NULL OR b.formed_year >= $10)
      AND ($11::int IS NULL OR b.formed_year <= $11)
      AND $6::int IS NOT NULL
), ordered AS (
    SELECT *, row_number() OVER (PARTITION BY ma_id ORDER BY parsed_step, id) AS k FROM pts
)
SELECT a.cx >> (18 - $5::int) AS fx, a.cy >> (18 - $5::int) AS fy,
       b.cx >> (18 - $5::int) AS tx, b.cy >> (18 - $5::int) AS ty,
       a.genre, count(*) AS n
FROM ordered a
JOIN ordered b ON b.ma_id = a.ma_id AND b.k = a.k + 1
WHERE a.parsed_step <> b.parsed_step
  AND ((a.lon BETWEEN $1 AND $3 AND a.lat BETWEEN $2 AND $4)
    OR (b.lon BETWEEN $1 AND $3 AND b.lat BETWEEN $2 AND $4))
  AND (a.cx >> (18 - $5::int), a.cy >> (18 - $5::int))
      <> (b.cx >> (18 - $5::int), b.cy >> (18 - $5::int))
GROUP BY 1, 2, 3, 4, 5
