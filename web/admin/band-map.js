// A band's steps on a small map: the public map's offline geography (Natural Earth
// outlines from /map/outline.js, no tiles), one numbered point per located place, joined
// in path order. Steps are numbered as the public card numbers them: their line in the
// path (the server's order: the parser's step, a hand placement keeping its step's place),
// never by `step_order` (-1 for a hand placement).
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { addOutline } from '/map/outline.js';
import { h } from '/lib/dom.js';

const finite = (v) => v !== null && v !== undefined && v !== '' && Number.isFinite(Number(v));

/** The step number of each location row: its line in the path (1-based). */
export function stepNumbers(locations) {
  const rows = Array.isArray(locations) ? locations : [];
  return new Map(rows.map((l, i) => [l, i + 1]));
}

/** Located steps, in path order → [{lat, lon, number, label}]. */
export function locatedSteps(locations) {
  const numbers = stepNumbers(locations);
  return (Array.isArray(locations) ? locations : [])
    .filter((l) => finite(l.lat) && finite(l.lon))
    .map((l) => ({ lat: Number(l.lat), lon: Number(l.lon), number: numbers.get(l), label: String(l.location_raw ?? '') }));
}

/** Steps at one position share a point ("1,3"), as on the public card. */
function groups(steps) {
  const byPlace = new Map();
  for (const s of steps) {
    const key = `${s.lat.toFixed(5)},${s.lon.toFixed(5)}`;
    if (!byPlace.has(key)) byPlace.set(key, { lat: s.lat, lon: s.lon, numbers: [], labels: [] });
    const g = byPlace.get(key);
    g.numbers.push(s.number);
    if (!g.labels.includes(s.label)) g.labels.push(s.label);
  }
  return [...byPlace.values()];
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
      // No zoom buttons: the map is an image (role=img), and focusable buttons inside an
      // image are an accessibility fault (axe: nested-interactive).
      zoomControl: false, keyboard: false, attributionControl: false, scrollWheelZoom: false, minZoom: 2, maxZoom: 12,
      zoomAnimation: false, fadeAnimation: false, markerZoomAnimation: false,
    });
    const pts = steps.map((s) => [s.lat, s.lon]);
    if (pts.length > 1) L.polyline(pts, { color: '#2451b7', weight: 2, dashArray: '4 4', className: 'step-line' }).addTo(map);
    const places = groups(steps);
    // Labels alternate sides so that two near places do not print over each other.
    places.forEach((g, i) => {
      const start = g.numbers.includes(steps[0].number);
      L.circleMarker([g.lat, g.lon], { radius: 7, color: '#fff', weight: 2, fillColor: start ? '#b3261e' : '#2451b7', fillOpacity: 1, className: 'step-point', interactive: false })
        // A node, never a string: Leaflet writes a string tooltip as HTML, and the label is
        // scraped or imported text (issue 31).
        .bindTooltip(h('span', { 'data-steps': g.numbers.join(',') }, `${g.numbers.join(',')}. ${g.labels.join(' · ')}`),
          { permanent: true, direction: i % 2 ? 'left' : 'right', className: 'step-tip' })
        .addTo(map);
    });
    if (places.length === 1) map.setView(pts[0], 6);
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
