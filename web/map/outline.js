// Offline geography: Natural Earth country outlines (world-atlas, public domain) drawn
// under the tiles, so the map is readable when the tile server is unreachable, and
// country names at low zoom. Panes: outline (z 150) and country labels (z 160) below
// Leaflet's tile pane (z 200): tiles that load cover both.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { feature, mesh } from '/vendor/topojson-client/index.js';
import polylabel from '/vendor/polylabel/polylabel.js';
import { getJson } from '/lib/http.js';
import { h } from '/lib/dom.js';
import { showError, clearError } from './errors.js';
import { t } from './i18n.js';
import { countryLabel } from './countries.js';

const DATA_URL = '/vendor/world-atlas/countries-110m.json';

let shapesReady = null;
const shapes = new Promise((resolve) => {
  shapesReady = resolve;
});

/** The country shapes (GeoJSON, antimeridian unwrapped, no Antarctica) once loaded; the
 *  density layer colours them. Never resolves if the outline data failed (said in the banner). */
export const countryShapes = () => shapes;
const LABEL_MAX_ZOOM = 6;
const LABEL_HEIGHT = 16;
const LABEL_FONT_PX = 11;

function pane(map, name, zIndex) {
  const p = map.createPane(name);
  p.style.zIndex = String(zIndex);
  p.style.pointerEvents = 'none';
  return p;
}

/** Planar area of a ring (lon/lat): enough to pick a country's main polygon. */
function ringArea(ring) {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[j][0] + ring[i][0]) * (ring[j][1] - ring[i][1]);
  return Math.abs(a / 2);
}

/** The largest polygon of a country and its bounds (cheap: no anchor yet). */
function mainPolygon(geometry) {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  let best = null;
  let bestArea = -1;
  for (const poly of polygons) {
    const a = ringArea(poly[0]);
    if (a > bestArea) {
      bestArea = a;
      best = poly;
    }
  }
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of best[0]) {
    if (x < w) w = x;
    if (x > e) e = x;
    if (y < s) s = y;
    if (y > n) n = y;
  }
  return { polygon: best, bounds: L.latLngBounds([s, w], [n, e]), area: bestArea };
}

/** A label's anchor and marker, made the first time the label is shown: the pole of
 *  inaccessibility of its largest polygon (polylabel is the costly part of the labels, and
 *  most countries are never labelled in a session). */
function anchored(l) {
  if (!l.marker) {
    const [lon, lat] = polylabel(l.polygon, 0.2);
    l.latlng = L.latLng(lat, lon);
    l.marker = L.marker(l.latlng, {
      pane: 'countryLabels',
      interactive: false,
      keyboard: false,
      icon: L.divIcon({ className: 'bm-country', html: h('span', null, l.name), iconSize: null }),
    });
  }
  return l;
}

function countryLabels(countries) {
  return countries.features
    .filter((f) => f.geometry && f.properties?.name)
    .map((f) => ({ name: countryLabel(f.properties.name), width: 0, latlng: null, marker: null, ...mainPolygon(f.geometry) }))
    .sort((a, b) => b.area - a.area);
}

/** Width on screen of a label (the font of .bm-country in map.css: Cinzel 700 11px,
 *  upper case, letter-spacing .12em), with a margin. */
function textWidth() {
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `700 ${LABEL_FONT_PX}px Cinzel, "Times New Roman", serif`;
  return (name) => ctx.measureText(name.toUpperCase()).width + name.length * LABEL_FONT_PX * 0.12 + 10;
}

/** Greedy placement: biggest countries first; a label is shown when its country is wide
 *  enough on screen for it and it overlaps no label already placed. Widths are measured
 *  once per font (`remeasure` after the display font has loaded). */
function placeLabels(map, labels, layer, remeasure = false) {
  layer.clearLayers();
  if (map.getZoom() > LABEL_MAX_ZOOM) return;
  const view = map.getPixelBounds();
  const placed = [];
  let measure = null;
  for (const l of labels) {
    if (!l.width || remeasure) {
      measure ??= textWidth();
      l.width = measure(l.name);
    }
    const nw = map.project(l.bounds.getNorthWest());
    const se = map.project(l.bounds.getSouthEast());
    if (se.x - nw.x < l.width * 0.55) continue;
    if (!view.intersects(L.bounds(nw, se))) continue;
    const p = map.project(anchored(l).latlng);
    const box = L.bounds([p.x - l.width / 2, p.y - LABEL_HEIGHT / 2], [p.x + l.width / 2, p.y + LABEL_HEIGHT / 2]);
    if (!view.intersects(box)) continue;
    if (placed.some((b) => b.intersects(box))) continue;
    placed.push(box);
    l.marker.addTo(layer);
  }
}

/** Longitudes made continuous along a ring (a ring crossing the antimeridian, e.g.
 *  Russia's Chukotka or Fiji, would otherwise fill a band across the world). */
function unwrapRing(ring) {
  let prev = null;
  return ring.map(([lon, lat]) => {
    let x = lon;
    if (prev !== null) {
      while (x - prev > 180) x -= 360;
      while (x - prev < -180) x += 360;
    }
    prev = x;
    return [x, lat];
  });
}

function unwrapGeometry(g) {
  if (g.type === 'Polygon') return { ...g, coordinates: g.coordinates.map(unwrapRing) };
  if (g.type === 'MultiPolygon') return { ...g, coordinates: g.coordinates.map((p) => p.map(unwrapRing)) };
  return g;
}

/** Lines cut where they jump across the antimeridian. */
function splitAtAntimeridian(multiLine) {
  const lines = [];
  for (const line of multiLine.coordinates) {
    let current = [line[0]];
    for (let i = 1; i < line.length; i++) {
      if (Math.abs(line[i][0] - line[i - 1][0]) > 180) {
        lines.push(current);
        current = [];
      }
      current.push(line[i]);
    }
    lines.push(current);
  }
  return { type: 'MultiLineString', coordinates: lines.filter((l) => l.length > 1) };
}

/** Gives the browser a turn (input, paint) between slices of the outline's work, so the
 *  first view has no long task (issue 28: total blocking time). */
const yieldToBrowser = () => (globalThis.scheduler?.yield
  ? globalThis.scheduler.yield()
  : new Promise((resolve) => setTimeout(resolve, 0)));
/** Countries converted and drawn per slice. */
const SLICE = 20;

/** Draws land, then borders, then coasts, a slice at a time; resolves with the shapes. */
async function drawOutline(map, topo) {
  const common = { pane: 'outline', interactive: false };
  const land = L.geoJSON(null, { ...common, style: { className: 'bm-land', stroke: false, fill: true, fillColor: '#1c222b', fillOpacity: 1 } })
    .addTo(map);
  const geometries = topo.objects.countries.geometries;
  const features = [];
  for (let i = 0; i < geometries.length; i += SLICE) {
    const slice = feature(topo, { type: 'GeometryCollection', geometries: geometries.slice(i, i + SLICE) }).features
      // Antarctica is far off this map and its ring circles the pole.
      .filter((f) => f.geometry && f.properties?.name !== 'Antarctica')
      .map((f) => ({ ...f, geometry: unwrapGeometry(f.geometry) }));
    land.addData({ type: 'FeatureCollection', features: slice });
    features.push(...slice);
    await yieldToBrowser();
  }
  L.geoJSON(splitAtAntimeridian(mesh(topo, topo.objects.countries, (a, b) => a !== b)),
    { ...common, style: { className: 'bm-border', color: '#4a5568', weight: 0.8, opacity: 0.9, fill: false } }).addTo(map);
  await yieldToBrowser();
  L.geoJSON(splitAtAntimeridian(mesh(topo, topo.objects.countries, (a, b) => a === b)),
    { ...common, style: { className: 'bm-coast', color: '#5f7287', weight: 1.1, opacity: 1, fill: false } }).addTo(map);
  return { type: 'FeatureCollection', features };
}

/** Draws the outline map and its labels; an error is shown, not thrown (the points still work). */
export async function addOutline(map) {
  pane(map, 'outline', 150);
  pane(map, 'countryLabels', 160);
  const layer = L.layerGroup().addTo(map);
  try {
    const topo = await getJson(DATA_URL);
    const countries = await drawOutline(map, topo);
    shapesReady(countries);
    await yieldToBrowser();
    const labels = countryLabels(countries);
    const place = () => placeLabels(map, labels, layer);
    map.on('zoomend moveend', place);
    place();
    // Label widths are measured in the display font.
    document.fonts?.ready.then(() => placeLabels(map, labels, layer, true));
    clearError('outline');
  } catch (e) {
    showError('outline', t('map.err.outline', { error: e.message }));
  }
}
