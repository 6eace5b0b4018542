// Formation-year timeline: a two-thumb range (1970 → this year) over the map and a play
// button that grows the scene year by year. It drives the year_min/year_max filters, so
// its state is in the URL; a thumb at its end of the range means "no bound" (bands formed
// before 1970, or without a known year, are then kept).
import { $, debounce } from '/lib/dom.js';
import { state, setFilters, onFiltersChange } from './state.js';
import { t } from './i18n.js';

export const FIRST_YEAR = 1970;
export const LAST_YEAR = new Date().getFullYear();
const STEP_MS = 450;
const APPLY_MS = 250;

let playing = false;

const lo = () => $('timeline-min');
const hi = () => $('timeline-max');

function clampYear(v, fallback) {
  const n = Number(v);
  return Number.isInteger(n) && v !== '' && v !== undefined ? Math.max(FIRST_YEAR, Math.min(LAST_YEAR, n)) : fallback;
}

/** The years shown, `null` for no bound. */
function label(a, b) {
  if (a === null && b === null) return t('map.timeline.all');
  if (a === null) return t('map.timeline.upto', { year: b });
  if (b === null) return t('map.timeline.since', { year: a });
  return a === b ? t('map.timeline.in', { year: a }) : t('map.timeline.range', { from: a, to: b });
}

function sliderBounds() {
  const a = Number(lo().value);
  const b = Number(hi().value);
  return [a === FIRST_YEAR ? null : a, b === LAST_YEAR ? null : b];
}

function showLabel() {
  $('timeline-text').textContent = label(...sliderBounds());
}

/** Sliders from the filters (URL, filter panel). */
function sync(filters) {
  lo().value = String(clampYear(filters.year_min, FIRST_YEAR));
  hi().value = String(clampYear(filters.year_max, LAST_YEAR));
  // The label tells the filter itself (the panel may ask for years beyond the slider).
  const year = (v) => (v === undefined ? null : Number(v));
  $('timeline-text').textContent = label(year(filters.year_min), year(filters.year_max));
}

/** Filters from the sliders; resolves when the map has redrawn. */
function apply() {
  const [a, b] = sliderBounds();
  return setFilters({
    ...state.filters,
    year_min: a === null ? undefined : String(a),
    year_max: b === null ? undefined : String(b),
  });
}
const applySoon = debounce(apply, APPLY_MS);

function onSlide(e) {
  stop();
  if (Number(lo().value) > Number(hi().value)) {
    if (e.target === lo()) hi().value = lo().value;
    else lo().value = hi().value;
  }
  showLabel();
  applySoon();
}

function setPlaying(on) {
  playing = on;
  const button = $('timeline-play');
  button.setAttribute('aria-pressed', String(on));
  button.setAttribute('aria-label', on ? t('map.timeline.stop') : t('map.timeline.play'));
  button.textContent = on ? '❚❚' : '▶';
}

function stop() {
  if (playing) setPlaying(false);
}

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

async function play() {
  if (playing) return stop();
  setPlaying(true);
  applySoon.cancel();
  let year = Number(hi().value) >= LAST_YEAR ? Math.max(FIRST_YEAR, Number(lo().value)) : Number(hi().value) + 1;
  while (playing && year <= LAST_YEAR) {
    hi().value = String(year);
    showLabel();
    await Promise.all([apply(), wait(STEP_MS)]);
    year += 1;
  }
  stop();
}

export function initTimeline() {
  for (const input of [lo(), hi()]) {
    input.min = String(FIRST_YEAR);
    input.max = String(LAST_YEAR);
    input.addEventListener('input', onSlide);
  }
  sync(state.filters);
  onFiltersChange(sync);
  $('timeline-play').addEventListener('click', play);
}
