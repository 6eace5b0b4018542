// Fetch wrapper for the admin API.
// - every request has a timeout (AbortController), so the UI never waits forever;
// - writes always send Content-Type: application/json (CSRF defence, CONTRACT §5);
// - error bodies {"error": {"code", "message"}} become ApiError;
// - a 401 on any /admin/api call emits "bandmap:unauthorized" so the app
//   returns to the login screen.

export const DEFAULT_TIMEOUT_MS = 15000;

export class ApiError extends Error {
  constructor(status, code, message, { retryAfter = null } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status; // 0 = network error or timeout
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

export const authEvents = new EventTarget();

function buildUrl(path, query) {
  const url = new URL(path, location.origin);
  if (query) {
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null || v === '') continue;
      url.searchParams.set(k, String(v));
    }
  }
  return url.pathname + url.search;
}

/**
 * request('GET', '/admin/api/bands', {query: {q: 'x'}})
 * request('POST', '/admin/api/job-triggers', {body: {job_type: 'enrich'}})
 * Options: query, body, timeout (ms), signal (external abort).
 */
export async function request(method, path, { query, body, timeout = DEFAULT_TIMEOUT_MS, signal } = {}) {
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort();
  }, timeout);
  const onOuterAbort = () => ctrl.abort();
  if (signal) {
    if (signal.aborted) ctrl.abort();
    else signal.addEventListener('abort', onOuterAbort, { once: true });
  }
  const headers = { Accept: 'application/json' };
  const init = { method, headers, credentials: 'same-origin', signal: ctrl.signal, cache: 'no-store' };
  if (method !== 'GET' && method !== 'HEAD') {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
  }
  let res;
  try {
    res = await fetch(buildUrl(path, query), init);
  } catch (e) {
    if (timedOut) {
      throw new ApiError(0, 'timeout', `Pas de réponse du serveur après ${Math.round(timeout / 1000)} s (${method} ${path}).`);
    }
    if (signal && signal.aborted) throw new ApiError(0, 'aborted', 'Requête annulée.');
    throw new ApiError(0, 'network', `Erreur réseau (${method} ${path}) : ${e.message}`);
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener('abort', onOuterAbort);
  }

  let data = null;
  const text = res.status === 204 ? '' : await res.text().catch(() => '');
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const err = data && data.error ? data.error : {};
    const retry = res.headers.get('Retry-After');
    const apiErr = new ApiError(
      res.status,
      err.code || `http_${res.status}`,
      err.message || `HTTP ${res.status} ${res.statusText || ''}`.trim(),
      { retryAfter: retry !== null && retry !== '' && Number.isFinite(Number(retry)) ? Number(retry) : null },
    );
    if (res.status === 401 && !path.startsWith('/admin/auth/')) {
      authEvents.dispatchEvent(new Event('unauthorized'));
    }
    throw apiErr;
  }
  return data;
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
