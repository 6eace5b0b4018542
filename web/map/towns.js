// Towns (issue 29 item 3): offline, no tile names a place below the country, so the map
// names the towns that have bands itself, and ranks them. For the view (and the filters,
// and the legend's families) it reads the points one by one (`/api/clusters` at zoom 17,
// at most the server's 5000) and groups them by position: one town per position, named
// by the town part of its places ("Bergen, Vestland" → "Bergen").
// - From zoom 6, each town gets a small label beside its marker, the towns with most bands
//   first, a label only where it overlaps no other (a one-place cluster or a stack thus
//   carries its town's name).
// - The « Villes » panel (top right) ranks the view's towns by bands; a line opens the
//   town's list of bands.
// When the view holds more points than the server sends one by one, nothing is labelled
// and the panel asks to zoom in (a partial ranking would mislead).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { getJson, isAbort } from '/lib/http.js';
import { $, h } from '/lib/dom.js';
import { state, FILTERS } from './state.js';
import { t, fmt, compare } from './i18n.js';

const LABEL_ZOOM = 6;
const MAX_LABELS = 60;
const TOP = 10;
const PANE = 'townLabels';

let map = null;
let layer = null;
let ctrl = null;
let open = false;
let onOpenTown = () => {};
let bboxOf = null;

/** "Bergen, Vestland" → "Bergen". */
export const townName = (raw) => String(raw ?? '').split(',')[0].trim();

/** Points (GeoJSON features, zoom 17) → towns [{latlng, name, items, bands}], most bands
 *  first, then by name. */
export function groupTowns(features) {
  const byPos = new Map();
  for (const f of features) {
    const c = f?.geometry?.coordinates;
    const p = f?.properties;
    if (!p || p.cluster || !Array.isArray(c)) continue;
    const key = `${Number(c[1]).toFixed(6)},${Number(c[0]).toFixed(6)}`;
    if (!byPos.has(key)) byPos.set(key, { latlng: L.latLng(c[1], c[0]), items: [], names: new Map(), ids: new Set() });
    const t = byPos.get(key);
    t.items.push(p);
    t.ids.add(p.ma_id);
    const n = townName(p.location_raw);
    if (n) t.names.set(n, (t.names.get(n) || 0) + 1);
  }
  return [...byPos.values()].map((t) => ({
    latlng: t.latlng,
    items: t.items,
    bands: t.ids.size,
    name: [...t.names].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))[0]?.[0] ?? '—',
  })).sort((a, b) => b.bands - a.bands || compare(a.name, b.name));
}

function drawLabels(towns) {
  layer.clearLayers();
  const size = map.getSize();
  const placed = [];
  let n = 0;
  for (const t of towns) {
    if (n >= MAX_LABELS) break;
    const p = map.latLngToContainerPoint(t.latlng);
    const w = t.name.length * 6.6 + 8;
    const r = { l: p.x + 9, t: p.y - 8, r: p.x + 9 + w, b: p.y + 8 };
    if (r.l < 0 || r.t < 0 || r.r > size.x || r.b > size.y) continue;
    if (placed.some((q) => r.l < q.r && r.r > q.l && r.t < q.b && r.b > q.t)) continue;
    placed.push(r);
    n += 1;
    const el = h('span', { 'data-town': t.name, 'data-bands': String(t.bands) }, t.name);
    const icon = L.divIcon({ className: 'bm-town', html: el, iconSize: null, iconAnchor: [-9, 8] });
    L.marker(t.latlng, { icon, pane: PANE, interactive: false, keyboard: false }).addTo(layer);
  }
}

function renderList(towns, truncated) {
  const box = $('towns-panel');
  if (!box) return;
  if (!open) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  if (towns === null) {
    box.replaceChildren(h('p', { class: 'muted' }, t('map.loading')));
    return;
  }
  const title = h('p', { class: 'towns-title' }, t('map.towns.title'));
  if (truncated) {
    box.replaceChildren(title, h('p', { class: 'muted', id: 'towns-note' }, t('map.towns.too_many')));
    return;
  }
  if (!towns.length) {
    box.replaceChildren(title, h('p', { class: 'muted', id: 'towns-note' }, t('map.status.none')));
    return;
  }
  box.replaceChildren(title, h('ol', { id: 'towns-top', 'aria-label': t('map.towns.top') },
    towns.slice(0, TOP).map((t) => h('li', null, h('button', {
      type: 'button', class: 'town', 'data-town': t.name, 'data-bands': String(t.bands),
      onclick: () => onOpenTown(t.items, t.latlng),
    }, h('span', { class: 'town-name' }, t.name), h('span', { class: 'figure' }, ` ${fmt(t.bands)}`))))));
}

/** Reloads the labels and the ranking for the view; resolves when drawn (or failed). */
export async function loadTowns() {
  if (!map) return;
  const labels = map.getZoom() >= LABEL_ZOOM;
  if (!labels) layer.clearLayers();
  if (!labels && !open) return;
  if (ctrl) ctrl.abort();
  const mine = new AbortController();
  ctrl = mine;
  const q = new URLSearchParams();
  q.set('bbox', bboxOf(map.getBounds()));
  q.set('zoom', '17');
  for (const k of FILTERS) if (state.filters[k]) q.set(k, state.filters[k]);
  if (state.families.length) q.set('family', state.families.join(','));
  q.set('breakdown', 'families');
  try {
    const fc = await getJson(`/api/clusters?${q}`, { signal: mine.signal });
    if (mine !== ctrl) return;
    const towns = fc?.truncated ? [] : groupTowns(Array.isArray(fc?.features) ? fc.features : []);
    if (labels && !fc?.truncated) drawLabels(towns);
    else layer.clearLayers();
    renderList(towns, Boolean(fc?.truncated));
  } catch (e) {
    if (mine !== ctrl || isAbort(e)) return;
    layer.clearLayers();
    // The clusters' own error banner says the server failed; the panel says it briefly.
    if (open) $('towns-panel')?.replaceChildren(h('p', { class: 'muted' }, t('map.towns.failed', { error: e.message })));
  }
}

function toggle() {
  open = !open;
  $('towns-toggle').setAttribute('aria-pressed', String(open));
  renderList(null);
  if (open) loadTowns();
}

const Control = L.Control.extend({
  options: { position: 'topright' },
  onAdd() {
    const box = h('div', { class: 'towns-control' },
      h('button', { type: 'button', id: 'towns-toggle', class: 'towns-toggle', 'aria-pressed': 'false', 'aria-controls': 'towns-panel', title: t('map.towns.toggle_title'), onclick: toggle }, t('map.towns.toggle')),
      h('div', { id: 'towns-panel', class: 'towns-panel', role: 'region', 'aria-label': t('map.towns.label'), hidden: true }));
    L.DomEvent.disableClickPropagation(box);
    L.DomEvent.disableScrollPropagation(box);
    return box;
  },
});

/** `openTown(items, latlng)` opens a town's list; `bbox(bounds)` is the clusters' bbox. */
export function initTowns(m, { openTown, bbox }) {
  map = m;
  onOpenTown = openTown;
  bboxOf = bbox;
  const pane = map.createPane(PANE);
  pane.style.zIndex = '610';
  pane.style.pointerEvents = 'none';
  layer = L.layerGroup().addTo(map);
  new Control().addTo(map);
}
