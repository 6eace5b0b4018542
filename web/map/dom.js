// DOM helpers for the public map: data is always inserted as text, never as HTML.

export const $ = (id) => document.getElementById(id);

/** Element with attributes (`on*` functions become listeners) and children (text or nodes). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A value for display: "—" for missing values and non-finite numbers. */
export const text = (v) => (v === null || v === undefined || v === ''
  || (typeof v === 'number' && !Number.isFinite(v)) ? '—' : String(v));

/** An http(s) URL, or null (no javascript:, data:…). */
export function safeUrl(u) {
  try {
    const url = new URL(u, location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** A number, NaN for null/undefined/''. */
export const num = (v) => (v === null || v === undefined || v === '' ? NaN : Number(v));

/** Calls `fn` `ms` after the last call. */
export function debounce(fn, ms) {
  let timer = null;
  const run = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  run.cancel = () => clearTimeout(timer);
  return run;
}
