// Hash router: "#/locations?status=error" → {view: "locations", params: URLSearchParams("status=error")}.
// The query string is split off before the view name is looked up (SPEC §7).

export const VIEWS = ['pilotage', 'bands', 'locations', 'journal', 'llm'];
export const DEFAULT_VIEW = 'pilotage';

export function parseHash(hash = location.hash) {
  let h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (h.startsWith('/')) h = h.slice(1);
  const qi = h.indexOf('?');
  const name = decodeURIComponent(qi >= 0 ? h.slice(0, qi) : h).replace(/\/+$/, '');
  const params = new URLSearchParams(qi >= 0 ? h.slice(qi + 1) : '');
  const view = VIEWS.includes(name) ? name : DEFAULT_VIEW;
  return { view, params, known: VIEWS.includes(name) || name === '' };
}

export function buildHash(view, params) {
  const p = new URLSearchParams();
  if (params) {
    const entries = params instanceof URLSearchParams ? params.entries() : Object.entries(params);
    for (const [k, v] of entries) {
      if (v === undefined || v === null || v === '') continue;
      p.set(k, String(v));
    }
  }
  const qs = p.toString();
  return `#/${view}${qs ? '?' + qs : ''}`;
}

/** Navigate (adds a history entry; the hashchange listener re-renders). */
export function navigate(view, params) {
  const target = buildHash(view, params);
  if (location.hash === target) {
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = target;
  }
}

/** Update the hash query without re-rendering (filters reflected in the URL). */
export function replaceQuery(view, params) {
  history.replaceState(null, '', buildHash(view, params));
}

/** Read form values into a plain object (empty values dropped). */
export function formParams(form) {
  const out = {};
  for (const [k, v] of new FormData(form).entries()) {
    const s = String(v).trim();
    if (s !== '') out[k] = s;
  }
  return out;
}
