// Tiny DOM helpers. Every piece of data is inserted as a text node or an
// attribute value: this module never assigns innerHTML.

/**
 * h('button', {class: 'x', onclick: fn, type: 'button'}, 'text', childNode, [more])
 * - strings / numbers become text nodes (never parsed as HTML);
 * - null / undefined / false children are skipped; arrays are flattened;
 * - attributes starting with "on" and holding a function become listeners;
 * - `dataset`, `style` (object) and boolean properties are supported.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') {
        el.addEventListener(k.slice(2).toLowerCase(), v);
      } else if (k === 'dataset') {
        Object.assign(el.dataset, v);
      } else if (k === 'style' && typeof v === 'object') {
        Object.assign(el.style, v);
      } else if (k === 'value' || k === 'checked' || k === 'selected' || k === 'disabled' || k === 'open') {
        el[k] = v;
      } else if (v === true) {
        el.setAttribute(k, '');
      } else {
        el.setAttribute(k, String(v));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export const DASH = '—';

/** Numbers may be null (NaN from the server becomes null): show a dash. */
export function fmtNum(v, digits) {
  if (v === null || v === undefined || v === '') return DASH;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) return DASH;
  if (digits !== undefined) return n.toFixed(digits);
  // Years and small counts are not grouped (1990, not 1 990).
  if (Number.isInteger(n)) return Math.abs(n) >= 10000 ? n.toLocaleString('fr-FR') : String(n);
  return String(Math.round(n * 1e6) / 1e6);
}

export function fmtCost(v) {
  if (v === null || v === undefined) return DASH;
  const n = Number(v);
  if (!Number.isFinite(n)) return DASH;
  return '$' + n.toFixed(n !== 0 && Math.abs(n) < 0.01 ? 5 : 2);
}

export function fmtText(v) {
  if (v === null || v === undefined || v === '') return DASH;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function fmtDate(v) {
  if (!v) return DASH;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  return d.toLocaleString('fr-FR', { dateStyle: 'short', timeStyle: 'medium' });
}

export function fmtAgo(v) {
  if (!v) return DASH;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  const s = Math.round((Date.now() - d.getTime()) / 1000);
  if (s < 0) return fmtDate(v);
  if (s < 60) return `il y a ${s} s`;
  if (s < 3600) return `il y a ${Math.round(s / 60)} min`;
  if (s < 86400) return `il y a ${Math.round(s / 3600)} h`;
  return `il y a ${Math.round(s / 86400)} j`;
}

/** Accept either a bare array or a list envelope {items: [...]}. */
export function asList(x) {
  if (Array.isArray(x)) return x;
  if (x && Array.isArray(x.items)) return x.items;
  return [];
}

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

/** Only http(s) links from data are turned into anchors. */
export function safeUrl(u) {
  if (typeof u !== 'string') return null;
  try {
    const url = new URL(u, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
