// European countries and territories too small for the 1:110m outlines (world-atlas draws
// no shape for them): the density layer paints each as a dot at its centre, so a band of
// Tórshavn or Valletta is counted on the map like any other. ISO 3166 numeric ids and
// names as GeoNames writes them (the /api/countries answer is matched on either).
const SMALL = [
  [20, 'Andorra', 42.55, 1.58],
  [234, 'Faroe Islands', 62.0, -6.85],
  [248, 'Aland Islands', 60.2, 19.95],
  [292, 'Gibraltar', 36.14, -5.35],
  [336, 'Vatican', 41.9, 12.45],
  [438, 'Liechtenstein', 47.15, 9.55],
  [470, 'Malta', 35.9, 14.45],
  [492, 'Monaco', 43.74, 7.42],
  [674, 'San Marino', 43.94, 12.46],
  [831, 'Guernsey', 49.46, -2.58],
  [832, 'Jersey', 49.21, -2.13],
  [833, 'Isle of Man', 54.23, -4.55],
];

/** The small countries missing from `shapes` (a GeoJSON feature collection), as points. */
export function smallCountryPoints(shapes) {
  const drawn = new Set((shapes?.features ?? []).map((f) => Number(f.id)));
  return SMALL.filter(([id]) => !drawn.has(id)).map(([id, name, lat, lon]) => ({
    type: 'Feature',
    id: String(id).padStart(3, '0'),
    properties: { name, small: true },
    geometry: { type: 'Point', coordinates: [lon, lat] },
  }));
}
