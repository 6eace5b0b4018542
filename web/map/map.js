// Band Map public page: wiring. Leaflet map with the offline outline map under optional
// tiles, server-side clusters, band card, filters, search; view and filters in the URL.
import * as L from '/vendor/leaflet/leaflet-src.esm.js';
import { $ } from '/lib/dom.js';
import { state, initialView, updateUrl, onFiltersChange, urlHasView } from './state.js';
import { addOutline } from './outline.js';
import { initClusters, loadClusters, setClustersShown, bboxParam } from './clusters.js';
import { initTowns, loadTowns } from './towns.js';
import { initDensity, loadDensity } from './density.js';
import { initFlows, loadFlows, showTownFlows } from './flows.js';
import { initCard, openCard, showStack } from './card.js';
import { initFilters } from './filters.js';
import { initSearch } from './search.js';
import { addLegend, showFamilyCounts } from './legend.js';
import { initTimeline } from './timeline.js';
import { debounce } from '/lib/dom.js';
import { setFailurePhrases } from '/lib/http.js';
import { t } from './i18n.js';
import { initBandTable } from './band-table.js';
import { initLangSwitch } from './lang-switch.js';

// A request that got no answer is said in the page's language (web/lib/http.js).
setFailurePhrases({ timeout: t('map.err.timeout'), network: t('map.err.network') });

const MOVE_DEBOUNCE_MS = 250;
// OpenStreetMap is credited once one of its tiles is shown (issue 29: offline it was
// credited for nothing); places and outlines are always ours to credit.
const TILES_ATTRIBUTION = '© <a href="https://www.openstreetmap.org/copyright">OpenStreetMap contributors</a>';
const ATTRIBUTION = `${t('map.credit.places')} <a href="https://www.geonames.org/">GeoNames (CC BY 4.0)</a> · `
  + `${t('map.credit.outlines')} <a href="https://www.naturalearthdata.com/">Natural Earth</a>`;
// Asked before any tile: whether the tile server answers (crates/api/src/tile_probe.rs). An
// offline page then asks for no tile at all, so it logs no failed request (issue 28).
const TILES_STATUS_URL = '/map/tiles-status.json';
// Tiles failing this many times in a row with none ever loaded: the tile server is out of
// reach (offline); the layer is removed instead of asking again at every pan (20–30
// console errors per pan before).
const TILE_FAILURES_BEFORE_GIVING_UP = 12;

// The tile URL is the server operator's choice (the <meta> tag of the page), never the
// visitor's: a shared link must not be able to point the map's requests at another host.
function tileUrl() {
  const t = (document.querySelector('meta[name="bandmap-tiles"]')?.content ?? '').trim();
  if (!t || t === 'none') return null;
  return /^(https?:)?\/\//.test(t) || t.startsWith('/') ? t : null;
}

/** What the server knows of the tile server: reachable, unreachable, none or unknown (a
 *  static host, an error: the page then finds out from the tiles themselves). */
async function tilesStatus() {
  try {
    const res = await fetch(TILES_STATUS_URL, { headers: { Accept: 'application/json' } });
    const body = res.ok ? await res.json() : null;
    return ['reachable', 'unreachable', 'none'].includes(body?.tiles) ? body.tiles : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Offline: the map is the outline map; said once, quietly (a polite status line). */
function sayTilesOffline(container) {
  container.dataset.tiles = 'unreachable';
  const note = $('tiles-note');
  if (!note || note.textContent) return;
  note.textContent = t('map.tiles_offline');
  note.hidden = false;
}

/** Tiles on top of the outline map; while none has loaded, the container says so
 *  (map.css keeps the outline map as the look, nothing looks broken). */
async function addTiles(map) {
  const url = tileUrl();
  const container = map.getContainer();
  container.classList.add('tiles-off');
  if (!url) return;
  const status = await tilesStatus();
  if (status === 'none') return;
  if (status === 'unreachable') {
    sayTilesOffline(container);
    return;
  }
  const tiles = L.tileLayer(url, { maxZoom: 19, crossOrigin: true, className: 'bm-tiles' });
  let loaded = false;
  let failures = 0;
  tiles.on('tileload', () => {
    failures = 0;
    container.classList.remove('tiles-off');
    if (!loaded) map.attributionControl.addAttribution(TILES_ATTRIBUTION);
    loaded = true;
  });
  tiles.on('tileerror', () => {
    failures += 1;
    if (!loaded && failures === TILE_FAILURES_BEFORE_GIVING_UP) {
      sayTilesOffline(container);
      // Not from inside the layer's own event (and not tiles.off(): Leaflet unhooks the
      // layer from the map through the layer's own "remove" event).
      setTimeout(() => map.removeLayer(tiles), 0);
    }
  });
  tiles.addTo(map);
}

function createMap() {
  const view = initialView();
  const map = L.map('map', { minZoom: 2, maxZoom: 18, worldCopyJump: false, keyboard: true, zoomControl: true });
  map.attributionControl.addAttribution(ATTRIBUTION);
  // The bars first, then the view: the map has its final size when its view is set.
  moveControls(map);
  map.setView(view.center, view.zoom);
  // The map's box changes with the page around it (the legend's column, the card, the
  // status line taking a second row on a phone): Leaflet is told, so its view and markers
  // fit the new size, around the same centre — the exact one it had (invalidateSize alone
  // recomputes it from the pixels: a shared link's lat/lon would be rewritten).
  if (typeof ResizeObserver === 'function') {
    const box = map.getContainer();
    new ResizeObserver(() => {
      const size = map.getSize();
      if (box.clientWidth === size.x && box.clientHeight === size.y) return;
      const centre = map.getCenter();
      map.invalidateSize({ pan: false, debounceMoveend: true });
      map.setView(centre, map.getZoom(), { reset: true });
    }).observe(box);
  }
  return map;
}

/** Leaflet's control corners out of the map (issue 28): nothing floats over the markers, so
 *  none is partly hidden under a button (Lighthouse's target-size; a visitor's tap). The
 *  zoom buttons and the layers' buttons (controls added later go to the same corners) go
 *  to the bar above the map (`#map-tools`, `#map-layers`), the credits to the line under it;
 *  before the markers in the Tab order (issue 29: Densité was the 68th stop, behind every
 *  marker). */
function moveControls(map) {
  const box = map.getContainer();
  const tools = $('map-tools');
  const corner = (sel) => box.querySelector(`.leaflet-control-container ${sel}`);
  const left = corner('.leaflet-top.leaflet-left');
  const right = corner('.leaflet-top.leaflet-right');
  const credits = corner('.leaflet-bottom.leaflet-right');
  if (left) ($('map-zoom') ?? tools)?.prepend(left);
  if ($('map-layers') && right) $('map-layers').append(right);
  if ($('map-foot') && credits) $('map-foot').append(credits);
}

/** The layers' panels (density, flows, towns) in one column over the map's top right: the
 *  bar keeps only their buttons. */
function movePanels() {
  const panels = $('map-panels');
  if (!panels) return;
  for (const id of ['density-legend', 'flows-legend', 'towns-panel']) {
    const el = $(id);
    if (el) panels.append(el);
  }
}

function start() {
  $('boot-fallback')?.remove();
  // The legend's column first: the map starts at its final size.
  addLegend();
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
  initTowns(map, { openTown: openStack, bbox: bboxParam });
  initBandTable(map, { openBand: openCard, bbox: bboxParam });
  initCard(map);
  movePanels();
  initFilters();
  initSearch(openCard);
  initTimeline();
  initLangSwitch();
  const reload = debounce(() => Promise.all([loadClusters(), loadFlows(), loadTowns()]), MOVE_DEBOUNCE_MS);
  map.on('moveend', () => {
    updateUrl();
    reload();
  });
  onFiltersChange(() => Promise.all([loadClusters(), loadDensity(), loadFlows(), loadTowns()]));
  updateUrl();
  loadClusters();
  loadTowns();
  // A shared link reopens the card at the link's view; a bare ?band= frames the path.
  if (state.openBand) openCard(state.openBand, { fit: !urlHasView });
}

start();
