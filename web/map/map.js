// Band Map public page: wiring. Leaflet map with the offline outline map under optional
// tiles, server-side clusters, band card, filters, search; view and filters in the URL.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { $ } from './dom.js';
import { state, initialView, updateUrl, onFiltersChange, urlHasView } from './state.js';
import { addOutline } from './outline.js';
import { initClusters, loadClusters, setClustersShown } from './clusters.js';
import { initDensity, loadDensity } from './density.js';
import { initFlows, loadFlows, showTownFlows } from './flows.js';
import { initCard, openCard, showStack } from './card.js';
import { initFilters } from './filters.js';
import { initSearch } from './search.js';
import { addLegend, showFamilyCounts } from './legend.js';
import { initTimeline } from './timeline.js';
import { debounce } from './dom.js';

const MOVE_DEBOUNCE_MS = 250;
const ATTRIBUTION = '© <a href="https://www.openstreetmap.org/copyright">OpenStreetMap contributors</a> · '
  + 'Lieux : <a href="https://www.geonames.org/">GeoNames (CC BY 4.0)</a> · '
  + 'Contours : <a href="https://www.naturalearthdata.com/">Natural Earth</a>';

// The tile URL is the server operator's choice (the <meta> tag of the page), never the
// visitor's: a shared link must not be able to point the map's requests at another host.
function tileUrl() {
  const t = (document.querySelector('meta[name="bandmap-tiles"]')?.content ?? '').trim();
  if (!t || t === 'none') return null;
  return /^(https?:)?\/\//.test(t) || t.startsWith('/') ? t : null;
}

/** Tiles on top of the outline map; while none has loaded, the container says so
 *  (map.css keeps the outline map as the look, nothing looks broken). */
function addTiles(map) {
  const url = tileUrl();
  const container = map.getContainer();
  container.classList.add('tiles-off');
  if (!url) return;
  const tiles = L.tileLayer(url, { maxZoom: 19, crossOrigin: true, className: 'bm-tiles' });
  tiles.on('tileload', () => container.classList.remove('tiles-off'));
  tiles.addTo(map);
}

function createMap() {
  const view = initialView();
  const map = L.map('map', { minZoom: 2, maxZoom: 18, worldCopyJump: false, keyboard: true, zoomControl: true })
    .setView(view.center, view.zoom);
  map.attributionControl.addAttribution(ATTRIBUTION);
  return map;
}

function start() {
  $('boot-fallback')?.remove();
  const map = createMap();
  state.map = map;
  addTiles(map);
  addOutline(map);
  const openStack = (items, latlng) => {
    showStack(items);
    if (latlng) showTownFlows(latlng);
  };
  initClusters(map, { openBand: openCard, openStack, families: showFamilyCounts });
  initDensity(map, setClustersShown);
  initFlows(map);
  initCard(map);
  addLegend(map);
  initFilters();
  initSearch(openCard);
  initTimeline();
  const reload = debounce(() => Promise.all([loadClusters(), loadFlows()]), MOVE_DEBOUNCE_MS);
  map.on('moveend', () => {
    updateUrl();
    reload();
  });
  onFiltersChange(() => Promise.all([loadClusters(), loadDensity(), loadFlows()]));
  updateUrl();
  loadClusters();
  // A shared link reopens the card at the link's view; a bare ?band= frames the path.
  if (state.openBand) openCard(state.openBand, { fit: !urlHasView });
}

start();
