// The basemap tiles over the offline outline map (issue 28: a visitor offline, or a tile
// server that is down, costs one failed request, not one per tile and per move).
// One tile of the first view is asked for first; the tile layer is added only when it
// loads. When it fails, the page asks for no tile again and says "fond de carte hors
// ligne" once, quietly, in the attribution line (the outline map stays the look).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';

export const OFFLINE_TEXT = 'fond de carte hors ligne';

/** The URL of the tile under the map's centre, or null when the template has a
 *  placeholder other than {s}, {z}, {x}, {y}, {r} (then the layer is added directly). */
function probeUrl(map, url) {
  const z = map.getZoom();
  const p = map.project(map.getCenter(), z).divideBy(256).floor();
  try {
    return L.Util.template(url, { s: 'a', z, x: p.x, y: p.y, r: '' });
  } catch {
    return null;
  }
}

function offline(map) {
  map.getContainer().classList.add('tiles-offline');
  map.attributionControl?.addAttribution(`<span class="tiles-offline-note">${OFFLINE_TEXT}</span>`);
}

/** Adds the tile layer of `url` to `map` once one tile has loaded. */
export function addTiles(map, url) {
  const container = map.getContainer();
  container.classList.add('tiles-off');
  if (!url) return;
  const tiles = L.tileLayer(url, { maxZoom: 19, crossOrigin: true, className: 'bm-tiles' });
  tiles.on('tileload', () => container.classList.remove('tiles-off'));
  const src = probeUrl(map, url);
  if (!src) {
    tiles.addTo(map);
    return;
  }
  const probe = new Image();
  probe.crossOrigin = 'anonymous';
  probe.onload = () => tiles.addTo(map);
  probe.onerror = () => offline(map);
  probe.src = src;
}
