-- Every mappable point: one per located band_locations row (done or country_only), with the
-- band columns the filters and single-point features need. Coordinates come from the row.
SELECT bl.id          AS location_id,
       bl.ma_id       AS ma_id,
       bl.lon         AS lon,
       bl.lat         AS lat,
       bl.step_order  AS step_order,
       bl.parsed_step AS parsed_step,
       bl.step_label  AS step_label,
       bl.location_raw AS location_raw,
       b.name         AS name,
       b.genre        AS genre,
       b.country      AS country,
       b.country_code AS country_code,
       b.status       AS status,
       b.formed_year  AS formed_year
FROM band_locations bl
JOIN bands b ON b.ma_id = bl.ma_id
WHERE bl.geocode_status IN ('done', 'country_only')
  AND bl.lat IS NOT NULL
  AND bl.lon IS NOT NULL
