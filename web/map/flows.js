// The flows layer ("Parcours"): where the bands moved. GET /api/flows for the view, the
// filters, the timeline's years and the legend's families; each flow drawn as a curved
// arrow from one cluster to another (width by its count, colour of its dominant genre
// family, the largest on top, at most LIMIT). Hovering names it ("Bergen → Oslo :
// 3 groupes"); a click (or its button in the panel) lists its bands, each opening its
// card. The town list of a place (zoom ≥ 17) gets "arrivés de / partis vers". State in the
// URL (`flows=1`). Every text from the data goes in as a text node (dom.js `h`).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { getJson, isAbort } from '/lib/http.js';
import { $, h } from '/lib/dom.js';
import { showError, clearError } from './errors.js';
import { state, updateUrl, FILTERS } from './state.js';
import { FAMILY_NAMES, familiesText } from './families.js';
import { bboxParam } from './clusters.js';
import { showBandList } from './card.js';
import { clusterSize } from './markers.js';
import { t, tn } from './i18n.js';

const PANE = 'flows';
const LIMIT = 50;
const LISTED = 8; // flows listed as buttons in the panel (keyboard access)
const TOWN_BOX_DEG = 0.0005; // ~50 m around a town for its arrivals and departures

let map = null;
let layer = null;
let renderer = null;
let ctrl = null;
let shown = null; // { query, answer } drawn now

/** The name of a place: its town, or its largest town "et alentours". */
export const placeName = (p) => (p?.label ? String(p.label) : p?.main ? t('map.flows.around', { place: p.main }) : t('map.flows.unknown_place'));
const groupes = (n) => tn('map.bands', Number(n));
/** "Bergen → Oslo : 3 groupes". */
export const flowText = (from, to, count) => t('map.flows.flow', { from: placeName(from), to: placeName(to), bands: groupes(count) });

function dominant(families) {
  let best = 'other';
  let n = 0;
  for (const f of FAMILY_NAMES) {
    const c = Number(families?.[f]) || 0;
    if (c > n) [best, n] = [f, c];
  }
  return best;
}

function viewQuery() {
  const q = new URLSearchParams();
  q.set('bbox', bboxParam(map.getBounds()));
  q.set('zoom', String(Math.max(0, Math.min(20, Math.round(map.getZoom())))));
  for (const k of FILTERS) if (state.filters[k]) q.set(k, state.filters[k]);
  if (state.families.length) q.set('family', state.families.join(','));
  return q;
}

/** The curve from `a` to `b` (latlngs): a quadratic Bézier bent to the left of its
 *  direction (so A → B and B → A do not overlap), ending `gap` px short of `b` (outside
 *  the cluster drawn there); and the arrow head at its end, sized by the line's width. */
function arrow(a, b, width, gap) {
  const z = map.getZoom();
  const pa = map.project(a, z);
  const pb = map.project(b, z);
  const d = pb.subtract(pa);
  const len = Math.max(1, Math.hypot(d.x, d.y));
  const normal = L.point(-d.y / len, d.x / len);
  const ctl = pa.add(pb).divideBy(2).add(normal.multiplyBy(len * 0.2));
  const at = (t) => pa.multiplyBy((1 - t) ** 2).add(ctl.multiplyBy(2 * t * (1 - t))).add(pb.multiplyBy(t * t));
  const pts = [];
  for (let i = 0; i <= 24; i++) {
    const p = at(i / 24);
    if (i > 0 && p.distanceTo(pb) < Math.min(gap, len / 3)) break;
    pts.push(p);
  }
  const tip = pts[pts.length - 1];
  const prev = pts[Math.max(0, pts.length - 3)];
  const dir = tip.subtract(prev);
  const dl = Math.max(1e-6, Math.hypot(dir.x, dir.y));
  const u = L.point(dir.x / dl, dir.y / dl);
  const side = L.point(-u.y, u.x);
  const head = 5 + width * 1.6;
  const base = tip.subtract(u.multiplyBy(head * 0.2));
  const arrowHead = [tip.add(u.multiplyBy(head * 0.8)), base.add(side.multiplyBy(head * 0.55)), base.subtract(u.multiplyBy(head * 0.25)), base.subtract(side.multiplyBy(head * 0.55))];
  const ll = (p) => map.unproject(p, z);
  return { line: pts.map(ll), head: arrowHead.map(ll) };
}

function tip(from, to, f) {
  const mix = familiesText(f.families);
  return h('span', null, h('strong', null, flowText(from, to, f.count)), mix ? h('br') : null, mix || null);
}

function drawFlow(f, places, max, rank) {
  const from = places[f.from];
  const to = places[f.to];
  if (!from || !to || !Number.isFinite(from.lat) || !Number.isFinite(to.lat)) return;
  const width = 1.5 + 10 * Math.sqrt((Number(f.count) || 0) / max);
  const fam = dominant(f.families);
  // The marker at the end: a cluster (its size), or a point (16 px).
  const points = Number(to.points) || 1;
  const gap = (points > 1 ? clusterSize(points) : 16) / 2 + 2;
  const { line, head } = arrow(L.latLng(from.lat, from.lon), L.latLng(to.lat, to.lon), width, gap);
  const common = { pane: PANE, renderer, interactive: true, bubblingMouseEvents: false };
  const group = L.featureGroup([
    L.polyline(line, { ...common, className: `bm-flow fam-${fam}`, weight: width, opacity: 0.85, lineCap: 'round' }),
    L.polygon(head, { ...common, className: `bm-flow-head fam-${fam}`, stroke: false, fillOpacity: 0.95 }),
  ]);
  group.bindTooltip(() => tip(from, to, f), { sticky: true, direction: 'top', className: 'bm-flow-tip' });
  group.on('click', () => openFlow(f));
  group.addTo(layer);
  group.eachLayer((l) => {
    const el = l.getElement?.();
    if (!el) return;
    Object.assign(el.dataset, { count: String(f.count), from: placeName(from), to: placeName(to), family: fam, rank: String(rank) });
  });
}

function panel() {
  const box = $('flows-legend');
  if (!box || !shown) return;
  const { answer } = shown;
  const flows = Array.isArray(answer.flows) ? answer.flows : [];
  const places = Array.isArray(answer.places) ? answer.places : [];
  const other = answer.other || { flows: 0, count: 0 };
  box.replaceChildren(...[
    h('p', { class: 'flows-title' }, t('map.flows.title')),
    h('p', { id: 'flows-summary', 'data-flows': flows.length, 'data-total': answer.total }, flows.length
      ? tn('map.flows.summary', flows.length, { bands: groupes(answer.total - (Number(other.count) || 0)) })
      : t('map.flows.none')),
    other.flows > 0 ? h('p', { class: 'muted', id: 'flows-other' }, tn('map.flows.other', other.flows, { bands: groupes(other.count) })) : null,
    flows.length ? h('ol', { class: 'flows-top', 'aria-label': t('map.flows.top') }, flows.slice(0, LISTED).map((f) => h('li', null,
      h('button', { type: 'button', class: 'flow-item', onclick: () => openFlow(f) }, flowText(places[f.from], places[f.to], f.count))))) : null,
    h('p', { class: 'muted flows-hint' }, t('map.flows.hint')),
  ].filter(Boolean));
}

function render(answer, query) {
  layer.clearLayers();
  shown = { answer, query };
  const flows = Array.isArray(answer?.flows) ? answer.flows : [];
  const places = Array.isArray(answer?.places) ? answer.places : [];
  const max = Math.max(1, ...flows.map((f) => Number(f.count) || 0));
  // Largest last, so on top.
  [...flows].reverse().forEach((f, i) => drawFlow(f, places, max, flows.length - i));
  panel();
}

/** Loads the flows of the view (when the layer is on); resolves once drawn (or failed). */
export async function loadFlows() {
  if (!state.flows || !map) return;
  if (ctrl) ctrl.abort();
  const mine = new AbortController();
  ctrl = mine;
  const query = viewQuery();
  const q = new URLSearchParams(query);
  q.set('limit', String(LIMIT));
  try {
    const answer = await getJson(`/api/flows?${q}`, { signal: mine.signal });
    if (mine !== ctrl) return;
    render(answer || {}, query);
    clearError('flows');
  } catch (e) {
    if (mine !== ctrl || isAbort(e)) return;
    showError('flows', t('map.err.flows', { error: e.message }), () => loadFlows());
  }
}

/** Lists the bands of a flow in the card panel. */
async function openFlow(f) {
  if (!shown) return;
  const places = shown.answer.places || [];
  const from = places[f.from];
  const to = places[f.to];
  if (!from || !to) return;
  const q = new URLSearchParams(shown.query);
  q.set('from', `${from.cell?.[0]},${from.cell?.[1]}`);
  q.set('to', `${to.cell?.[0]},${to.cell?.[1]}`);
  const title = flowText(from, to, f.count);
  try {
    const body = await getJson(`/api/flows/bands?${q}`);
    const items = Array.isArray(body?.items) ? body.items : [];
    const more = Number(body?.bands) > items.length ? t('map.flows.first', { n: items.length, total: body.bands }) : null;
    showBandList(title, items, more);
  } catch (e) {
    showError('flows', t('map.err.flow_bands', { error: e.message }), () => openFlow(f));
  }
}

/** Adds "arrivés de / partis vers" to the town list just shown for `latlng`. */
export async function showTownFlows(latlng) {
  const card = $('card');
  const shownNow = card.firstChild;
  const d = TOWN_BOX_DEG;
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const q = new URLSearchParams();
  q.set('bbox', [clamp(latlng.lng - d, -180, 180), clamp(latlng.lat - d, -90, 90), clamp(latlng.lng + d, -180, 180), clamp(latlng.lat + d, -90, 90)].map((v) => v.toFixed(5)).join(','));
  q.set('zoom', '16');
  q.set('limit', '200');
  for (const k of FILTERS) if (state.filters[k]) q.set(k, state.filters[k]);
  if (state.families.length) q.set('family', state.families.join(','));
  let answer;
  try {
    answer = await getJson(`/api/flows?${q}`);
  } catch {
    return; // the list stays useful without its flows
  }
  if (card.firstChild !== shownNow || card.hidden) return;
  const places = Array.isArray(answer?.places) ? answer.places : [];
  const flows = Array.isArray(answer?.flows) ? answer.flows : [];
  let here = -1;
  let best = Infinity;
  places.forEach((p, i) => {
    const dist = Math.hypot(p.lat - latlng.lat, p.lon - latlng.lng);
    if (dist < best) [here, best] = [i, dist];
  });
  const list = (pick, other, label, id) => {
    const rows = flows.filter((f) => pick(f) === here);
    return [h('h4', null, label), rows.length
      ? h('ul', { class: 'town-flow-list', id }, rows.map((f) => h('li', null, `${placeName(places[other(f)])} `, h('span', { class: 'muted' }, `(${groupes(f.count)})`))))
      : h('p', { class: 'muted', id }, t('map.flows.no_town_flow'))];
  };
  card.append(h('section', { class: 'town-flows', 'aria-label': t('map.flows.town_label') },
    h('h3', null, t('map.flows.toggle')),
    ...list((f) => f.to, (f) => f.from, t('map.flows.arrived_from'), 'town-arrivals'),
    ...list((f) => f.from, (f) => f.to, t('map.flows.left_for'), 'town-departures')));
}

function setShown(on) {
  state.flows = on;
  updateUrl();
  $('flows-toggle').setAttribute('aria-pressed', String(on));
  $('flows-legend').hidden = !on;
  if (on) {
    layer.addTo(map);
    return loadFlows();
  }
  if (ctrl) ctrl.abort();
  layer.remove();
  layer.clearLayers();
  shown = null;
  clearError('flows');
  return Promise.resolve();
}

const Toggle = L.Control.extend({
  options: { position: 'topright' },
  onAdd() {
    const box = h('div', { class: 'flows-control' },
      h('button', { type: 'button', id: 'flows-toggle', class: 'flows-toggle', 'aria-pressed': 'false', 'aria-controls': 'flows-legend', title: t('map.flows.toggle_title'), onclick: () => setShown(!state.flows) }, t('map.flows.toggle')),
      h('div', { id: 'flows-legend', class: 'flows-legend', role: 'region', 'aria-label': t('map.flows.title'), hidden: true }));
    L.DomEvent.disableClickPropagation(box);
    L.DomEvent.disableScrollPropagation(box);
    return box;
  },
});

export function initFlows(m) {
  map = m;
  const pane = map.createPane(PANE);
  pane.style.zIndex = '450'; // above the density (350) and the overlay pane, below markers (600)
  renderer = L.svg({ pane: PANE });
  layer = L.layerGroup();
  new Toggle().addTo(map);
  if (state.flows) setShown(true);
}

