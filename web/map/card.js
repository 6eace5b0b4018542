// The band card (GET /api/bands/:ma_id, its path drawn on the map) and the list of bands
// sharing one place. A side panel on wide screens, a bottom sheet on phones (map.css).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { getJson } from './api.js';
import { $, h, text, safeUrl, num } from './dom.js';
import { state, updateUrl } from './state.js';

const card = () => $('card');
let pathLayer = null;
let cardCtrl = null;

export function closeCard() {
  if (cardCtrl) cardCtrl.abort();
  card().hidden = true;
  card().replaceChildren();
  pathLayer.clearLayers();
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

export function showStack(items) {
  if (cardCtrl) cardCtrl.abort();
  pathLayer.clearLayers();
  showCardShell();
  card().replaceChildren(
    cardHeader(`${items.length} groupes à ${text(items[0].location_raw)}`),
    h('ul', { class: 'band-list' }, items.map((p) => h('li', null,
      h('button', { type: 'button', onclick: () => openCard(p.ma_id) },
        h('span', { class: 'name' }, text(p.name)), h('span', { class: 'muted' }, ` · ${text(p.genre)} · ${text(p.formed_year)}`))))),
  );
  card().focus();
}

function drawPath(steps) {
  pathLayer.clearLayers();
  const pts = steps.filter((s) => Number.isFinite(num(s.lat)) && Number.isFinite(num(s.lon))).map((s) => L.latLng(num(s.lat), num(s.lon)));
  if (pts.length > 1) L.polyline(pts, { color: '#e0533d', weight: 3, opacity: 0.9, className: 'bm-path', interactive: false }).addTo(pathLayer);
  pts.forEach((p, i) => L.circleMarker(p, {
    radius: i === 0 ? 9 : 7, color: '#e0533d', weight: 3, fillColor: i === 0 ? '#e8e2d0' : '#5a1a16', fillOpacity: 1, interactive: false,
  }).addTo(pathLayer));
  if (pts.length > 1) {
    const bounds = L.latLngBounds(pts);
    if (!state.map.getBounds().contains(bounds)) state.map.fitBounds(bounds, { padding: [40, 40], maxZoom: state.map.getZoom() });
  }
}

function renderCard(b) {
  const url = safeUrl(b.url);
  // The server sends the steps in path order (a manual override, step_order -1, keeps its
  // step's place): never re-sort them here.
  const steps = Array.isArray(b.steps) ? b.steps : [];
  card().replaceChildren(
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
  drawPath(steps);
}

export async function openCard(maId) {
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
    renderCard(b || {});
  } catch (e) {
    if (ctrl !== cardCtrl) return;
    card().replaceChildren(cardHeader('Fiche indisponible'),
      h('p', { class: 'error', role: 'alert' }, e.status === 404 ? 'Groupe inconnu.' : `La fiche n’a pas pu être chargée : ${e.message}.`));
  }
  card().focus();
}

export function initCard(map) {
  pathLayer = L.layerGroup().addTo(map);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !card().hidden && !$('search-form').contains(document.activeElement)) closeCard();
  });
}
