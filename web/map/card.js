// The band card (GET /api/bands/:ma_id, its path drawn on the map by path.js) and the list
// of the bands sharing one town. A side panel on wide screens, a bottom sheet on phones
// (map.css).
import { getJson } from './api.js';
import { $, h, text, safeUrl, num } from './dom.js';
import { state, updateUrl } from './state.js';
import { initPath, clearPath, drawPath, fitPath, stepText } from './path.js';

const card = () => $('card');
let cardCtrl = null;

export function closeCard() {
  if (cardCtrl) cardCtrl.abort();
  card().hidden = true;
  card().replaceChildren();
  clearPath();
  state.openBand = null;
  updateUrl();
  state.map.invalidateSize();
}

function cardHeader(title) {
  return h('div', { class: 'card-head' },
    h('h2', { id: 'card-title' }, title),
    h('button', { type: 'button', class: 'close', 'aria-label': 'Fermer la fiche', onclick: closeCard }, '×'));
}

function showCardShell() {
  const wasHidden = card().hidden;
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
  const bands = new Map();
  for (const p of items) {
    if (!bands.has(p.ma_id)) bands.set(p.ma_id, { ...p, labels: [] });
    if (p.step_label) bands.get(p.ma_id).labels.push(p.step_label);
  }
  const list = [...bands.values()].sort((a, b) => text(a.name).localeCompare(text(b.name), 'fr'));
  showCardShell();
  card().replaceChildren(
    cardHeader(`${list.length} groupes à ${text(items[0].location_raw)}`),
    h('ul', { class: 'band-list', 'aria-label': `Groupes à ${text(items[0].location_raw)}` }, list.map((p) => h('li', null,
      h('button', { type: 'button', onclick: () => openCard(p.ma_id), 'data-ma-id': p.ma_id },
        h('span', { class: 'name' }, text(p.name)),
        h('span', { class: 'muted' }, ` · ${text(p.genre)} · ${text(p.formed_year)}${p.labels.length ? ` · ${p.labels.join(', ')}` : ''}`))))),
  );
  card().focus();
}

/** A list of bands under a title (the bands of a flow, flows.js): choosing one opens its
 *  card. `note`: a line under the title, or null. */
export function showBandList(title, bands, note = null) {
  if (cardCtrl) cardCtrl.abort();
  clearPath();
  showCardShell();
  card().replaceChildren(
    cardHeader(title),
    note ? h('p', { class: 'muted' }, note) : null,
    h('ul', { class: 'band-list', id: 'flow-bands', 'aria-label': title }, bands.map((b) => h('li', null,
      h('button', { type: 'button', onclick: () => openCard(b.ma_id), 'data-ma-id': b.ma_id },
        h('span', { class: 'name' }, text(b.name)),
        h('span', { class: 'muted' }, ` · ${text(b.genre)} · ${text(b.formed_year)}`))))),
  );
  card().focus();
}

function facts(b) {
  const row = (label, value) => [h('dt', null, label), h('dd', null, text(value))];
  return h('dl', null,
    row('Genre', b.genre), row('Pays', b.country), row('Statut', b.status), row('Formé en', b.formed_year),
    row('Années d’activité', b.years_active), row('Thèmes', b.themes), row('Label', b.label));
}

function stepItem(s) {
  const placed = Number.isFinite(num(s?.lat)) && Number.isFinite(num(s?.lon));
  return h('li', { class: placed ? 'placed' : 'unplaced', 'data-placed': String(placed) },
    // Issue 30: a region alone is no town to place; say so rather than "not found".
    stepText(s), placed ? null : h('span', { class: 'unplaced-note' }, s?.region_only === true ? ' — région seulement' : ' — lieu non localisé'));
}

function stepsSection(steps) {
  if (!steps.length) return [h('h3', null, 'Parcours'), h('p', { class: 'muted' }, 'Aucun lieu connu pour ce groupe.')];
  const placed = steps.filter((s) => Number.isFinite(num(s?.lat)) && Number.isFinite(num(s?.lon))).length;
  return [
    h('h3', null, `Parcours (${steps.length} étape${steps.length > 1 ? 's' : ''})`),
    h('ol', { class: 'steps' }, steps.map(stepItem)),
    placed === 0 ? h('p', { class: 'muted', id: 'card-unplaced' }, 'Aucune étape n’a pu être placée sur la carte.') : null,
  ];
}

function renderCard(b, fit) {
  const url = safeUrl(b.url);
  // The server sends the steps in path order (a manual override, step_order -1, keeps its
  // step's place): never re-sort them here.
  const steps = Array.isArray(b.steps) ? b.steps : [];
  const name = text(b.name);
  card().replaceChildren(
    cardHeader(url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', title: 'Page du groupe sur l’encyclopédie' }, name) : name),
    facts(b),
    url ? h('p', null, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'upstream' }, 'Fiche sur l’encyclopédie ↗')) : null,
    ...stepsSection(steps).filter(Boolean),
  );
  const drawn = drawPath(steps);
  if (fit) fitPath(state.map, drawn, coveredBottom());
}

/** Opens the card of a band. `fit`: bring its path into view (not when the view is the
 *  one a shared link asked for, nor after the search has flown to the band). */
export async function openCard(maId, { fit = true } = {}) {
  if (maId === null || maId === undefined) return;
  if (cardCtrl) cardCtrl.abort();
  const ctrl = new AbortController();
  cardCtrl = ctrl;
  state.openBand = String(maId);
  updateUrl();
  showCardShell();
  card().replaceChildren(cardHeader('Chargement…'));
  try {
    const b = await getJson(`/api/bands/${encodeURIComponent(maId)}`, { signal: ctrl.signal });
    if (ctrl !== cardCtrl) return;
    renderCard(b || {}, fit);
  } catch (e) {
    if (ctrl !== cardCtrl) return;
    clearPath();
    card().replaceChildren(cardHeader('Fiche indisponible'),
      h('p', { class: 'error', role: 'alert' }, e.status === 404 ? 'Groupe inconnu.' : `La fiche n’a pas pu être chargée : ${e.message}.`));
  }
  card().focus();
}

export function initCard(map) {
  initPath(map);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !card().hidden && !$('search-form').contains(document.activeElement)) closeCard();
  });
}
