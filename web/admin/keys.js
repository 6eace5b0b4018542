// Keyboard navigation of the console (issue 17): 1–5 open the five views (in the order of
// the menu), "/" focuses the view's first search or filter field, Escape closes an open
// band detail. Keys typed in a field, with a modifier, or while a dialog is open are left
// alone. The shortcuts are listed in the menu's title and in the "?" help.
export const VIEW_KEYS = { 1: 'pilotage', 2: 'bands', 3: 'locations', 4: 'journal', 5: 'llm' };

function typing(el) {
  if (!el) return false;
  const tag = el.tagName;
  return el.isContentEditable || tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

/** Installs the shortcuts; `isActive()` says whether the console (not the login) is shown. */
export function installKeys(isActive) {
  document.addEventListener('keydown', (e) => {
    if (!isActive() || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector('dialog[open]')) return;
    if (e.key === 'Escape') {
      const close = document.querySelector('#band-detail:not([hidden]) button.close');
      if (close) { e.preventDefault(); close.click(); }
      return;
    }
    if (typing(e.target)) return;
    if (VIEW_KEYS[e.key]) {
      e.preventDefault();
      location.hash = `#/${VIEW_KEYS[e.key]}`;
      return;
    }
    if (e.key === '/') {
      const field = document.querySelector('#main form.filters input, #main form.filters select');
      if (field) { e.preventDefault(); field.focus(); }
    }
  });
}
