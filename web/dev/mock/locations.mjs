// Admin API, geocoding (CONTRACT §6): location rows, manual coordinates, re-queues and
// resets, the cache purge, the geocoding summary, the gazetteer's suggestions.
import { send, err, page, has } from './respond.mjs';
import { CITIES, audit, byStatus } from './fixtures.mjs';
import { llmModels } from './llm.mjs';

const GAZETTEER = [
  ...CITIES.map(([name, country, lat, lon], k) => ({ name, country, lat, lon, population: 100000 * (k + 1), admin1: null })),
  { name: 'Bergen', country: 'Netherlands', lat: 52.66917, lon: 4.70417, population: 29715, admin1: 'North Holland' },
  { name: 'Tilburg', country: 'Netherlands', lat: 51.5555, lon: 5.0913, population: 199613, admin1: 'North Brabant' },
];

function candidates(text, country) {
  const name = text.split(',')[0].replace(/\(.*?\)/g, '').trim();
  const code = (c) => (c || '').slice(0, 2).toUpperCase();
  const want = country ? code(country) : null;
  const items = GAZETTEER.filter((g) => g.name.toLowerCase() === name.toLowerCase())
    .map((g, k) => ({ geonameid: 9000 + k, name: g.name, admin1: g.admin1, country_code: code(g.country), lat: g.lat, lon: g.lon, population: g.population, in_region: false }))
    .sort((a, b) => ((a.country_code === want ? 0 : 1) - (b.country_code === want ? 0 : 1)) || b.population - a.population);
  return { name, country_code: want, available: true, items };
}

export const routes = [
  {
    method: 'GET', path: '/admin/api/gazetteer/candidates',
    handle: ({ res, q }) => {
      const text = (q.get('q') || '').trim();
      if (!text) return err(res, 400, 'bad_request', 'q (the location text) is required');
      return send(res, 200, candidates(text, q.get('country')));
    },
  },
  {
    method: 'GET', path: '/admin/api/locations',
    handle: ({ state, res, q }) => {
      const items = state.locations.filter((l) => (!q.get('status') || l.status === q.get('status'))
        && (!q.get('place') || has(l.location_raw, q.get('place')))
        && (!q.get('band') || has(l.band_name, q.get('band')) || String(l.ma_id) === q.get('band'))
        && (!q.get('country') || l.country.toLowerCase() === q.get('country').toLowerCase()));
      return send(res, 200, page(items, q));
    },
  },
  {
    method: 'POST', path: '/admin/api/locations/{id}/requeue',
    handle: ({ state, res, id }) => {
      const l = state.locations.find((x) => x.id === id);
      if (!l) return err(res, 404, 'not_found', 'unknown location');
      l.status = 'pending';
      return send(res, 200, l);
    },
  },
  {
    method: 'PATCH', path: '/admin/api/locations/{id}',
    handle: ({ state, res, body, id }) => {
      const l = state.locations.find((x) => x.id === id);
      if (!l) return err(res, 404, 'not_found', 'unknown location');
      const { lat, lon } = body;
      if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return err(res, 400, 'bad_request', 'invalid coordinates');
      const before = { status: l.status, lat: l.lat, lon: l.lon, provider: l.provider };
      Object.assign(l, { lat, lon, status: 'done', step_order: -1, provider: 'manual', confidence: 1 });
      audit(state, 'location.patch', `location:${id}`, before, { status: l.status, lat, lon, provider: 'manual' });
      return send(res, 200, l);
    },
  },
  { method: 'POST', path: '/admin/api/locations/reset-errors', handle: ({ state, res }) => send(res, 200, { affected: state.locations.filter((l) => l.status === 'error').length }) },
  { method: 'POST', path: '/admin/api/locations/reset-llm', handle: ({ res }) => send(res, 200, { affected: 3 }) },
  { method: 'POST', path: '/admin/api/locations/requeue-all', handle: ({ state, res }) => send(res, 200, { affected: state.locations.length }) },
  { method: 'POST', path: '/admin/api/locations/reset-all', handle: ({ state, res }) => send(res, 200, { affected: state.locations.length }) },
  { method: 'POST', path: '/admin/api/geocode-cache/purge-legacy-provider', handle: ({ res }) => send(res, 200, { deleted: 0 }) },
  { method: 'GET', path: '/admin/api/geocoding', handle: ({ state, res }) => send(res, 200, {
    by_status: byStatus(state), providers: [{ provider: 'geoapify', count: 40, avg_confidence: 0.91 }, { provider: 'llm+geoapify', count: 2, avg_confidence: null }],
    llm_models: llmModels(state),
    cache: { entries: 123 },
  }) },
];
