// The open band's path on the map: its located steps joined in order by a line, each
// step a numbered marker (the number of its line in the card) with its label beside it.
// Drawn in a pane above the cluster markers (markerPane 600 < 640 < tooltipPane 650), so
// the start of a path is never hidden under another marker; nothing in it takes clicks.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { h, num, text } from '/lib/dom.js';
import { stepLabel } from './words.js';

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
export const stepText = (s) => `${text(s.location_raw)}${s.step_label ? ` (${stepLabel(s.step_label)})` : ''}`;

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

/** The map's edges covered by what lies over it (issue 28: at rest nothing does; a layer's
 *  open panel, the legend opened on a phone, an error) and by the card's bottom sheet, in
 *  px: what a path must stay clear of. */
function coveredEdges(map, coverBottom) {
  const box = map.getContainer().getBoundingClientRect();
  const edges = { top: 0, bottom: coverBottom, left: 0, right: 0 };
  const covers = document.querySelectorAll('#map-panels > *, #legend[open] .legend-body, .overlay-top > *, #timeline');
  for (const el of covers) {
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) continue;
    if (r.left >= box.right || r.right <= box.left || r.top >= box.bottom || r.bottom <= box.top) continue;
    // Over the map: the side it hugs is covered that far (a wide one: the top or bottom).
    const wide = r.width > box.width / 2;
    if (!wide && box.right - r.right <= box.width / 4) edges.right = Math.max(edges.right, box.right - r.left);
    else if (!wide && r.left - box.left <= box.width / 4) edges.left = Math.max(edges.left, r.right - box.left);
    else if (r.top - box.top < box.bottom - r.bottom) edges.top = Math.max(edges.top, r.bottom - box.top);
    else edges.bottom = Math.max(edges.bottom, box.bottom - r.top);
  }
  return edges;
}

/** Brings the whole path into view (unless it already is), clear of the map's overlays
 *  (controls and legend, status line, timeline) and of the card when it covers the map
 *  (bottom sheet on phones). `minZoom`: a single place is shown at least at this zoom (the
 *  search's 10); `frame`: fit the path even when it is already in view (the search: the
 *  visitor asked for this band, its path is shown as large as it fits). */
export function fitPath(map, latlngs, coverBottom = 0, { minZoom = null, frame = false } = {}) {
  if (!latlngs.length) return;
  const bounds = L.latLngBounds(latlngs);
  const pad = 30;
  const edges = coveredEdges(map, coverBottom);
  const size = map.getSize();
  const topLeft = [edges.left + pad, edges.top + pad];
  const bottomRight = [edges.right + pad, edges.bottom + pad];
  // Room left between the overlays; when they leave too little (a phone), the path only
  // has to be on the map.
  const roomy = size.x - topLeft[0] - bottomRight[0] > 80 && size.y - topLeft[1] - bottomRight[1] > 80;
  const [tl, br] = roomy ? [topLeft, bottomRight] : [[pad, pad], [pad, pad + coverBottom]];
  const inner = L.latLngBounds(
    map.containerPointToLatLng([tl[0], size.y - br[1]]),
    map.containerPointToLatLng([size.x - br[0], tl[1]]),
  );
  const single = bounds.getNorthEast().equals(bounds.getSouthWest());
  const tooFar = minZoom !== null && single && map.getZoom() < minZoom;
  if (inner.contains(bounds) && !tooFar && !frame) return;
  const maxZoom = Math.max(map.getZoom(), minZoom ?? 9, 9);
  map.fitBounds(bounds, { paddingTopLeft: tl, paddingBottomRight: br, maxZoom: single ? Math.max(map.getZoom(), minZoom ?? map.getZoom()) : maxZoom, animate: false });
}
