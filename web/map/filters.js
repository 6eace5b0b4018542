// The filter panel (genre, country, status, formation years); behind a button on phones.
import { $ } from './dom.js';
import { FILTERS, state, setFilters, onFiltersChange } from './state.js';

const form = () => $('filters-form');

function fillForm() {
  for (const k of FILTERS) form().elements[k].value = state.filters[k] || '';
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
  for (const k of ['year_min', 'year_max']) {
    if (next[k] !== undefined && !/^\d{1,4}$/.test(next[k])) return fail('Les années doivent être des nombres entiers.', k);
  }
  if (next.year_min && next.year_max && Number(next.year_min) > Number(next.year_max)) {
    return fail('« Formé après » doit être inférieur ou égal à « Formé avant ».');
  }
  $('filters-error').hidden = true;
  setFilters(next);
}

function toggle() {
  const panel = $('filters-panel');
  const button = $('filters-toggle');
  const open = !panel.classList.contains('open');
  panel.classList.toggle('open', open);
  button.setAttribute('aria-expanded', String(open));
  if (open) form().elements.genre.focus();
}

export function initFilters() {
  fillForm();
  onFiltersChange(fillForm);
  form().addEventListener('submit', submit);
  $('filters-reset').addEventListener('click', () => {
    $('filters-error').hidden = true;
    setFilters({});
  });
  $('filters-toggle').addEventListener('click', toggle);
}
