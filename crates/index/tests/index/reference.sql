-- The slow, obviously-correct definition of /api/clusters (docs/map.md), for the property
-- test. $1..$4 bbox (min lon, min lat, max lon, max lat), $5 grid level, $6 zoom,
-- $7 genre ILIKE pattern, $8 country, $9 status, $10 year_min, $11 year_max (NULL = none).
WITH pts AS (
    SELECT bl.id AS location_id, bl.lon, bl.lat,
           LEAST(GREATEST(floor(((bl.lon + 180.0::float8) / 360.0::float8) * 262144.0::float8), 0), 262143)::bigint AS cx,
           LEAST(GREATEST(floor(((1.0::float8 - ln(tan(k.r) + 1.0::float8 / cos(k.r)) / pi()) / 2.0::float8) * 262144.0::float8), 0), 262143)::bigint AS cy
    FROM band_locations bl
    JOIN bands b ON b.ma_id = bl.ma_id
    CROSS JOIN LATERAL (SELECT LEAST(GREATEST(bl.lat, -85.0511287798066::float8), 85.0511287798066::float8)
                               * 0.017453292519943295::float8 AS r) k
    WHERE bl.geocode_status IN ('done', 'country_only')
      AND bl.lat IS NOT NULL AND bl.lon IS NOT NULL
      AND bl.lon BETWEEN $1 AND $3 AND bl.lat BETWEEN $2 AND $4
      AND ($7::text IS NULL OR b.genre ILIKE $7 ESCAPE '\')
      AND ($8::text IS NULL OR lower(b.country) = lower($8) OR lower(b.country_code) = lower($8))
      AND ($9::text IS NULL OR lower(b.status) = lower($9))
      AND ($10::int IS NULL OR b.formed_year >= $10)
      AND ($11::int IS NULL OR b.formed_year <= $11)
), cells AS (
    SELECT cx >> (18 - $5::int) AS gx, cy >> (18 - $5::int) AS gy,
           count(*) AS n, avg(lon) AS lon, avg(lat) AS lat, min(location_id) AS location_id,
           min(cx) AS min_cx, max(cx) AS max_cx, min(cy) AS min_cy, max(cy) AS max_cy
    FROM pts GROUP BY 1, 2
)
SELECT gx, gy, n, lon, lat, location_id,
       LEAST(20, GREATEST($6::int + 1, COALESCE(
           (SELECT min(z) FROM generate_series(0, 16) z
             WHERE (min_cx >> (16 - z)) <> (max_cx >> (16 - z))
                OR (min_cy >> (16 - z)) <> (max_cy >> (16 - z))), 17)))::int AS expansion_zoom
FROM cells
ORDER BY gx, gy
