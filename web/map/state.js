// The page state that a shared link carries: view, filters, open band.
// /?lat=..&lon=..&z=..&genre=..&country=..&status=..&year_min=..&year_max=..&family=black,doom&layer=density&flows=1&band=<ma_id>&lang=en
import { num } from '/lib/dom.js';
import { parseFamilies } from './families.js';
import { lang, langInUrl } from './i18n.js';

export const FILTERS = ['genre', 'country', 'status', 'year_min', 'year_max'];
export const DEFAULT_VIEW = { lat: 52, lon: 12, zoom: 4 };

const initial = new URLSearchParams(location.search);

export const state = {
  filters: Object.fromEntries(FILTERS.filter((k) => initial.get(k)).map((k) => [k, initial.get(k)])),
  families: parseFamilies(initial.get('family')), // genre families kept (legend); [] = all
  openBand: initial.get('band') || null,
  layer: initial.get('layer') === 'density' ? 'density' : null, // the density choropleth instead of the clusters
  flows: initial.get('flows') === '1', // the flows layer (flows.js)
  map: null,
};

/** The view asked for by the URL, or the default one. */
/** Whether the page was opened with a view (a shared link): it is kept as is. */
export const urlHasView = initial.has('lat') && initial.has('lon');

export function initialView() {
  const lat = num(initial.get('lat'));
  const lon = num(initial.get('lon'));
  const zoom = num(initial.get('z') ?? initial.get('zoom'));
  return {
    center: [Number.isFinite(lat) ? lat : DEFAULT_VIEW.lat, Number.isFinite(lon) ? lon : DEFAULT_VIEW.lon],
    zoom: Number.isFinite(zoom) ? Math.max(2, Math.min(18, Math.round(zoom))) : DEFAULT_VIEW.zoom,
  };
}

export function updateUrl() {
  const p = new URLSearchParams();
  if (state.map) {
    const c = state.map.getCenter();
    p.set('lat', c.lat.toFixed(4));
    p.set('lon', c.lng.toFixed(4));
    p.set('z', String(state.map.getZoom()));
  }
  for (const k of FILTERS) if (state.filters[k]) p.set(k, state.filters[k]);
  if (state.families.length) p.set('family', state.families.join(','));
  if (state.layer) p.set('layer', state.layer);
  if (state.flows) p.set('flows', '1');
  if (state.openBand) p.set('band', state.openBand);
  // The language stays in the URL once named there, and English always: a shared link keeps it.
  if (langInUrl || lang !== 'fr') p.set('lang', lang);
  history.replaceState(null, '', `${location.pathname}?${p.toString()}`);
}

const listeners = [];

/** Called with the filters each time they change. */
export function onFiltersChange(fn) {
  listeners.push(fn);
}

/** Replaces the filters (blank values dropped), updates the URL and tells the listeners;
 *  resolves when they are done (the map redrawn). */
export function setFilters(next) {
  state.filters = Object.fromEntries(FILTERS.filter((k) => next[k] !== undefined && String(next[k]).trim() !== '')
    .map((k) => [k, String(next[k]).trim()]));
  updateUrl();
  return Promise.all(listeners.map((fn) => fn(state.filters)));
}

/** Replaces the kept genre families (legend clicks), updates the URL and tells the
 *  listeners; resolves when the map is redrawn. */
export function setFamilies(next) {
  state.families = parseFamilies(next.join(','));
  updateUrl();
  return Promise.all(listeners.map((fn) => fn(state.filters)));
}
