// The console's building blocks: tables, key/value lists, badges, labelled fields,
// selects, preformatted JSON. Data goes in as text (through /lib/dom.js's `h`).
import { h, DASH } from '/lib/dom.js';
import { fmtNum, fmtText, fmtDate } from './format.js';

/**
 * Generic table. columns: [{label, render: row => string|Node, className}]
 * Returns a wrapper div (horizontal scroll on narrow screens).
 */
export function table(columns, rows, { caption, empty = 'Aucune donnée.', rowAttrs } = {}) {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  const thead = h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.className }, c.label))));
  const tbody = h('tbody');
  for (const row of rows) {
    const tr = h('tr', rowAttrs ? rowAttrs(row) : null);
    for (const c of columns) {
      const v = c.render(row);
      tr.append(h('td', { class: c.className, 'data-label': c.label }, v instanceof Node ? v : fmtText(v)));
    }
    tbody.append(tr);
    if (row.__after) tbody.append(row.__after);
  }
  return h('div', { class: 'table-wrap' }, h('table', null, caption ? h('caption', null, caption) : null, thead, tbody));
}

/** Key/value definition list from an object (values shown as text). */
export function kvList(obj, keys) {
  const dl = h('dl', { class: 'kv' });
  const entries = keys ? keys.map((k) => [k, obj?.[k]]) : Object.entries(obj || {});
  for (const [k, v] of entries) {
    const shown = typeof v === 'number' ? fmtNum(v) : /_at$/.test(k) && typeof v === 'string' ? fmtDate(v) : fmtText(v);
    dl.append(h('dt', null, k), h('dd', null, shown));
  }
  return dl;
}

export function badge(text, kind) {
  return h('span', { class: `badge ${kind ? 'badge-' + kind : ''}` }, text ?? DASH);
}

let idSeq = 0;
export function uid(prefix = 'f') {
  idSeq += 1;
  return `${prefix}-${idSeq}`;
}

/** Labelled form field. type: 'text' | 'number' | 'select' | 'checkbox' ... */
export function field(label, input) {
  if (!input.id) input.id = uid('in');
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input);
}

export function select(name, options, value, attrs = {}) {
  const s = h('select', { name, ...attrs });
  for (const o of options) {
    const [val, text] = Array.isArray(o) ? o : [o, o];
    s.append(h('option', { value: val, selected: String(val) === String(value ?? '') }, text));
  }
  return s;
}

/** Pretty JSON text (for prompts, responses, diffs) inside <pre>. */
export function pre(value) {
  let text;
  if (value === null || value === undefined) text = DASH;
  else if (typeof value === 'string') text = value;
  else text = JSON.stringify(value, null, 2);
  return h('pre', { class: 'pre' }, text);
}
