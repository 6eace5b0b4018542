// The public map's two languages (issue 28). One catalogue per language, shared with the
// server-rendered pages: web/map/i18n/fr.json and en.json (flat `key → text`, `{name}`
// placeholders; the map's keys start with `map.`; a plural is two keys, `….one` and
// `….other`, chosen by Intl.PluralRules). The Rust test `both_catalogues_have_the_same_texts`
// fails on a key present in one file only, so it covers the map's texts too.
//
// Both catalogues are JSON modules of the page's module graph (3.5 kB gzip each): read before
// any module runs, so the page is in its language by the `load` event (a fetched catalogue
// behind a top-level await let `load` fire before the map existed).
//
// The language: `?lang=fr|en` in the URL, else the first of the browser's languages
// (navigator.languages, the same order as its Accept-Language) that is one of the two, else
// French. The admin console imports /map/words.js and stays French (SPEC).

import fr from './i18n/fr.json' with { type: 'json' };
import en from './i18n/en.json' with { type: 'json' };

export const LANGS = ['fr', 'en'];
const LOCALES = { fr: 'fr-FR', en: 'en-GB' };

/** `fr` or `en` for a language tag (`en-GB`, `FR`), else null. */
export function langOf(tag) {
  const primary = String(tag ?? '').trim().split(/[-_]/)[0].toLowerCase();
  return LANGS.includes(primary) ? primary : null;
}

/** The URL's `lang` when it names one of the two, else the browser's first, else French. */
export function chooseLang(search, languages) {
  const asked = langOf(new URLSearchParams(search).get('lang'));
  if (asked) return asked;
  for (const tag of languages ?? []) {
    const l = langOf(tag);
    if (l) return l;
  }
  return 'fr';
}

// (Node imports words.js in a test: no location, no navigator there, French.)
const here = globalThis.location ?? { pathname: '', search: '' };
const onAdmin = here.pathname.startsWith('/admin');

/** The page's language. */
export const lang = onAdmin ? 'fr' : chooseLang(here.search, globalThis.navigator?.languages);
/** Whether the URL named the language (then the URL keeps naming it). */
export const langInUrl = !onAdmin && langOf(new URLSearchParams(here.search).get('lang')) !== null;
/** The locale for numbers and sorting. */
export const LOCALE = LOCALES[lang];

const catalogue = { fr, en }[lang];
const plurals = new Intl.PluralRules(LOCALE);

/** The text of `key` with its `{name}` placeholders filled (the key itself when missing). */
export function t(key, vars = {}) {
  const text = catalogue[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in vars ? String(vars[name]) : all));
}

/** A number in the page's language (1 234 / 1,234). */
export function fmt(n, options) {
  return Number(n).toLocaleString(LOCALE, options);
}

/** The plural form of `key` for `n` (`key.one` or `key.other`), `{n}` filled (formatted). */
export function tn(key, n, vars = {}) {
  const form = plurals.select(Number(n)) === 'one' ? 'one' : 'other';
  return t(`${key}.${form}`, { n: fmt(n), ...vars });
}

/** Compares two strings in the page's language (lists sorted by name). */
export const compare = (a, b) => String(a).localeCompare(String(b), LOCALE);

/** `url` (a path, may hold a query) in the page's language when the URL asked for one or it
 *  is not French: shared links, the embed snippet and the town/band pages keep it. */
export function withLang(url) {
  if (!langInUrl && lang === 'fr') return url;
  const u = new URL(url, location.origin);
  u.searchParams.set('lang', lang);
  return u.origin === location.origin && !/^https?:/.test(url) ? `${u.pathname}${u.search}${u.hash}` : u.href;
}

/** The page's fixed texts: `data-i18n="key"` (text), `data-i18n-attr="attr=key;…"`. */
function translateStatic() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-attr]')) {
    for (const pair of el.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split('=').map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
  if (!onAdmin && catalogue['map.title']) document.title = t('map.title');
}

if (!onAdmin && globalThis.document) translateStatic();
