// The density layer: a choropleth of bands per 100,000 inhabitants per country
// (GET /api/countries under the page's filters and the legend's genre families; populations
// from GeoNames), painted on the offline country shapes (outline.js) in a pane above the
// tiles and below the markers. A toggle replaces the clusters with it; a legend gives the
// classes, the families counted and the densest countries; hovering a country shows its
// figure. State in the URL (`layer=density`).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { getJson, isAbort } from '/lib/http.js';
import { $, h } from '/lib/dom.js';
import { showError, clearError } from './errors.js';
import { countryShapes } from './outline.js';
import { smallCountryPoints } from './small-countries.js';
import { state, updateUrl, FILTERS, urlHasView } from './state.js';
import { familyLabel } from './families.js';
import { countryLabel } from './countries.js';
import { t, tn, LOCALE } from './i18n.js';

// Sequential classes, dark to bright (the theme's reds toward bone).
const COLOURS = ['#4a1217', '#7d1a1f', '#b3202a', '#e0533d', '#f4a261'];
const PANE = 'density';
const fmt = (v, digits = 2) => Number(v).toLocaleString(LOCALE, { maximumFractionDigits: digits });
/** A density: three significant digits (0,0123; 1,23; 12,3; 123). */
const fmtDensity = (v) => Number(v).toLocaleString(LOCALE, { maximumSignificantDigits: 3 });

let map = null;
let shapesLayer = null;
let items = new Map(); // feature key → answer item
let classes = [];
let ctrl = null;
let onMode = null;
let counted = []; // the genre families of the answer shown ([] = all)

/** "Black, Doom / stoner / sludge": the families counted, or '' for all. */
const familiesText = () => counted.map(familyLabel).join(', ');

/** "Nice" value: two significant digits. */
const nice = (v) => (v <= 0 ? 0 : Number(v.toPrecision(2)));

/** Up to five class lower bounds from the values (quantiles, rounded, distinct). */
export function classBreaks(values) {
  const sorted = values.filter((v) => Number.isFinite(v) && v > 0).sort((a, b) => a - b);
  if (!sorted.length) return [];
  // One value (one country, or all alike): one class, not "0 – v" and "v and more".
  if (sorted[0] === sorted[sorted.length - 1]) return [0];
  const bounds = [0];
  for (let k = 1; k < COLOURS.length; k++) {
    const b = nice(sorted[Math.min(sorted.length - 1, Math.floor((k * sorted.length) / COLOURS.length))]);
    if (b > bounds[bounds.length - 1]) bounds.push(b);
  }
  return bounds;
}

const classOf = (v) => {
  let c = 0;
  classes.forEach((b, i) => {
    if (v >= b) c = i;
  });
  return c;
};

/** The answer item of a shape: ISO numeric id, else the name (Kosovo has no id). */
function itemOf(feature) {
  const id = Number(feature.id);
  if (Number.isFinite(id) && id > 0 && items.has(`n${id}`)) return items.get(`n${id}`);
  return items.get(`s${String(feature.properties?.name ?? '').toLowerCase()}`) ?? null;
}

function tip(layer) {
  const f = layer.feature;
  const it = itemOf(f);
  const name = countryLabel(it?.country_code ?? it?.country ?? f.properties?.name ?? '');
  if (!it) return h('span', null, h('strong', null, name), h('br'), t('map.density.none_here'));
  return h('span', null, h('strong', null, name), h('br'),
    `${tn('map.bands', it.bands)}${counted.length ? ` (${familiesText()})` : ''}`,
    it.population ? ` · ${t('map.density.people', { n: fmt(it.population, 0) })}` : '', h('br'),
    it.per_100k === null || it.per_100k === undefined
      ? t('map.density.population_unknown')
      : h('span', { class: 'figure' }, t('map.density.figure', { n: fmtDensity(it.per_100k) })));
}

function styleOf(feature) {
  const it = itemOf(feature);
  const v = it?.per_100k;
  if (v === null || v === undefined) return { stroke: false, fill: true, fillOpacity: 0, fillColor: '#000' };
  return { stroke: true, color: '#0e1116', weight: 0.7, opacity: 1, fill: true, fillColor: COLOURS[classOf(v)], fillOpacity: 0.82 };
}

function tagPath(layer) {
  const el = layer.getElement?.();
  if (!el) return;
  const it = itemOf(layer.feature);
  el.dataset.country = layer.feature.properties?.name ?? '';
  el.dataset.cc = it?.country_code ?? '';
  el.dataset.bands = String(it?.bands ?? 0);
  el.dataset.density = it?.per_100k === null || it?.per_100k === undefined ? '' : String(it.per_100k);
}

function legendBody() {
  const box = $('density-legend');
  if (!box) return;
  const ranked = [...new Set(items.values())].filter((i) => Number.isFinite(i.per_100k)).sort((a, b) => b.per_100k - a.per_100k);
  const rows = classes.map((b, i) => {
    const sw = h('span', { class: 'dens-swatch', 'aria-hidden': 'true' });
    sw.style.background = COLOURS[i]; // CSSOM, allowed by the CSP (no style attribute)
    const upper = classes[i + 1];
    const label = classes.length === 1 && ranked.length ? fmtDensity(ranked[0].per_100k)
      : upper === undefined ? t('map.density.and_more', { n: fmtDensity(b) }) : `${fmtDensity(b)} – ${fmtDensity(upper)}`;
    return h('li', null, sw, h('span', null, label));
  });
  // Absent parts are left out (replaceChildren would write a null as the text "null").
  box.replaceChildren(...[
    h('p', { class: 'dens-title' }, t('map.density.title')),
    counted.length ? h('p', { class: 'dens-families', 'data-families': counted.join(',') }, t('map.density.families', { families: familiesText() })) : null,
    classes.length ? h('ul', { class: 'dens-classes' }, rows) : h('p', { class: 'muted' }, ranked.length || !items.size ? t('map.density.none') : t('map.density.no_population')),
    ranked.length ? h('ol', { class: 'dens-top', 'aria-label': t('map.density.top') },
      ranked.slice(0, 5).map((i) => h('li', null, `${countryLabel(i.country_code ?? i.country)} `, h('span', { class: 'figure' }, fmtDensity(i.per_100k))))) : null,
    h('p', { class: 'dens-source muted' }, t('map.density.source')),
  ].filter(Boolean));
}

/** The bounds of a country's largest polygon (its mainland: French Guiana or the Canaries
 *  do not pull the frame across the ocean). */
function mainBounds(layer) {
  const ll = layer.getLatLngs?.();
  if (!Array.isArray(ll) || !ll.length) return layer.getLatLng ? L.latLngBounds([layer.getLatLng()]) : null;
  const polygons = Array.isArray(ll[0]?.[0]) ? ll : [ll]; // MultiPolygon or Polygon
  let best = null;
  let area = -1;
  for (const rings of polygons) {
    if (!rings?.[0]?.length) continue;
    const b = L.latLngBounds(rings[0]);
    const a = (b.getNorth() - b.getSouth()) * (b.getEast() - b.getWest());
    if (a > area) [best, area] = [b, a];
  }
  return best;
}

/** Europe, as far as the catalogue reaches: a country's part outside it (Russia's Siberia,
 *  Turkey's Anatolia, Kazakhstan) does not pull the frame (the centre of Russia's
 *  mainland is in Siberia: toggling the layer threw the map there). */
const EUROPE = { south: 34, west: -25, north: 72, east: 45 };

/** `b` cut to [`EUROPE`], or null when nothing of it is in Europe. */
function inEurope(b) {
  const south = Math.max(b.getSouth(), EUROPE.south);
  const north = Math.min(b.getNorth(), EUROPE.north);
  const west = Math.max(b.getWest(), EUROPE.west);
  const east = Math.min(b.getEast(), EUROPE.east);
  return south <= north && west <= east ? L.latLngBounds([south, west], [north, east]) : null;
}

/** The bounds of the countries painted (those of the answer), mainlands only, in Europe. */
function paintedBounds() {
  let bounds = null;
  shapesLayer?.eachLayer((l) => {
    if (!itemOf(l.feature)) return;
    const main = mainBounds(l);
    const b = main?.isValid() ? inEurope(main) : null;
    if (!b?.isValid()) return;
    bounds = bounds ? bounds.extend(b) : L.latLngBounds(b.getSouthWest(), b.getNorthEast());
  });
  return bounds;
}

/** Zooms out to the countries painted when the view shows less than them (issue 29: at a
 *  town's zoom the layer painted the whole screen one colour). Never zooms in. */
function frameCountries() {
  const bounds = paintedBounds();
  if (!bounds?.isValid() || map.getBounds().contains(bounds)) return;
  const zoom = Math.min(map.getZoom(), map.getBoundsZoom(bounds, false, L.point(40, 40)));
  // Not below 3: a country reaching across the antimeridian (Russia) would show the world.
  if (zoom < map.getZoom()) map.setView(bounds.getCenter(), Math.max(zoom, 3, map.getMinZoom()), { animate: false });
}

function paint() {
  classes = classBreaks([...items.values()].map((i) => i.per_100k));
  shapesLayer?.eachLayer((l) => {
    l.setStyle(styleOf(l.feature));
    tagPath(l);
  });
  legendBody();
  const n = new Set(items.values()).size;
  const filtered = Object.keys(state.filters).length || counted.length;
  $('map-status').textContent = `${tn('map.density.status', n)}${filtered ? t('map.status.filtered') : ''}.`;
}

/** Loads the densities for the filters and repaints; resolves when done (or failed).
 *  `frame`: zoom out to the countries concerned once painted (the layer was just opened). */
export async function loadDensity({ frame = false } = {}) {
  if (state.layer !== 'density') return;
  if (ctrl) ctrl.abort();
  const mine = new AbortController();
  ctrl = mine;
  const q = new URLSearchParams();
  for (const k of FILTERS) if (state.filters[k]) q.set(k, state.filters[k]);
  const families = [...state.families];
  if (families.length) q.set('family', families.join(','));
  try {
    const data = await getJson(`/api/countries${q.size ? `?${q}` : ''}`, { signal: mine.signal });
    if (mine !== ctrl) return;
    counted = families;
    items = new Map();
    for (const it of Array.isArray(data?.items) ? data.items : []) {
      if (Number.isFinite(it.iso_numeric) && it.iso_numeric > 0) items.set(`n${it.iso_numeric}`, it);
      if (it.country) items.set(`s${String(it.country).toLowerCase()}`, it);
    }
    await countryShapes().then(ensureShapes);
    if (mine !== ctrl) return;
    paint();
    if (frame) frameCountries();
    clearError('density');
  } catch (e) {
    if (mine !== ctrl || isAbort(e)) return;
    showError('density', t('map.err.density', { error: e.message }), () => loadDensity());
  }
}

function ensureShapes(countries) {
  if (shapesLayer) return;
  const renderer = L.svg({ pane: PANE });
  const features = [...(countries?.features ?? []), ...smallCountryPoints(countries)];
  shapesLayer = L.geoJSON({ type: 'FeatureCollection', features }, {
    pane: PANE,
    renderer,
    style: styleOf,
    // Countries without an outline at this scale: a dot, painted like a shape.
    pointToLayer: (_f, latlng) => L.circleMarker(latlng, { pane: PANE, renderer, radius: 6 }),
    onEachFeature: (f, layer) => {
      layer.bindTooltip(tip, { sticky: true, direction: 'top', offset: [0, -8], className: 'bm-density-tip' });
      layer.on('add', () => tagPath(layer));
    },
  });
  if (state.layer === 'density') shapesLayer.addTo(map);
}

function setMode(on, frame = true) {
  state.layer = on ? 'density' : null;
  updateUrl();
  const button = $('density-toggle');
  button.setAttribute('aria-pressed', String(on));
  $('density-legend').hidden = !on;
  onMode(!on);
  if (on) {
    if (shapesLayer) shapesLayer.addTo(map);
    return loadDensity({ frame });
  }
  if (ctrl) ctrl.abort();
  if (shapesLayer) shapesLayer.remove();
  clearError('density');
  return Promise.resolve();
}

const Toggle = L.Control.extend({
  options: { position: 'topright' },
  onAdd() {
    const box = h('div', { class: 'density-control' },
      h('button', { type: 'button', id: 'density-toggle', class: 'density-toggle', 'aria-pressed': 'false', 'aria-controls': 'density-legend', title: t('map.density.toggle_title'), onclick: () => setMode(state.layer !== 'density') }, t('map.density.toggle')),
      h('div', { id: 'density-legend', class: 'density-legend', role: 'region', 'aria-label': t('map.density.legend'), hidden: true }));
    L.DomEvent.disableClickPropagation(box);
    L.DomEvent.disableScrollPropagation(box);
    return box;
  },
});

/** `showClusters(bool)` shows or hides the cluster layer (hidden while the density is on). */
export function initDensity(m, showClusters) {
  map = m;
  onMode = showClusters;
  const pane = map.createPane(PANE);
  pane.style.zIndex = '350';
  new Toggle().addTo(map);
  // A shared link with its view keeps that view.
  if (state.layer === 'density') setMode(true, !urlHasView);
}
