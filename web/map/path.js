// The open band's path on the map: its located steps joined in order by a line, each
// step a numbered marker (the number of its line in the card) with its label beside it.
// Drawn in a pane above the cluster markers (markerPane 600 < 640 < tooltipPane 650), so
// the start of a path is never hidden under another marker; nothing in it takes clicks.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { h, num, text } from './dom.js';

const PANE = 'bandPath';
let layer = null;
let renderer = null;

export function initPath(map) {
  const pane = map.createPane(PANE);
  pane.style.zIndex = '640';
  pane.style.pointerEvents = 'none';
  renderer = L.svg({ pane: PANE });
  layer = L.layerGroup().addTo(map);
}

export function clearPath() {
  layer.clearLayers();
}

/** The words of a step: its place and, when known, its label (early, later…). */
export const stepText = (s) => `${text(s.location_raw)}${s.step_label ? ` (${s.step_label})` : ''}`;

/** Located steps grouped by position (two steps in one town share a marker), in order. */
function placedGroups(steps) {
  const groups = new Map();
  steps.forEach((s, i) => {
    const lat = num(s?.lat);
    const lon = num(s?.lon);
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) return;
    const key = `${lat.toFixed(6)},${lon.toFixed(6)}`;
    if (!groups.has(key)) groups.set(key, { latlng: L.latLng(lat, lon), numbers: [], texts: [] });
    const g = groups.get(key);
    g.numbers.push(i + 1);
    g.texts.push(stepText(s));
  });
  return [...groups.values()];
}

function stepMarker(g, start) {
  const icon = L.divIcon({
    className: `bm-step${start ? ' bm-step-start' : ''}`,
    html: h('span', null, g.numbers.join(',')),
    iconSize: start ? [28, 28] : [22, 22],
  });
  const m = L.marker(g.latlng, { icon, pane: PANE, interactive: false, keyboard: false, zIndexOffset: start ? 1000 : 0 });
  m.bindTooltip(h('span', null, g.texts.join(' · ')), {
    permanent: true, direction: 'right', offset: [start ? 14 : 11, 0], className: 'bm-step-label', interactive: false,
  });
  return m;
}

/** Draws the path of `steps` (server order, unlocated ones skipped on the map); returns
 *  the positions drawn, in order. */
export function drawPath(steps) {
  layer.clearLayers();
  const line = [];
  steps.forEach((s) => {
    const lat = num(s?.lat);
    const lon = num(s?.lon);
    if (Number.isFinite(lat) && Number.isFinite(lon)) line.push(L.latLng(lat, lon));
  });
  if (line.length > 1) {
    L.polyline(line, { renderer, pane: PANE, color: '#e0533d', weight: 3, opacity: 0.95, className: 'bm-path', interactive: false }).addTo(layer);
  }
  const groups = placedGroups(steps);
  // The start last, so that it is on top of a later step drawn at the same spot.
  groups.slice(1).reverse().forEach((g) => stepMarker(g, false).addTo(layer));
  if (groups.length) stepMarker(groups[0], true).addTo(layer);
  return line;
}

/** Brings the whole path into view (unless it already is), leaving room for the card
 *  when it covers the map (bottom sheet on phones). */
export function fitPath(map, latlngs, coverBottom = 0) {
  if (!latlngs.length) return;
  const bounds = L.latLngBounds(latlngs);
  const pad = 40;
  const size = map.getSize();
  const inner = L.latLngBounds(
    map.containerPointToLatLng([pad, size.y - coverBottom - pad]),
    map.containerPointToLatLng([size.x - pad, pad]),
  );
  if (inner.contains(bounds)) return;
  const maxZoom = Math.max(map.getZoom(), 9);
  map.fitBounds(bounds, { paddingTopLeft: [pad, pad + 40], paddingBottomRight: [pad + 80, pad + coverBottom], maxZoom, animate: false });
}
