// A band's steps on a small map: the public map's offline geography (Natural Earth
// outlines from /map/outline.js, no tiles), one numbered point per located step, joined
// in step order.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { addOutline } from '/map/outline.js';
import { h } from './dom.js';

/** Located steps, in order → [{lat, lon, order, label}]. */
export function locatedSteps(locations) {
  return (Array.isArray(locations) ? locations : [])
    .filter((l) => Number.isFinite(Number(l.lat)) && Number.isFinite(Number(l.lon)) && l.lat !== null && l.lon !== null)
    .map((l) => ({ lat: Number(l.lat), lon: Number(l.lon), order: Number(l.step_order), label: String(l.location_raw ?? '') }))
    .sort((a, b) => a.order - b.order);
}

/** The map element; the map is drawn once the element is in the page. Returns {el, destroy}. */
export function bandMap(locations) {
  const steps = locatedSteps(locations);
  if (!steps.length) return { el: h('p', { class: 'muted' }, 'Aucune étape localisée : rien à placer sur la carte.'), destroy: () => {} };
  const el = h('div', { class: 'band-map', id: 'band-map', role: 'img', 'aria-label': `Carte des ${steps.length} étape(s) localisée(s)`, 'data-steps': String(steps.length) });
  let map = null;
  const draw = () => {
    if (map || !el.isConnected) return;
    map = L.map(el, {
      zoomControl: true, attributionControl: false, scrollWheelZoom: false, minZoom: 2, maxZoom: 12,
      zoomAnimation: false, fadeAnimation: false, markerZoomAnimation: false,
    });
    const pts = steps.map((s) => [s.lat, s.lon]);
    if (pts.length > 1) L.polyline(pts, { color: '#2451b7', weight: 2, dashArray: '4 4', className: 'step-line' }).addTo(map);
    steps.forEach((s, i) => {
      L.circleMarker([s.lat, s.lon], { radius: 7, color: '#fff', weight: 2, fillColor: i === 0 ? '#b3261e' : '#2451b7', fillOpacity: 1, className: 'step-point' })
        // A node, never a string: Leaflet writes a string tooltip as HTML, and the label is
        // scraped or imported text (issue 31).
        .bindTooltip(h('span', null, `${i + 1}. ${s.label}`), { permanent: true, direction: 'right', className: 'step-tip' })
        .addTo(map);
    });
    if (pts.length === 1) map.setView(pts[0], 6);
    else map.fitBounds(L.latLngBounds(pts).pad(0.4), { maxZoom: 8 });
    // The outline loads after the view is set (its labels are placed for the current view).
    const drawn = map;
    addOutline(drawn).catch(() => {}); // the points still show without the outline
  };
  // Drawn when attached (the detail is built before it is put in the page).
  const obs = new MutationObserver(() => { if (el.isConnected) { obs.disconnect(); requestAnimationFrame(draw); } });
  obs.observe(document.body, { childList: true, subtree: true });
  // Not map.remove(): the shared outline module may still place its labels on this map once
  // its data or the fonts arrive, and a removed map has no panes. A detached map is inert.
  return { el, destroy: () => { obs.disconnect(); map = null; } };
}
