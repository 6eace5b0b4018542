// The clusters layer: GET /api/clusters for the view and the filters (and the legend's
// genre families), drawn as cluster, point and stack markers; each cluster is a ring of its
// genre families (`breakdown=families`), each point takes its family's colour; the point
// count goes to the status line (always visible), the view's families to the legend.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { getJson, isAbort } from '/lib/http.js';
import { $, text } from '/lib/dom.js';
import { showError, clearError } from './errors.js';
import { markerIcon, accessibleMarker, clusterSize } from './markers.js';
import { placeTargets } from './placement.js';
import { state, FILTERS } from './state.js';
import { stepLabel } from './words.js';
import { t, tn, fmt } from './i18n.js';
import { ringGradient, familiesText, familyLabel, isFamily, FAMILY_NAMES } from './families.js';

const SAME_PLACE_ZOOM = 17;
// A point's (and a stack's) target, px; a point draws a 16 px dot in it (map.css), whose
// rim (with its 2 px ring) is 10 px from the centre.
const POINT_SIZE = 24;
const POINT_DOT_RIM = 10;
let layer = null;
let handlers = null;
let loadCtrl = null;
let shown = true; // false while the density layer replaces the clusters
// A cluster of points sharing one position, clicked: once the map is at zoom 17 (where the
// server sends them one by one, CONTRACT §11), the list of its bands opens by itself.
let pendingTown = null;
// Told the view's points per genre family after each draw (the legend shows them).
let onFamilies = () => {};

const familyOf = (p) => (isFamily(p.family) ? p.family : 'other');

export function bboxParam(bounds) {
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const w = clamp(bounds.getWest(), -180, 180);
  const s = clamp(bounds.getSouth(), -90, 90);
  const e = clamp(bounds.getEast(), -180, 180);
  const n = clamp(bounds.getNorth(), -90, 90);
  return [w, s, e, n].map((v) => v.toFixed(5)).join(',');
}

function addCluster(latlng, p, shift) {
  const map = state.map;
  const count = Number(p.count) || 0;
  const cls = `bm-cluster ${count >= 1000 ? 'size-l' : count >= 100 ? 'size-m' : 'size-s'}`;
  const label = count >= 10000 ? `${Math.round(count / 1000)}k` : String(count);
  const target = Number.isFinite(Number(p.expansion_zoom)) ? Number(p.expansion_zoom) : map.getZoom() + 2;
  const icon = markerIcon(`${cls} bm-ring`, clusterSize(count), label, ringGradient(p.families), shift);
  const mix = familiesText(p.families);
  const zoomIn = () => {
    pendingTown = target >= SAME_PLACE_ZOOM ? latlng : null;
    map.setView(latlng, Math.min(map.getMaxZoom(), Math.max(target, map.getZoom() + 1)));
  };
  // A cluster that only splits at zoom 17 may be one town: its list opens at once, with no
  // jump to zoom 17 over an empty street map (issue 29).
  const activate = () => (target >= SAME_PLACE_ZOOM ? openTownOrZoom(latlng, zoomIn) : zoomIn());
  accessibleMarker(latlng, icon, t(target >= SAME_PLACE_ZOOM ? 'map.cluster.list' : 'map.cluster.zoom', { n: String(count), mix: mix ? ` (${mix})` : '' }), activate, { count, kind: 'cluster', expansionZoom: target }).addTo(layer);
}

/** The points of a cluster at `latlng` one by one (zoom 17 in a ~20 m box): when they share
 *  one position the town's list opens where the map is; otherwise the map zooms in. */
async function openTownOrZoom(latlng, zoomIn) {
  const d = 0.0002;
  const q = new URLSearchParams();
  q.set('bbox', [latlng.lng - d, latlng.lat - d, latlng.lng + d, latlng.lat + d].map((v) => v.toFixed(6)).join(','));
  q.set('zoom', String(SAME_PLACE_ZOOM));
  for (const k of FILTERS) if (state.filters[k]) q.set(k, state.filters[k]);
  if (state.families.length) q.set('family', state.families.join(','));
  q.set('breakdown', 'families');
  try {
    const fc = await getJson(`/api/clusters?${q.toString()}`);
    const points = (Array.isArray(fc?.features) ? fc.features : []).filter((f) => !f?.properties?.cluster);
    const places = new Set(points.map((f) => `${Number(f.geometry?.coordinates?.[1]).toFixed(6)},${Number(f.geometry?.coordinates?.[0]).toFixed(6)}`));
    if (points.length > 1 && places.size === 1) {
      handlers.openStack(points.map((f) => f.properties), latlng);
      return;
    }
  } catch {
    // The list could not be read: zooming in still shows the points.
  }
  zoomIn();
}

function addStack(latlng, items, shift) {
  if (items.length === 1) {
    const p = items[0];
    const fam = familyOf(p);
    const label = `${text(p.name)} — ${text(p.location_raw)}${p.step_label ? ` (${stepLabel(p.step_label)})` : ''}, ${familyLabel(fam)}`;
    accessibleMarker(latlng, markerIcon(`bm-point bm-hit fam-${fam}`, POINT_SIZE, '', null, shift, POINT_DOT_RIM), label, () => handlers.openBand(p.ma_id), { maId: p.ma_id, kind: 'point', family: fam })
      .addTo(layer);
    return;
  }
  const mix = {};
  for (const p of items) mix[familyOf(p)] = (mix[familyOf(p)] || 0) + 1;
  accessibleMarker(latlng, markerIcon('bm-point bm-stack bm-ring', POINT_SIZE, String(items.length), ringGradient(mix), shift),
    tn('map.town.bands', items.length, { place: text(items[0].location_raw) }), () => handlers.openStack(items, latlng), { count: items.length, kind: 'stack' })
    .addTo(layer);
}

function openPendingTown(stacks) {
  if (!pendingTown || state.map.getZoom() < SAME_PLACE_ZOOM) return;
  const near = [...stacks.values()].find(({ latlng, items }) => items.length > 1
    && Math.abs(latlng.lat - pendingTown.lat) < 1e-5 && Math.abs(latlng.lng - pendingTown.lng) < 1e-5);
  pendingTown = null;
  if (near) handlers.openStack(near.items, near.latlng);
}

/** Draws the markers where placement.js puts them: at their place, or a few pixels away
 *  when they would overlap another or cross the map's edge. */
function drawPlaced(marks) {
  const map = state.map;
  const size = map.getSize();
  const at = marks.map(({ latlng, size: side }) => {
    // Where Leaflet draws a marker: its layer point rounded, less its anchor (the half
    // size rounded), in the map's pixels; the centre of that box.
    const p = map.layerPointToContainerPoint(map.latLngToLayerPoint(latlng).round());
    const c = side / 2 - Math.round(side / 2);
    return { x: p.x + c, y: p.y + c, size: side };
  });
  const { shifts, unplaced } = placeTargets(at, size.x, size.y);
  $('map-status').dataset.unplaced = String(unplaced);
  marks.forEach((m, i) => m.draw(shifts[i]));
}

/** Draws a FeatureCollection; returns the number of points (bands' steps) it holds. */
function render(fc) {
  layer.clearLayers();
  const features = Array.isArray(fc?.features) ? fc.features : [];
  let clusters = 0;
  let points = 0;
  const families = Object.fromEntries(FAMILY_NAMES.map((f) => [f, 0]));
  const stacks = new Map(); // identical coordinates → list of point features
  const marks = []; // {latlng, size, draw(shift)}: drawn once placed (placement.js)
  for (const f of features) {
    const coords = f?.geometry?.coordinates;
    if (!Array.isArray(coords) || !Number.isFinite(coords[0]) || !Number.isFinite(coords[1])) continue;
    const p = f.properties || {};
    const latlng = L.latLng(coords[1], coords[0]);
    if (p.cluster) {
      clusters += 1;
      points += Number(p.count) || 0;
      for (const f of FAMILY_NAMES) families[f] += Number(p.families?.[f]) || 0;
      marks.push({ latlng, size: clusterSize(Number(p.count) || 0), draw: (shift) => addCluster(latlng, p, shift) });
    } else {
      points += 1;
      families[familyOf(p)] += 1;
      const key = `${coords[1].toFixed(6)},${coords[0].toFixed(6)}`;
      if (!stacks.has(key)) stacks.set(key, { latlng, items: [] });
      stacks.get(key).items.push(p);
    }
  }
  for (const { latlng, items } of stacks.values()) marks.push({ latlng, size: POINT_SIZE, draw: (shift) => addStack(latlng, items, shift) });
  drawPlaced(marks);
  openPendingTown(stacks);
  onFamilies(families);
  const status = $('map-status');
  status.dataset.count = String(points);
  status.textContent = features.length
    ? `${tn('map.status.points', points)}${clusters ? tn('map.status.clusters', clusters) : ''}${fc?.truncated ? t('map.status.truncated') : ''}.`
    : t('map.status.none');
}

/** Loads the clusters of the current view; resolves once they are drawn (or failed). */
export async function loadClusters() {
  if (!shown) return;
  if (loadCtrl) loadCtrl.abort();
  const ctrl = new AbortController();
  loadCtrl = ctrl;
  const map = state.map;
  const q = new URLSearchParams();
  q.set('bbox', bboxParam(map.getBounds()));
  q.set('zoom', String(Math.max(0, Math.min(20, Math.round(map.getZoom())))));
  for (const k of FILTERS) if (state.filters[k]) q.set(k, state.filters[k]);
  if (state.families.length) q.set('family', state.families.join(','));
  q.set('breakdown', 'families');
  $('map-status').setAttribute('aria-busy', 'true');
  try {
    const fc = await getJson(`/api/clusters?${q.toString()}`, { signal: ctrl.signal });
    if (ctrl !== loadCtrl) return;
    render(fc);
    clearError('clusters');
  } catch (e) {
    if (ctrl !== loadCtrl || isAbort(e)) return;
    $('map-status').textContent = t('map.status.failed');
    showError('clusters', t('map.err.clusters', { error: e.message }), () => loadClusters());
  } finally {
    if (ctrl === loadCtrl) $('map-status').removeAttribute('aria-busy');
  }
}

/** Shows (and reloads) or hides the clusters. */
export function setClustersShown(show) {
  if (show === shown) return;
  shown = show;
  if (show) {
    layer.addTo(state.map);
    loadClusters();
  } else {
    if (loadCtrl) loadCtrl.abort();
    layer.remove();
  }
}

/** Adds the layer; `on` = {openBand(maId), openStack(items), families(counts)}. */
export function initClusters(map, on) {
  layer = L.layerGroup().addTo(map);
  handlers = on;
  if (on.families) onFamilies = on.families;
}
