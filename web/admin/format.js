// How the console writes values: numbers, costs, dates, relative times, free text — in
// French, the dash for a missing value. Shared DOM helpers are in /lib/dom.js.
import { DASH } from '/lib/dom.js';

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
