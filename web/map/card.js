// The band card (GET /api/bands/:ma_id, its path drawn on the map by path.js) and the list
// of the bands sharing one town. A side panel on wide screens, a bottom sheet on phones
// (map.css).
import { getJson } from '/lib/http.js';
import { $, h, text, safeUrl, num } from '/lib/dom.js';
import { state, updateUrl } from './state.js';
import { initPath, clearPath, drawPath, fitPath, stepText } from './path.js';
import { genreLabel, statusLabel, stepLabel, yearsActiveLabel } from './words.js';
import { countryLabel } from './countries.js';
import { t, tn, compare, withLang } from './i18n.js';

const card = () => $('card');
let cardCtrl = null;
// What had the focus when the card opened (a marker, a search box, a list button): it gets
// the focus back when the card closes (issue 29: Escape left the focus on <body>).
let opener = null;
// The legend folded by the card (issue 29: it covered the path); unfolded when it closes.
let legendFolded = false;
// The town list a band card was opened from: its card offers the way back.
let backTo = null;

/** Remembers what to give the focus back to: its element and how to find it again (the
 *  markers are redrawn when the map moves). */
function rememberOpener() {
  const el = document.activeElement;
  if (!el || el === document.body || card().contains(el)) return;
  opener = { el, maId: el.dataset?.maId ?? null, label: el.getAttribute('aria-label') };
}

function restoreFocus() {
  const o = opener;
  opener = null;
  if (!o) return;
  let target = o.el?.isConnected ? o.el : null;
  if (!target && o.maId) target = document.querySelector(`.bm-marker[data-ma-id="${CSS.escape(o.maId)}"]`);
  if (!target && o.label) target = [...document.querySelectorAll('.bm-marker[aria-label]')].find((m) => m.getAttribute('aria-label') === o.label) ?? null;
  (target ?? state.map.getContainer()).focus();
}

function foldLegend() {
  const legend = $('legend');
  if (legend?.open) {
    legend.open = false;
    legendFolded = true;
  }
}

export function closeCard() {
  if (cardCtrl) cardCtrl.abort();
  card().hidden = true;
  card().replaceChildren();
  clearPath();
  state.openBand = null;
  backTo = null;
  updateUrl();
  state.map.invalidateSize();
  if (legendFolded && $('legend')) $('legend').open = true;
  legendFolded = false;
  restoreFocus();
}

function cardHeader(title) {
  return h('div', { class: 'card-head' },
    h('h2', { id: 'card-title' }, title),
    h('button', { type: 'button', class: 'close', 'aria-label': t('map.card.close'), onclick: closeCard }, '×'));
}

function showCardShell() {
  const wasHidden = card().hidden;
  rememberOpener();
  foldLegend();
  card().hidden = false;
  if (wasHidden) state.map.invalidateSize();
}

/** How much of the map's bottom the card covers (the bottom sheet of phones), in px. */
function coveredBottom() {
  const c = card().getBoundingClientRect();
  const m = state.map.getContainer().getBoundingClientRect();
  const overlaps = c.left < m.right && c.right > m.left && c.top < m.bottom && c.bottom > m.top;
  return overlaps && c.width >= m.width * 0.9 ? Math.max(0, m.bottom - c.top) : 0;
}

/** The bands of one town (points sharing coordinates, CONTRACT §11's zoom-17 rule): one
 *  line per band (its steps there joined), by name; choosing one opens its card. */
export function showStack(items) {
  if (cardCtrl) cardCtrl.abort();
  clearPath();
  backTo = null;
  const bands = new Map();
  for (const p of items) {
    if (!bands.has(p.ma_id)) bands.set(p.ma_id, { ...p, labels: [] });
    if (p.step_label) bands.get(p.ma_id).labels.push(p.step_label);
  }
  const list = [...bands.values()].sort((a, b) => compare(text(a.name), text(b.name)));
  showCardShell();
  card().replaceChildren(
    cardHeader(tn('map.town.bands', list.length, { place: text(items[0].location_raw) })),
    h('ul', { class: 'band-list', 'aria-label': t('map.town.list', { place: text(items[0].location_raw) }) }, list.map((p) => h('li', null,
      h('button', { type: 'button', onclick: () => openCard(p.ma_id, { back: { items, count: list.length, place: text(items[0].location_raw) } }), 'data-ma-id': p.ma_id },
        h('span', { class: 'name' }, text(p.name)),
        h('span', { class: 'muted' }, ` · ${text(p.genre)} · ${text(p.formed_year)}${p.labels.length ? ` · ${p.labels.map(stepLabel).join(', ')}` : ''}`))))),
  );
  card().focus();
}

/** A list of bands under a title (the bands of a flow, flows.js): choosing one opens its
 *  card. `note`: a line under the title, or null. */
export function showBandList(title, bands, note = null) {
  if (cardCtrl) cardCtrl.abort();
  clearPath();
  backTo = null;
  showCardShell();
  card().replaceChildren(...[
    cardHeader(title),
    note ? h('p', { class: 'muted' }, note) : null,
    h('ul', { class: 'band-list', id: 'flow-bands', 'aria-label': title }, bands.map((b) => h('li', null,
      h('button', { type: 'button', onclick: () => openCard(b.ma_id), 'data-ma-id': b.ma_id },
        h('span', { class: 'name' }, text(b.name)),
        h('span', { class: 'muted' }, ` · ${text(b.genre)} · ${text(b.formed_year)}`))))),
  ].filter(Boolean));
  card().focus();
}

/** Any content under a title in the card panel (the list view, band-table.js); `focus`:
 *  move the focus to the panel (not when it is only refreshed). */
export function showPanel(title, children, { focus = true } = {}) {
  if (cardCtrl) cardCtrl.abort();
  clearPath();
  backTo = null;
  if (focus) showCardShell();
  card().replaceChildren(cardHeader(title), ...children.filter(Boolean));
  if (focus) card().focus();
}

function facts(b) {
  const row = (label, value) => [h('dt', null, label), h('dd', null, text(value))];
  return h('dl', null,
    row(t('map.card.genre'), genreLabel(b.genre)), row(t('map.card.country'), countryLabel(b.country)), row(t('map.card.status'), statusLabel(b.status)),
    row(t('map.card.formed'), b.formed_year), row(t('map.card.years_active'), yearsActiveLabel(b.years_active)),
    row(t('map.card.themes'), b.themes), row(t('map.card.label'), b.label));
}

function stepItem(s) {
  const placed = Number.isFinite(num(s?.lat)) && Number.isFinite(num(s?.lon));
  return h('li', { class: placed ? 'placed' : 'unplaced', 'data-placed': String(placed) },
    // Issue 30: a region alone is no town to place; say so rather than "not found".
    stepText(s), placed ? null : h('span', { class: 'unplaced-note' }, s?.region_only === true ? t('map.card.region_only') : t('map.card.unplaced')));
}

function stepsSection(steps) {
  if (!steps.length) return [h('h3', null, t('map.card.path')), h('p', { class: 'muted' }, t('map.card.no_place'))];
  const placed = steps.filter((s) => Number.isFinite(num(s?.lat)) && Number.isFinite(num(s?.lon))).length;
  return [
    h('h3', null, tn('map.card.path_steps', steps.length)),
    h('ol', { class: 'steps' }, steps.map(stepItem)),
    placed === 0 ? h('p', { class: 'muted', id: 'card-unplaced' }, t('map.card.none_placed')) : null,
  ];
}

/** "← Les 5 groupes à Bergen": back to the town list the card was opened from. */
function backButton() {
  if (!backTo) return null;
  const { items, count, place } = backTo;
  return h('button', { type: 'button', class: 'card-back', id: 'card-back', onclick: () => showStack(items) }, tn('map.card.back', count, { place }));
}

/** The band's page on this site (its steps, each placed one linking to its town page) and
 *  its upstream page. (No town link here: a step's point may be a country's centre, which
 *  has no town page, and the card does not know which.) */
function pageLinks(b, url) {
  const links = [
    /^\d{1,18}$/.test(String(b.ma_id ?? '')) ? h('a', { href: withLang(`/band/${b.ma_id}`), id: 'card-band-page' }, t('map.card.band_page')) : null,
    url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'upstream' }, t('map.card.upstream')) : null,
  ].filter(Boolean);
  return links.length ? h('p', { class: 'card-links' }, ...links) : null;
}

function renderCard(b, fit, minZoom, frame) {
  const url = safeUrl(b.url);
  // The server sends the steps in path order (a manual override, step_order -1, keeps its
  // step's place): never re-sort them here.
  const steps = Array.isArray(b.steps) ? b.steps : [];
  const name = text(b.name);
  // Absent parts are left out (replaceChildren writes a null as the text "null").
  card().replaceChildren(...[
    backButton(),
    cardHeader(url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', title: t('map.card.upstream_title') }, name) : name),
    facts(b),
    pageLinks(b, url),
    ...stepsSection(steps),
  ].filter(Boolean));
  const drawn = drawPath(steps);
  if (fit) fitPath(state.map, drawn, coveredBottom(), { minZoom, frame });
}

/** Opens the card of a band. `fit`: bring its whole path into view (not when the view is
 *  the one a shared link asked for); `minZoom`: a single place is shown at least at this
 *  zoom (the search); `frame`: fit the path even when it is in view (the search);
 *  `back`: the town list it was chosen from ({items, count, place}). */
export async function openCard(maId, { fit = true, minZoom = null, frame = false, back = null } = {}) {
  if (maId === null || maId === undefined) return;
  if (cardCtrl) cardCtrl.abort();
  backTo = back;
  const ctrl = new AbortController();
  cardCtrl = ctrl;
  state.openBand = String(maId);
  updateUrl();
  showCardShell();
  // A malformed `band=` in a link: said in words, no request (issue 29: the server's parse
  // error was shown raw).
  if (!/^\d{1,18}$/.test(String(maId))) {
    clearPath();
    card().replaceChildren(cardHeader(t('map.card.bad_link')),
      h('p', { class: 'error', role: 'alert', id: 'card-bad-link' }, t('map.card.bad_link_text', { id: String(maId).slice(0, 40) })));
    card().focus();
    return;
  }
  card().replaceChildren(...[backButton(), cardHeader(t('map.loading'))].filter(Boolean));
  try {
    const b = await getJson(`/api/bands/${encodeURIComponent(maId)}`, { signal: ctrl.signal });
    if (ctrl !== cardCtrl) return;
    renderCard(b || {}, fit, minZoom, frame);
  } catch (e) {
    if (ctrl !== cardCtrl) return;
    clearPath();
    card().replaceChildren(...[backButton(), cardHeader(t('map.card.unavailable')),
      h('p', { class: 'error', role: 'alert' }, e.status === 404 ? t('map.card.unknown') : t('map.card.failed', { error: e.message }))].filter(Boolean));
  }
  card().focus();
}

export function initCard(map) {
  initPath(map);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !card().hidden && !$('search-form').contains(document.activeElement)) closeCard();
  });
}
