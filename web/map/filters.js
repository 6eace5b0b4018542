// The filter panel (genre, country, status, formation years); behind a button on phones.
import { $ } from '/lib/dom.js';
import { FILTERS, state, setFilters, onFiltersChange } from './state.js';
import { statusLabel } from './words.js';
import { countryCode, countryLabel } from './countries.js';
import { t } from './i18n.js';

const form = () => $('filters-form');

function fillForm() {
  for (const k of FILTERS) form().elements[k].value = state.filters[k] || '';
  // The URL holds the code (country=NO); the field shows the country in the page's words.
  const cc = state.filters.country;
  if (cc && countryCode(cc) === cc) form().elements.country.value = countryLabel(cc);
}

function fail(message, field) {
  const err = $('filters-error');
  err.textContent = message;
  err.hidden = false;
  if (field) form().elements[field].focus();
}

function submit(e) {
  e.preventDefault();
  const next = {};
  for (const k of FILTERS) {
    const v = String(form().elements[k].value || '').trim();
    if (v) next[k] = v;
  }
  // "Norvège", "norway" or "no" → NO: the API compares codes and the catalogue's English
  // names; any other text is sent as typed.
  if (next.country) next.country = countryCode(next.country) ?? next.country;
  for (const k of ['year_min', 'year_max']) {
    if (next[k] !== undefined && !/^\d{1,4}$/.test(next[k])) return fail(t('map.f.err_years'), k);
  }
  if (next.year_min && next.year_max && Number(next.year_min) > Number(next.year_max)) {
    return fail(t('map.f.err_order'));
  }
  $('filters-error').hidden = true;
  setFilters(next);
  // On a phone the panel is a drawer over the map: it closes to show the filtered map.
  if ($('filters-panel').classList.contains('open')) setOpen(false, true);
}

function setOpen(open, focusToggle = false) {
  $('filters-panel').classList.toggle('open', open);
  $('filters-toggle').setAttribute('aria-expanded', String(open));
  if (open) form().elements.genre.focus();
  else if (focusToggle) $('filters-toggle').focus();
}

function toggle() {
  setOpen(!$('filters-panel').classList.contains('open'));
}

/** The status select shows the statuses in the page's words (values stay the catalogue's). */
function statusWords() {
  for (const o of form().elements.status.options) if (o.value) o.textContent = statusLabel(o.value);
}

export function initFilters() {
  statusWords();
  fillForm();
  onFiltersChange(fillForm);
  form().addEventListener('submit', submit);
  $('filters-reset').addEventListener('click', () => {
    $('filters-error').hidden = true;
    setFilters({});
  });
  $('filters-toggle').addEventListener('click', toggle);
}
