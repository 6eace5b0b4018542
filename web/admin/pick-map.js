// Pick a manual coordinate by clicking a small map (the public map's offline outline, no
// tiles). The typed inputs stay; a click fills them and moves the marker.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { addOutline } from '/map/outline.js';
import { h } from '/lib/dom.js';

const EUROPE = [[34, -12], [71, 42]];

/** → {el, draw(), set(lat, lon), showPlaces(places)}: call draw() once the element is
 *  visible (e.g. on <details> toggle); set() shows a point chosen elsewhere (a gazetteer
 *  suggestion); showPlaces() draws the gazetteer's places, named, so that a zoomed-in map
 *  without tiles is not a blank field (issue 29). The wheel zooms. */
export function pickMap(id, start, onPick) {
  const el = h('div', { class: 'pick-map', id, role: 'application', 'aria-label': 'Carte : cliquez pour choisir les coordonnées' });
  let map = null;
  let marker = null;
  let places = [];
  let placesLayer = null;
  const place = (latlng) => {
    if (marker) marker.setLatLng(latlng);
    else marker = L.circleMarker(latlng, { radius: 7, color: '#fff', weight: 2, fillColor: '#b3261e', fillOpacity: 1, className: 'picked-point' }).addTo(map);
  };
  const draw = () => {
    if (map) { map.invalidateSize(); return; }
    map = L.map(el, {
      attributionControl: false, scrollWheelZoom: true, minZoom: 2, maxZoom: 14,
      zoomAnimation: false, fadeAnimation: false, markerZoomAnimation: false,
    });
    if (start) map.setView(start, 6);
    else map.fitBounds(EUROPE);
    if (start) place(start);
    // The zoom, for tests and the curious (data-zoom).
    map.on('zoomend', () => { el.dataset.zoom = String(map.getZoom()); });
    el.dataset.zoom = String(map.getZoom());
    map.on('click', (e) => {
      const lat = Math.round(e.latlng.lat * 1e5) / 1e5;
      const lon = Math.round(L.Util.wrapNum(e.latlng.lng, [-180, 180], true) * 1e5) / 1e5;
      place([lat, lon]);
      onPick(lat, lon);
    });
    addOutline(map).catch(() => {});
    drawPlaces();
  };
  const drawPlaces = () => {
    if (!map) return;
    if (placesLayer) placesLayer.remove();
    placesLayer = L.layerGroup(places.map((p) => L.circleMarker([p.lat, p.lon], { radius: 5, color: '#0b1220', weight: 1, fillColor: '#f4a261', fillOpacity: 1, className: 'gazetteer-place', interactive: false })
      // A node, never a string: the name is data (Leaflet writes strings as HTML).
      .bindTooltip(h('span', null, p.name), { permanent: true, direction: 'right', className: 'place-tip' }))).addTo(map);
  };
  const showPlaces = (list) => {
    places = (Array.isArray(list) ? list : []).filter((p) => Number.isFinite(p.lat) && Number.isFinite(p.lon));
    drawPlaces();
  };
  const set = (lat, lon) => {
    if (!map) draw();
    place([lat, lon]);
    map.setView([lat, lon], Math.max(map.getZoom(), 8));
  };
  return { el, draw, set, showPlaces };
}
