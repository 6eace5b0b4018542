// The public API of the map (CONTRACT §4): clusters, a band's card, the densities per
// country, the name search, and the OpenAPI document's job types.
import { send, err, has } from './respond.mjs';
import { FAMILY_NAMES, familyOf, familyNames, familyList, MOCK_JOB_SERVICES } from './fixtures.mjs';

function clusters(state, q) {
  const bbox = (q.get('bbox') || '-180,-90,180,90').split(',').map(Number);
  const zoom = Number(q.get('zoom') ?? 3);
  if (bbox.length !== 4 || bbox.some((n) => !Number.isFinite(n))) return null;
  const [minLon, minLat, maxLon, maxLat] = bbox;
  const families = familyList(q);
  if (families.some((f) => !FAMILY_NAMES.includes(f))) return null;
  const breakdown = q.get('breakdown') === 'families';
  const byId = new Map(state.bands.map((b) => [b.ma_id, b]));
  const pts = [];
  for (const l of state.locations) {
    if (l.status !== 'done' && l.status !== 'country_only') continue;
    const b = byId.get(l.ma_id);
    if (q.get('genre') && !has(b.genre, q.get('genre'))) continue;
    if (q.get('country') && String(b.country).toLowerCase() !== q.get('country').toLowerCase()) continue;
    if (q.get('status') && String(b.status).toLowerCase() !== q.get('status').toLowerCase()) continue;
    if (q.get('year_min') && b.formed_year < Number(q.get('year_min'))) continue;
    if (q.get('year_max') && b.formed_year > Number(q.get('year_max'))) continue;
    if (families.length && !families.includes(familyOf(b))) continue;
    if (l.lon < minLon || l.lon > maxLon || l.lat < minLat || l.lat > maxLat) continue;
    pts.push({ l, b });
  }
  const feature = (lon, lat, props) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: props });
  const point = ({ l, b }) => feature(l.lon, l.lat, {
    cluster: false, ma_id: b.ma_id, name: b.name, genre: b.genre, country: b.country, status: b.status, formed_year: b.formed_year,
    location_id: l.id, location_raw: l.location_raw, step_label: l.step_label, step_order: l.step_order,
    ...(breakdown ? { family: familyOf(b) } : {}),
  });
  if (zoom >= 17) return { type: 'FeatureCollection', features: pts.map(point) };
  const cell = (360 / (256 * 2 ** zoom)) * 60;
  const cells = new Map();
  for (const p of pts) {
    const k = `${Math.floor(p.l.lon / cell)}:${Math.floor(p.l.lat / cell)}`;
    if (!cells.has(k)) cells.set(k, []);
    cells.get(k).push(p);
  }
  const features = [];
  for (const group of cells.values()) {
    if (group.length === 1) features.push(point(group[0]));
    else {
      const lon = group.reduce((s, p) => s + p.l.lon, 0) / group.length;
      const lat = group.reduce((s, p) => s + p.l.lat, 0) / group.length;
      const mix = {};
      for (const f of FAMILY_NAMES) {
        const n = group.filter((p) => familyOf(p.b) === f).length;
        if (n) mix[f] = n;
      }
      features.push(feature(lon, lat, {
        cluster: true, count: group.length, expansion_zoom: Math.min(17, zoom + 2), ...(breakdown ? { families: mix } : {}),
      }));
    }
  }
  return { type: 'FeatureCollection', features };
}

function openapi() {
  const jobType = { type: 'string', enum: Object.keys(MOCK_JOB_SERVICES), 'x-job-services': MOCK_JOB_SERVICES };
  return { openapi: '3.1.0', paths: {}, components: { schemas: { NewTrigger: { type: 'object', required: ['job_type'], properties: { job_type: jobType } } } } };
}

// GeoNames countryInfo populations of the mock's countries (the real server reads
// data/gazetteer/countries.tsv).
const POPULATIONS = {
  Norway: ['NO', 578, 5314336], Sweden: ['SE', 752, 10183175], Finland: ['FI', 246, 5518050], Germany: ['DE', 276, 82927922],
  France: ['FR', 250, 66987244], Poland: ['PL', 616, 37978548], 'United Kingdom': ['GB', 826, 66488991], Greece: ['GR', 300, 10727668],
  Spain: ['ES', 724, 46723749], Italy: ['IT', 380, 60431283], Czechia: ['CZ', 203, 10625695], Netherlands: ['NL', 528, 17231017],
};

/** GET /api/countries: the catalogue's bands per country under the map's filters and the
 *  genre families (`family=`, as /api/clusters; the caller rejects unknown names). */
function countryDensities(state, q) {
  const families = familyList(q);
  const counts = new Map();
  for (const b of state.bands) {
    if (families.length && !families.includes(familyOf(b))) continue;
    if (q.get('genre') && !has(b.genre, q.get('genre'))) continue;
    const pop = POPULATIONS[b.country];
    if (q.get('country') && ![b.country, pop?.[0]].some((c) => String(c).toLowerCase() === q.get('country').toLowerCase())) continue;
    if (q.get('status') && String(b.status).toLowerCase() !== q.get('status').toLowerCase()) continue;
    if (q.get('year_min') && !(b.formed_year >= Number(q.get('year_min')))) continue;
    if (q.get('year_max') && !(b.formed_year <= Number(q.get('year_max')))) continue;
    counts.set(b.country, (counts.get(b.country) || 0) + 1);
  }
  return [...counts].map(([country, bands]) => {
    const [cc, iso, population] = POPULATIONS[country] || [country.slice(0, 2).toUpperCase(), null, null];
    const per100k = population ? Math.round((bands * 1e5 / population) * 1e4) / 1e4 : null;
    return { country_code: cc, country, iso_numeric: iso, bands, population, per_100k: per100k };
  }).sort((a, b) => a.country_code.localeCompare(b.country_code));
}

export const routes = [
  {
    method: 'GET', path: '/api/clusters',
    handle: ({ state, res, q }) => {
      const fc = clusters(state, q);
      return fc ? send(res, 200, fc, { 'Content-Type': 'application/geo+json' }) : err(res, 400, 'bad_request', 'malformed bbox or unknown family');
    },
  },
  {
    method: 'GET', path: '/api/bands/{ma_id}',
    handle: ({ state, res, id }) => {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      // Like the API: every step in order, coordinates only for placed ones; themes, label
      // and years_active only when known.
      const placed = (l) => l.status === 'done' || l.status === 'country_only' || l.status === 'manual';
      const steps = state.locations.filter((l) => l.ma_id === b.ma_id).map((l) => ({
        location_id: l.id, step_order: l.step_order, step_label: l.step_label, location_raw: l.location_raw,
        lat: placed(l) ? l.lat : null, lon: placed(l) ? l.lon : null,
      }));
      const known = Object.fromEntries(['themes', 'label', 'years_active'].filter((k) => b[k]).map((k) => [k, b[k]]));
      return send(res, 200, { ma_id: b.ma_id, name: b.name, genre: b.genre, country: b.country, status: b.status, formed_year: b.formed_year, ...known, url: b.url, steps });
    },
  },
  {
    method: 'GET', path: '/api/countries',
    handle: ({ state, res, q }) => {
      if ([...q.values()].some((v) => v.length > 100)) return err(res, 400, 'bad_request', 'filter too long');
      // The real server's text (crates/api/src/public/params.rs, `families`).
      const unknown = familyNames(q).find((f) => !FAMILY_NAMES.includes(f.toLowerCase()));
      if (unknown !== undefined) return err(res, 400, 'bad_request', `family: unknown genre family ${JSON.stringify(unknown)} (known: ${FAMILY_NAMES.join(', ')})`);
      return send(res, 200, { items: countryDensities(state, q) });
    },
  },
  { method: 'GET', path: '/api/openapi.json', handle: ({ res }) => send(res, 200, openapi()) },
  {
    method: 'GET', path: '/api/search',
    handle: ({ state, res, q }) => {
      const s = q.get('q') || '';
      const items = s ? state.bands.filter((b) => has(b.name, s)).slice(0, 20).map((b) => ({ ma_id: b.ma_id, name: b.name, country: b.country, genre: b.genre, lat: b.lat, lon: b.lon })) : [];
      return send(res, 200, { items });
    },
  },
];
