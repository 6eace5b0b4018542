// The legend: what the marks on the map mean, and the genre families, which double as a
// filter (click a family: only its bands; click more to add, click again to remove;
// « Toutes » clears). Each family shows its points in the current view. Beside the map,
// folded on phones.
import { $, h } from '/lib/dom.js';
import { FAMILIES } from './families.js';
import { state, setFamilies } from './state.js';
import { t, fmt } from './i18n.js';

function swatch(child) {
  return h('span', { class: 'swatch', 'aria-hidden': 'true' }, child);
}

function entries() {
  return [
    [swatch(h('span', { class: 'bm-marker bm-cluster bm-ring sw-ring size-s' })), t('map.legend.cluster')],
    [swatch(h('span', { class: 'bm-marker bm-point fam-other' })), t('map.legend.point')],
    [swatch(h('span', { class: 'bm-marker bm-point bm-stack' })), t('map.legend.stack')],
    [swatch(h('span', { class: 'sw-line' })), t('map.legend.path')],
    [swatch(h('span', { class: 'bm-step bm-step-start sw-step' }, '1')), t('map.legend.start')],
    [swatch(h('span', { class: 'sw-land' })), t('map.legend.land')],
  ];
}

const buttons = new Map(); // family → its button
let allButton = null;

/** Marks the kept families (state.families; none = all). */
function paint() {
  const kept = new Set(state.families);
  for (const [f, b] of buttons) {
    b.setAttribute('aria-pressed', String(kept.has(f)));
    b.classList.toggle('dimmed', kept.size > 0 && !kept.has(f));
  }
  allButton?.setAttribute('aria-pressed', String(kept.size === 0));
}

function toggle(family) {
  const kept = new Set(state.families);
  if (kept.has(family)) kept.delete(family);
  else kept.add(family);
  setFamilies([...kept]);
  paint();
}

function familyList() {
  const items = FAMILIES.map(([f, label]) => {
    const b = h('button', {
      type: 'button', class: 'fam-button', 'data-family': f, 'aria-pressed': 'false',
      title: t('map.legend.family_title', { family: label }), onclick: () => toggle(f),
    },
    h('span', { class: `fam-dot fam-${f}`, 'aria-hidden': 'true' }),
    h('span', { class: 'fam-label' }, label),
    h('span', { class: 'fam-count', 'data-count': '' }, ''));
    buttons.set(f, b);
    return h('li', null, b);
  });
  allButton = h('button', {
    type: 'button', class: 'fam-all', id: 'families-all', 'aria-pressed': 'true',
    onclick: () => { setFamilies([]); paint(); },
  }, t('map.legend.all_families'));
  return h('div', { class: 'families', role: 'group', 'aria-labelledby': 'families-title' },
    h('p', { id: 'families-title', class: 'fam-title' }, t('map.legend.families')),
    h('p', { class: 'fam-hint muted' }, t('map.legend.hint')),
    h('ul', { id: 'families' }, items),
    allButton);
}

/** Shows the view's points per family (from the clusters' breakdown). */
export function showFamilyCounts(counts) {
  for (const [f, b] of buttons) {
    const n = Number(counts?.[f]) || 0;
    const c = b.querySelector('.fam-count');
    c.dataset.count = String(n);
    c.textContent = fmt(n);
  }
}

/** The legend beside the map (issue 28: not over it, where its buttons hid markers): a
 *  column at the map's right on a wide screen, open at first; on a phone a button in the
 *  map's bar, folded, that opens over the map. `.legend-open` on the map's area gives it
 *  its column (map.css). */
export function addLegend() {
  const narrow = window.matchMedia('(max-width: 760px)').matches;
  const box = h('details', { class: 'legend', id: 'legend', open: !narrow },
    h('summary', null, t('map.legend.title')),
    h('div', { class: 'legend-body' },
      familyList(),
      h('ul', null, entries().map(([mark, label]) => h('li', null, mark, h('span', null, label))))));
  const area = $('map-area');
  const column = () => area?.classList.toggle('legend-open', box.open);
  box.addEventListener('toggle', column);
  column();
  const bar = document.querySelector('.map-bar');
  if (bar) bar.after(box);
  else area?.prepend(box);
  paint();
}
