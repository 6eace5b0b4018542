// DOM helpers shared by the public map (web/map/) and the admin console (web/admin/).
// Every piece of data is inserted as a text node or an attribute value: this module
// never assigns innerHTML.

/** The dash shown for a missing value. */
export const DASH = '—';

/** The element of this id, or null. */
export const $ = (id) => document.getElementById(id);

/**
 * h('button', {class: 'x', onclick: fn, type: 'button'}, 'text', childNode, [more])
 * - strings / numbers become text nodes (never parsed as HTML);
 * - null / undefined / false children and attributes are skipped; arrays are flattened;
 * - attributes starting with "on" and holding a function become listeners;
 * - `dataset`, `style` (object, set through the CSSOM: the CSP refuses style attributes)
 *   and the form properties (value, checked, selected, disabled, open) are supported.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
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
  append(el, children);
  return el;
}

/** Appends `children` (text or nodes, nested arrays flattened, absent parts skipped:
 *  `Element.append(null)` would write "null"). */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Removes every child of `el`. */
export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** A value for display: the dash for missing values and non-finite numbers. */
export const text = (v) => (v === null || v === undefined || v === ''
  || (typeof v === 'number' && !Number.isFinite(v)) ? DASH : String(v));

/** A number, NaN for null/undefined/''. */
export const num = (v) => (v === null || v === undefined || v === '' ? NaN : Number(v));

/** An http(s) URL from data, or null (no javascript:, data:…): only these become links. */
export function safeUrl(u) {
  if (typeof u !== 'string') return null;
  try {
    const url = new URL(u, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Calls `fn` `ms` after the last call; `.cancel()` drops a pending call. */
export function debounce(fn, ms) {
  let timer = null;
  const run = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  run.cancel = () => clearTimeout(timer);
  return run;
}
