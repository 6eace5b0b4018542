// Band search with suggestions as you type: an ARIA combobox (focus stays in the input,
// aria-activedescendant marks the highlighted option). ↑/↓ move, Enter chooses, Escape
// closes. Choosing flies to the band and opens its card.
import { getJson, isAbort } from '/lib/http.js';
import { $, h, text, debounce } from '/lib/dom.js';
import { countryLabel } from './countries.js';
import { t } from './i18n.js';

const DEBOUNCE_MS = 200;
const MIN_CHARS = 2;

let items = [];
let active = -1;
let ctrl = null;
let onChoose = null;

const input = () => $('search-input');
const list = () => $('search-results');

function close() {
  list().hidden = true;
  list().replaceChildren();
  items = [];
  active = -1;
  input().setAttribute('aria-expanded', 'false');
  input().removeAttribute('aria-activedescendant');
}

function highlight(i) {
  const options = [...list().querySelectorAll('[role="option"]')];
  if (!options.length) return;
  active = (i + options.length) % options.length;
  options.forEach((o, k) => o.setAttribute('aria-selected', String(k === active)));
  input().setAttribute('aria-activedescendant', options[active].id);
  options[active].scrollIntoView({ block: 'nearest' });
}

function choose(item) {
  close();
  input().value = item.name ?? '';
  // The card frames the band's whole path once it is loaded (issue 29: flying to the first
  // step left the later ones off screen); a band in one place is shown at zoom 10 at least.
  // A band without a placed step does not move the map; its card says so.
  onChoose(item.ma_id, { fit: true, minZoom: 10, frame: true });
}

function option(item, i) {
  return h('li', {
    id: `search-option-${i}`, role: 'option', 'aria-selected': 'false', class: 'option',
    onmousedown: (e) => e.preventDefault(), // keep the focus in the input
    onclick: () => choose(item),
  }, h('span', { class: 'name' }, text(item.name)), h('span', { class: 'meta' }, `${text(countryLabel(item.country))} · ${text(item.genre)}`));
}

function show(children) {
  list().replaceChildren(...children);
  list().hidden = false;
  input().setAttribute('aria-expanded', 'true');
}

async function run() {
  const q = input().value.trim();
  if (ctrl) ctrl.abort();
  if (q.length < MIN_CHARS) return close();
  const mine = new AbortController();
  ctrl = mine;
  try {
    const data = await getJson(`/api/search?q=${encodeURIComponent(q)}`, { signal: mine.signal });
    if (mine !== ctrl) return;
    items = Array.isArray(data) ? data : Array.isArray(data?.items) ? data.items : [];
    active = -1;
    input().removeAttribute('aria-activedescendant');
    show(items.length ? items.map(option) : [h('li', { class: 'none', role: 'presentation' }, t('map.search.none'))]);
  } catch (e) {
    if (mine !== ctrl || isAbort(e)) return;
    items = [];
    show([h('li', { class: 'none', role: 'alert' }, t('map.search.failed', { error: e.message }))]);
  }
}

const runSoon = debounce(run, DEBOUNCE_MS);

async function onKey(e) {
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    if (list().hidden) {
      runSoon.cancel();
      await run();
    }
    highlight(active + (e.key === 'ArrowDown' ? 1 : -1));
  } else if (e.key === 'Enter') {
    e.preventDefault();
    if (active >= 0 && items[active]) return choose(items[active]);
    runSoon.cancel();
    await run();
    if (items.length === 1) choose(items[0]);
    else if (items.length) highlight(0);
  } else if (e.key === 'Escape') {
    if (!list().hidden) {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  }
}

/** `openBand(maId)` opens the chosen band's card. */
export function initSearch(openBand) {
  onChoose = openBand;
  input().addEventListener('input', runSoon);
  input().addEventListener('keydown', onKey);
  input().addEventListener('blur', () => setTimeout(close, 150));
  $('search-form').addEventListener('submit', (e) => e.preventDefault());
}
