// The list view (issue 28): the bands of the current view as a table, in the card panel
// (a side panel on wide screens, the bottom sheet on phones), opened by the *Liste* button
// among the map's controls. For the view, the filters and the families it reads the points
// one by one (`/api/clusters` at zoom 17, the server's 5000 at most, as towns.js does),
// keeps one row per band (its places there joined), sorted by name; a band's name is a
// button opening its card. While the table is shown it follows the view.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { getJson, isAbort } from '/lib/http.js';
import { $, h, text } from '/lib/dom.js';
import { state, FILTERS } from './state.js';
import { showPanel } from './card.js';
import { stepLabel } from './words.js';
import { t, tn, compare } from './i18n.js';

/** Rows drawn at most (a table of thousands of rows helps nobody; zoom in instead). */
const MAX_ROWS = 300;

let map = null;
let bboxOf = null;
let onOpenBand = () => {};
let ctrl = null;

/** Points (GeoJSON features) → one row per band, by name. */
export function bandRows(features) {
  const bands = new Map();
  for (const f of features) {
    const p = f?.properties;
    if (!p || p.cluster || p.ma_id === undefined) continue;
    if (!bands.has(p.ma_id)) bands.set(p.ma_id, { ...p, places: [] });
    const place = `${text(p.location_raw)}${p.step_label ? ` (${stepLabel(p.step_label)})` : ''}`;
    const row = bands.get(p.ma_id);
    if (!row.places.includes(place)) row.places.push(place);
  }
  return [...bands.values()].sort((a, b) => compare(text(a.name), text(b.name)));
}

function table(rows) {
  const th = (key) => h('th', { scope: 'col' }, t(key));
  return h('table', { id: 'band-table', class: 'band-table' },
    h('caption', { class: 'sr-only' }, t('map.list.caption')),
    h('thead', null, h('tr', null, th('map.list.band'), th('map.list.genre'), th('map.list.place'), th('map.list.formed'))),
    h('tbody', null, rows.map((r) => h('tr', { 'data-ma-id': r.ma_id },
      h('th', { scope: 'row' }, h('button', { type: 'button', class: 'band-row', 'data-ma-id': r.ma_id, onclick: () => onOpenBand(r.ma_id) }, text(r.name))),
      h('td', null, text(r.genre)),
      h('td', null, r.places.join(' · ')),
      h('td', { class: 'num' }, text(r.formed_year))))));
}

/** Whether the card panel shows the table now. */
const shown = () => Boolean($('band-table-box')) && !$('card').hidden;

/** Loads the view's bands and shows them; `focus`: move the focus to the panel. */
export async function showBandTable({ focus = true } = {}) {
  if (ctrl) ctrl.abort();
  const mine = new AbortController();
  ctrl = mine;
  const q = new URLSearchParams();
  q.set('bbox', bboxOf(map.getBounds()));
  q.set('zoom', '17');
  for (const k of FILTERS) if (state.filters[k]) q.set(k, state.filters[k]);
  if (state.families.length) q.set('family', state.families.join(','));
  if (focus) showPanel(t('map.loading'), [h('div', { id: 'band-table-box' })]);
  try {
    const fc = await getJson(`/api/clusters?${q}`, { signal: mine.signal });
    if (mine !== ctrl || !shown()) return;
    const rows = bandRows(Array.isArray(fc?.features) ? fc.features : []);
    const notes = [
      fc?.truncated ? h('p', { class: 'muted', id: 'band-table-note' }, t('map.list.truncated')) : null,
      rows.length > MAX_ROWS ? h('p', { class: 'muted' }, t('map.list.cut', { n: MAX_ROWS })) : null,
    ];
    const body = rows.length ? table(rows.slice(0, MAX_ROWS)) : h('p', { class: 'muted' }, t('map.list.none'));
    showPanel(tn('map.list.title', rows.length), [h('div', { id: 'band-table-box', 'data-bands': String(rows.length) }, ...notes.filter(Boolean), body)], { focus: false });
  } catch (e) {
    if (mine !== ctrl || isAbort(e) || !shown()) return;
    showPanel(t('map.card.unavailable'), [h('div', { id: 'band-table-box' }, h('p', { class: 'error', role: 'alert' }, t('map.list.failed', { error: e.message })))], { focus: false });
  }
}

const Control = L.Control.extend({
  options: { position: 'topright' },
  onAdd() {
    const box = h('div', { class: 'list-control' },
      h('button', { type: 'button', id: 'list-open', class: 'list-open', 'aria-controls': 'card', title: t('map.list.toggle_title'), onclick: () => showBandTable() }, t('map.list.toggle')));
    L.DomEvent.disableClickPropagation(box);
    L.DomEvent.disableScrollPropagation(box);
    return box;
  },
});

/** `openBand(maId)` opens a band's card; `bbox(bounds)` is the clusters' bbox. */
export function initBandTable(m, { openBand, bbox }) {
  map = m;
  bboxOf = bbox;
  onOpenBand = openBand;
  new Control().addTo(map);
  map.on('moveend', () => { if (shown()) showBandTable({ focus: false }); });
}
