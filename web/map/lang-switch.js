// The language switch of the map's bar (issue 28): a link to the same view in the other
// language (`lang=` in the URL, which then keeps it). Its href follows the view, which
// state.js keeps in the URL.
import { $ } from '/lib/dom.js';
import { t, lang } from './i18n.js';

const other = lang === 'fr' ? 'en' : 'fr';

/** The page's current URL in the other language. */
export function otherLanguageHref() {
  const q = new URLSearchParams(location.search);
  q.set('lang', other);
  return `${location.pathname}?${q}`;
}

export function initLangSwitch() {
  const a = $('lang-switch');
  if (!a) return;
  a.querySelector('.long').textContent = t('map.lang.other');
  a.querySelector('.short').textContent = other.toUpperCase();
  a.lang = other;
  a.hreflang = other;
  const refresh = () => { a.href = otherLanguageHref(); };
  refresh();
  // The view changes after the page loads: the link is brought up to date before use.
  for (const type of ['pointerenter', 'focus', 'click']) a.addEventListener(type, refresh);
}
