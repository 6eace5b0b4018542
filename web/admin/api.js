// The admin API through the shared request helper (web/lib/http.js), plus what only the
// console needs: answers are never taken from the browser cache, and a 401 on any
// /admin/api call emits "unauthorized" on `authEvents` so the app returns to the login
// screen.
import { ApiError, request as send } from '/lib/http.js';

export { ApiError };

export const authEvents = new EventTarget();

/** `send` with the console's cache mode and session handling (same options). */
export async function request(method, path, opts = {}) {
  try {
    return await send(method, path, { ...opts, cache: 'no-store' });
  } catch (e) {
    if (e instanceof ApiError && e.status === 401 && !path.startsWith('/admin/auth/')) {
      authEvents.dispatchEvent(new Event('unauthorized'));
    }
    throw e;
  }
}

export const api = {
  get: (path, query, opts = {}) => request('GET', path, { ...opts, query }),
  post: (path, body, opts = {}) => request('POST', path, { ...opts, body }),
  patch: (path, body, opts = {}) => request('PATCH', path, { ...opts, body }),
};

// ---- auth ----
export const auth = {
  me: () => request('GET', '/admin/auth/me'),
  login: (username, password) => request('POST', '/admin/auth/login', { body: { username, password } }),
  logout: () => request('POST', '/admin/auth/logout', { body: {} }),
};

/** Accept either a bare array or a list envelope {items: [...]}. */
export function asList(x) {
  if (Array.isArray(x)) return x;
  if (x && Array.isArray(x.items)) return x.items;
  return [];
}
