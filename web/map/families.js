// Genre families: the ten colours of the map. Which family a band belongs to is decided by
// the server (crates/index/src/map/family.rs, docs/map.md); this page only names and paints
// the families the API sends (`breakdown=families`: `families` per cluster, `family` per
// point) and asks for `family=` when the legend filters.

import { t } from './i18n.js';

const NAMES = ['black', 'death', 'doom', 'thrash', 'heavy', 'progressive', 'folk', 'gothic', 'grind', 'other'];

/** API name → label in the page's language (`map.family.<name>`), in the server's order
 *  (the order of the legend and the rings). */
export const FAMILIES = NAMES.map((f) => [f, t(`map.family.${f}`)]);

export const FAMILY_NAMES = FAMILIES.map(([k]) => k);
const LABELS = Object.fromEntries(FAMILIES);

export const familyLabel = (name) => LABELS[name] ?? LABELS.other;
export const isFamily = (name) => Object.hasOwn(LABELS, name);

/** The `family=` value of a URL: known names only, in legend order, no duplicates. */
export function parseFamilies(raw) {
  const asked = new Set(String(raw ?? '').split(',').map((s) => s.trim().toLowerCase()));
  return FAMILY_NAMES.filter((f) => asked.has(f));
}

/** `conic-gradient(...)` of a cluster's families (CSS custom properties of map.css), or
 *  null when the answer carries none. */
export function ringGradient(families) {
  if (!families || typeof families !== 'object') return null;
  const parts = FAMILY_NAMES.map((f) => [f, Number(families[f]) || 0]).filter(([, n]) => n > 0);
  const total = parts.reduce((s, [, n]) => s + n, 0);
  if (!total) return null;
  let at = 0;
  const stops = parts.map(([f, n]) => {
    const from = at;
    at += (n / total) * 100;
    return `var(--fam-${f}) ${from.toFixed(2)}% ${at.toFixed(2)}%`;
  });
  return `conic-gradient(${stops.join(', ')})`;
}

/** "Black 12, Death 3" for a cluster's accessible name (largest first). */
export function familiesText(families) {
  if (!families || typeof families !== 'object') return '';
  return FAMILY_NAMES.map((f) => [f, Number(families[f]) || 0]).filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([f, n]) => `${familyLabel(f)} ${n}`)
    .join(', ');
}
