// Band Map public page: Leaflet map of server-side clusters, band card with
// its path, filters and view reflected in the URL, band search.
// No image markers (divIcons only) so it works without tiles or network.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';

const REQUEST_TIMEOUT_MS = 15000;
const DEBOUNCE_MS = 250;
const DEFAULT_VIEW = { lat: 52, lon: 12, zoom: 4 };
const FILTERS = ['genre', 'country', 'status', 'year_min', 'year_max'];
const ATTRIBUTION = '© <a href="https://www.openstreetmap.org/copyright">OpenStreetMap contributors</a> · '
  + 'Lieux : <a href="https://www.geonames.org/">GeoNames (CC BY 4.0)</a>';

const $ = (id) => document.getElementById(id);

// ---------- small helpers (text only, never innerHTML with data) ----------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const text = (v) => (v === null || v === undefined || v === '' || (typeof v === 'number' && !Number.isFinite(v)) ? '—' : String(v));
function safeUrl(u) {
  try {
    const url = new URL(u, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
const num = (v) => (v === null || v === undefined || v === '' ? NaN : Number(v));

/** fetch JSON with a timeout and an optional outer abort signal. */
async function getJson(path, { signal } = {}) {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(new DOMException('timeout', 'TimeoutError')), REQUEST_TIMEOUT_MS);
  const onAbort = () => ctrl.abort(signal.reason);
  if (signal) signal.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await fetch(path, { signal: ctrl.signal, headers: { Accept: 'application/json' } });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const e = new Error(body?.error?.message || `HTTP ${res.status}`);
      e.status = res.status;
      throw e;
    }
    return body;
  } catch (e) {
    if (ctrl.signal.aborted && ctrl.signal.reason?.name === 'TimeoutError') throw new Error('Le serveur ne répond pas (délai dépassé).');
    throw e;
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener('abort', onAbort);
  }
}

// ---------- URL state ----------
const initial = new URLSearchParams(location.search);
const filters = {};
for (const k of FILTERS) if (initial.get(k)) filters[k] = initial.get(k);
let openBand = initial.get('band') || null;

// The tile URL is the server operator's choice (the <meta> tag of the page), never the
// visitor's: a shared link must not be able to point the map's requests at another host.
function tileUrl() {
  const t = (document.querySelector('meta[name="bandmap-tiles"]')?.content ?? '').trim();
  if (!t || t === 'none') return null;
  // Only http(s) (or same-origin relative) templates.
  return /^(https?:)?\/\//.test(t) || t.startsWith('/') ? t : null;
}

function updateUrl() {
  const p = new URLSearchParams();
  const c = map.getCenter();
  p.set('lat', c.lat.toFixed(4));
  p.set('lon', c.lng.toFixed(4));
  p.set('z', String(map.getZoom()));
  for (const k of FILTERS) if (filters[k]) p.set(k, filters[k]);
  if (openBand) p.set('band', openBand);
  history.replaceState(null, '', `${location.pathname}?${p.toString()}`);
}

// ---------- map ----------
const startLat = num(initial.get('lat'));
const startLon = num(initial.get('lon'));
const startZoom = num(initial.get('z') ?? initial.get('zoom'));
const map = L.map('map', {
  minZoom: 2,
  maxZoom: 18,
  worldCopyJump: false,
  keyboard: true,
}).setView(
  [Number.isFinite(startLat) ? startLat : DEFAULT_VIEW.lat, Number.isFinite(startLon) ? startLon : DEFAULT_VIEW.lon],
  Number.isFinite(startZoom) ? Math.max(2, Math.min(18, Math.round(startZoom))) : DEFAULT_VIEW.zoom,
);
map.attributionControl.addAttribution(ATTRIBUTION);

const tiles = tileUrl();
if (tiles) {
  L.tileLayer(tiles, { maxZoom: 19, crossOrigin: true }).addTo(map);
}

const markers = L.layerGroup().addTo(map);
const pathLayer = L.layerGroup().addTo(map);
const statusEl = $('map-status');

function markerIcon(className, size, label) {
  const el = h('span', { 'aria-hidden': 'true' }, label);
  return L.divIcon({ html: el, className: `bm-marker ${className}`, iconSize: [size, size] });
}

/** divIcon marker, focusable, activated by click, Enter or Space. */
function accessibleMarker(latlng, icon, ariaLabel, onActivate, data) {
  const m = L.marker(latlng, { icon, keyboard: true, title: ariaLabel, riseOnHover: true });
  m.on('click', onActivate);
  m.on('add', () => {
    const el = m.getElement();
    if (!el) return;
    el.setAttribute('role', 'button');
    el.setAttribute('aria-label', ariaLabel);
    for (const [k, v] of Object.entries(data || {})) el.dataset[k] = String(v);
    el.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        onActivate();
      }
    });
  });
  return m;
}

function clusterSize(count) {
  return Math.round(Math.min(64, 26 + Math.log2(Math.max(1, count)) * 5));
}

function render(fc) {
  markers.clearLayers();
  const features = Array.isArray(fc?.features) ? fc.features : [];
  let clusters = 0;
  let bands = 0;
  const stacks = new Map(); // identical coordinates → list of point features
  for (const f of features) {
    const coords = f?.geometry?.coordinates;
    if (!Array.isArray(coords) || !Number.isFinite(coords[0]) || !Number.isFinite(coords[1])) continue;
    const p = f.properties || {};
    const latlng = L.latLng(coords[1], coords[0]);
    if (p.cluster) {
      clusters += 1;
      const count = Number(p.count) || 0;
      bands += count;
      const size = clusterSize(count);
      const cls = `bm-cluster ${count >= 1000 ? 'size-l' : count >= 100 ? 'size-m' : 'size-s'}`;
      const label = count >= 10000 ? `${Math.round(count / 1000)}k` : String(count);
      const target = Number.isFinite(Number(p.expansion_zoom)) ? Number(p.expansion_zoom) : map.getZoom() + 2;
      accessibleMarker(latlng, markerIcon(cls, size, label), `Groupe de ${count} points : zoomer`, () => {
        map.setView(latlng, Math.min(map.getMaxZoom(), Math.max(target, map.getZoom() + 1)));
      }, { count, kind: 'cluster' }).addTo(markers);
    } else {
      bands += 1;
      const key = `${coords[1].toFixed(6)},${coords[0].toFixed(6)}`;
      if (!stacks.has(key)) stacks.set(key, { latlng, items: [] });
      stacks.get(key).items.push(p);
    }
  }
  for (const { latlng, items } of stacks.values()) {
    if (items.length === 1) {
      const p = items[0];
      const label = `${text(p.name)} — ${text(p.location_raw)}${p.step_label ? ' (' + p.step_label + ')' : ''}`;
      accessibleMarker(latlng, markerIcon('bm-point', 16, ''), label, () => openCard(p.ma_id), { maId: p.ma_id, kind: 'point' })
        .addTo(markers);
    } else {
      accessibleMarker(latlng, markerIcon('bm-point bm-stack', 24, String(items.length)),
        `${items.length} groupes à ${text(items[0].location_raw)}`, () => showStack(items), { count: items.length, kind: 'stack' })
        .addTo(markers);
    }
  }
  statusEl.textContent = features.length
    ? `${bands} point(s) affiché(s)${clusters ? `, dont ${clusters} amas` : ''}.`
    : 'Aucun groupe dans cette zone avec ces filtres.';
}

// ---------- loading clusters ----------
let loadTimer = null;
let loadCtrl = null;
function scheduleLoad() {
  clearTimeout(loadTimer);
  loadTimer = setTimeout(loadClusters, DEBOUNCE_MS);
}

export function bboxParam(bounds) {
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const w = clamp(bounds.getWest(), -180, 180);
  const s = clamp(bounds.getSouth(), -90, 90);
  const e = clamp(bounds.getEast(), -180, 180);
  const n = clamp(bounds.getNorth(), -90, 90);
  return [w, s, e, n].map((v) => v.toFixed(5)).join(',');
}

async function loadClusters() {
  if (loadCtrl) loadCtrl.abort();
  const ctrl = new AbortController();
  loadCtrl = ctrl;
  const q = new URLSearchParams();
  q.set('bbox', bboxParam(map.getBounds()));
  q.set('zoom', String(Math.max(0, Math.min(20, Math.round(map.getZoom())))));
  for (const k of FILTERS) if (filters[k]) q.set(k, filters[k]);
  statusEl.textContent = 'Chargement…';
  try {
    const fc = await getJson(`/api/clusters?${q.toString()}`, { signal: ctrl.signal });
    if (ctrl !== loadCtrl) return; // stale
    render(fc);
  } catch (e) {
    if (ctrl.signal.aborted && ctrl !== loadCtrl) return;
    if (e.name === 'AbortError' && ctrl !== loadCtrl) return;
    statusEl.textContent = `Erreur de chargement : ${e.message}`;
  }
}

map.on('moveend', () => {
  updateUrl();
  scheduleLoad();
});

// ---------- band card ----------
const card = $('card');
let cardCtrl = null;

function closeCard() {
  if (cardCtrl) cardCtrl.abort();
  card.hidden = true;
  card.replaceChildren();
  pathLayer.clearLayers();
  openBand = null;
  updateUrl();
  map.invalidateSize();
}

function cardHeader(title) {
  return h('div', { class: 'card-head' },
    h('h2', { id: 'card-title' }, title),
    h('button', { type: 'button', class: 'close', 'aria-label': 'Fermer la fiche', onclick: closeCard }, '×'));
}

function showCardShell() {
  const wasHidden = card.hidden;
  card.hidden = false;
  if (wasHidden) map.invalidateSize();
}

function showStack(items) {
  if (cardCtrl) cardCtrl.abort();
  pathLayer.clearLayers();
  showCardShell();
  card.replaceChildren(
    cardHeader(`${items.length} groupes à ${text(items[0].location_raw)}`),
    h('ul', { class: 'band-list' }, items.map((p) => h('li', null,
      h('button', { type: 'button', onclick: () => openCard(p.ma_id) },
        text(p.name), h('span', { class: 'muted' }, ` · ${text(p.genre)} · ${text(p.formed_year)}`))))),
  );
  card.focus();
}

async function openCard(maId) {
  if (maId === null || maId === undefined) return;
  if (cardCtrl) cardCtrl.abort();
  const ctrl = new AbortController();
  cardCtrl = ctrl;
  openBand = String(maId);
  updateUrl();
  showCardShell();
  card.replaceChildren(cardHeader('Chargement…'));
  try {
    const b = await getJson(`/api/bands/${encodeURIComponent(maId)}`, { signal: ctrl.signal });
    if (ctrl !== cardCtrl) return;
    renderCard(b || {});
  } catch (e) {
    if (ctrl !== cardCtrl) return;
    card.replaceChildren(cardHeader('Fiche indisponible'), h('p', { class: 'error', role: 'alert' }, e.status === 404 ? 'Groupe inconnu.' : e.message));
  }
  card.focus();
}

function renderCard(b) {
  const url = safeUrl(b.url);
  // The server sends the steps in path order (a manual override, step_order -1, keeps its
  // step's place): never re-sort them here.
  const steps = Array.isArray(b.steps) ? b.steps : [];
  card.replaceChildren(
    cardHeader(text(b.name)),
    h('dl', null,
      h('dt', null, 'Genre'), h('dd', null, text(b.genre)),
      h('dt', null, 'Pays'), h('dd', null, text(b.country)),
      h('dt', null, 'Statut'), h('dd', null, text(b.status)),
      h('dt', null, 'Formé en'), h('dd', null, text(b.formed_year))),
    url ? h('p', null, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'upstream' }, 'Fiche sur l’encyclopédie ↗')) : null,
    h('h3', null, 'Parcours'),
    steps.length
      ? h('ol', { class: 'steps' }, steps.map((s) => h('li', null,
        text(s.location_raw), s.step_label ? h('span', { class: 'muted' }, ` (${s.step_label})`) : null)))
      : h('p', { class: 'muted' }, 'Aucun lieu localisé.'),
  );
  pathLayer.clearLayers();
  const pts = steps.filter((s) => Number.isFinite(num(s.lat)) && Number.isFinite(num(s.lon))).map((s) => L.latLng(num(s.lat), num(s.lon)));
  if (pts.length > 1) L.polyline(pts, { color: '#8b1e1e', weight: 3, opacity: 0.8, className: 'bm-path', interactive: false }).addTo(pathLayer);
  pts.forEach((p, i) => L.circleMarker(p, {
    radius: i === 0 ? 9 : 7, color: '#8b1e1e', weight: 3, fillColor: i === 0 ? '#fff' : '#f3c9c9', fillOpacity: 1, interactive: false,
  }).addTo(pathLayer));
  if (pts.length > 1) {
    const bounds = L.latLngBounds(pts);
    if (!map.getBounds().contains(bounds)) map.fitBounds(bounds, { padding: [40, 40], maxZoom: map.getZoom() });
  }
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !card.hidden && !$('search-results').contains(document.activeElement)) closeCard();
});

// ---------- filters ----------
const form = $('filters-form');
const filtersErr = $('filters-error');
function fillForm() {
  for (const k of FILTERS) form.elements[k].value = filters[k] || '';
}
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const next = {};
  for (const k of FILTERS) {
    const v = String(form.elements[k].value || '').trim();
    if (v) next[k] = v;
  }
  for (const k of ['year_min', 'year_max']) {
    if (next[k] !== undefined && !/^\d{1,4}$/.test(next[k])) {
      filtersErr.textContent = 'Les années doivent être des nombres entiers.';
      filtersErr.hidden = false;
      form.elements[k].focus();
      return;
    }
  }
  if (next.year_min && next.year_max && Number(next.year_min) > Number(next.year_max)) {
    filtersErr.textContent = '« Formé après » doit être inférieur ou égal à « Formé avant ».';
    filtersErr.hidden = false;
    return;
  }
  filtersErr.hidden = true;
  for (const k of FILTERS) delete filters[k];
  Object.assign(filters, next);
  updateUrl();
  loadClusters();
});
$('filters-reset').addEventListener('click', () => {
  for (const k of FILTERS) delete filters[k];
  fillForm();
  filtersErr.hidden = true;
  updateUrl();
  loadClusters();
});
const toggle = $('filters-toggle');
toggle.addEventListener('click', () => {
  const panel = $('filters-panel');
  const open = !panel.classList.contains('open');
  panel.classList.toggle('open', open);
  toggle.setAttribute('aria-expanded', String(open));
  if (open) form.elements.genre.focus();
});

// ---------- search ----------
const searchInput = $('search-input');
const results = $('search-results');
let searchTimer = null;
let searchCtrl = null;
let lastResults = [];

function closeResults() {
  results.hidden = true;
  results.replaceChildren();
  searchInput.setAttribute('aria-expanded', 'false');
}

function choose(item) {
  closeResults();
  searchInput.value = item.name ?? '';
  const lat = num(item.lat);
  const lon = num(item.lon);
  if (Number.isFinite(lat) && Number.isFinite(lon)) map.flyTo([lat, lon], Math.max(map.getZoom(), 10), { duration: 0.8 });
  openCard(item.ma_id);
}

async function runSearch() {
  const q = searchInput.value.trim();
  if (searchCtrl) searchCtrl.abort();
  if (q.length < 2) {
    closeResults();
    return;
  }
  const ctrl = new AbortController();
  searchCtrl = ctrl;
  try {
    const data = await getJson(`/api/search?q=${encodeURIComponent(q)}`, { signal: ctrl.signal });
    if (ctrl !== searchCtrl) return;
    lastResults = Array.isArray(data) ? data : Array.isArray(data?.items) ? data.items : [];
    results.replaceChildren(...(lastResults.length
      ? lastResults.map((it) => h('li', { role: 'option' },
        h('button', { type: 'button', tabindex: '-1', onclick: () => choose(it) },
          text(it.name), h('span', { class: 'meta' }, ` · ${text(it.country)} · ${text(it.genre)}`))))
      : [h('li', { class: 'none' }, 'Aucun groupe trouvé.')]));
    results.hidden = false;
    searchInput.setAttribute('aria-expanded', 'true');
  } catch (e) {
    if (ctrl !== searchCtrl) return;
    results.replaceChildren(h('li', { class: 'none', role: 'alert' }, `Recherche impossible : ${e.message}`));
    results.hidden = false;
  }
}

searchInput.addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(runSearch, DEBOUNCE_MS);
});
$('search-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  clearTimeout(searchTimer);
  await runSearch();
  if (lastResults.length === 1) choose(lastResults[0]);
  else results.querySelector('button')?.focus();
});
function resultButtons() {
  return [...results.querySelectorAll('button')];
}
searchInput.addEventListener('keydown', (e) => {
  if (e.key === 'ArrowDown') {
    e.preventDefault();
    resultButtons()[0]?.focus();
  } else if (e.key === 'Escape') closeResults();
});
results.addEventListener('keydown', (e) => {
  const btns = resultButtons();
  const i = btns.indexOf(document.activeElement);
  if (e.key === 'ArrowDown') {
    e.preventDefault();
    btns[Math.min(btns.length - 1, i + 1)]?.focus();
  } else if (e.key === 'ArrowUp') {
    e.preventDefault();
    if (i <= 0) searchInput.focus();
    else btns[i - 1].focus();
  } else if (e.key === 'Escape') {
    closeResults();
    searchInput.focus();
  }
});
document.addEventListener('click', (e) => {
  if (!$('search-form').contains(e.target)) closeResults();
});
searchInput.setAttribute('aria-expanded', 'false');
searchInput.setAttribute('role', 'combobox');

// ---------- start ----------
fillForm();
updateUrl();
loadClusters();
if (openBand) openCard(openBand);
