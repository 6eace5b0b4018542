// The public map's words for the catalogue's English values (band status, step labels,
// years active), in the page's language (i18n.js; the admin console, which imports
// stepLabel, is French). The raw value stays in the data (URL, filters, API).
import { t } from './i18n.js';

const STATUS_KEYS = ['active', 'split-up', 'on hold', 'changed name', 'unknown', 'disputed'];
const STATUS = Object.fromEntries(STATUS_KEYS.map((k) => [k, t(`map.band_status.${k.replace(' ', '_')}`)]));

// Step labels written by the location parser (crates/location/src/marker.rs): periods,
// combined with "/" ("early/mid"), or year spans ("1990-1995", kept as they are).
const PERIOD = Object.fromEntries(['early', 'mid', 'later', 'origin'].map((k) => [k, t(`map.period.${k}`)]));

/** "Split-up" → "Séparé"; an unknown status is shown as written. */
export function statusLabel(s) {
  if (s === null || s === undefined || s === '') return s;
  return STATUS[String(s).trim().toLowerCase()] ?? String(s);
}

/** "early/mid" → "débuts/milieu"; "1990-1995" stays. */
export function stepLabel(label) {
  if (label === null || label === undefined || label === '') return label;
  return String(label).split('/').map((w) => PERIOD[w.trim().toLowerCase()] ?? w.trim()).join('/');
}

/** "1983-?" → "1983 – date inconnue", "1990-2000, 2005-present" → "1990 – 2000, 2005 – aujourd’hui". */
export function yearsActiveLabel(v) {
  if (v === null || v === undefined || v === '') return v;
  return String(v).split(',').map((span) => span.trim()
    .replace(/\s*-\s*/g, ' – ')
    .replace(/\bpresent\b/gi, t('map.years.present'))
    .replace(/\?/g, t('map.years.unknown'))
    .replace(/\(([^)]*)\)/g, (_, name) => `(${t('map.years.as', { name })})`)).join(', ');
}

/** "Death Metal (early); Black Metal (mid)" → "Death Metal (débuts) ; Black Metal (milieu)":
 *  the catalogue's genre periods in words (genre names themselves stay as written). */
export function genreLabel(g) {
  if (g === null || g === undefined || g === '') return g;
  return String(g).replace(/\(([^)]*)\)/g, (all, inner) => (/^[a-z/ ]+$/i.test(inner) ? `(${stepLabel(inner)})` : all))
    .replace(/\s*;\s*/g, t('map.genre.separator'));
}
