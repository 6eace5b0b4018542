// JSON requests shared by the public map (web/map/) and the admin console (web/admin/):
// - every request has a timeout (AbortController), so a page never waits forever;
// - an outer signal can abort it (a newer request replacing an older one);
// - writes send Content-Type: application/json (the admin API's CSRF defence, CONTRACT §5);
// - error bodies {"error": {"code", "message"}} become ApiError(status, code, message).
// What a page says about a failure is its own business: `request` writes the console's
// sentences, `getJson` the map's short phrases that its messages end with.

export const DEFAULT_TIMEOUT_MS = 15000;

export class ApiError extends Error {
  constructor(status, code, message, { retryAfter = null, fromServer = false } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status; // 0 = no answer: network error, timeout or abort
    this.code = code; // the server's code, or 'timeout' | 'network' | 'aborted' | 'http_<status>'
    this.retryAfter = retryAfter;
    this.fromServer = fromServer; // the message is the server's own
  }
}

/** True for the error of a request aborted from outside (replaced by a newer one). */
export const isAbort = (e) => e?.name === 'AbortError' || (e instanceof ApiError && e.code === 'aborted');

/** `path` with the query's non-empty values appended. */
function buildUrl(path, query) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v === undefined || v === null || v === '') continue;
    url.searchParams.set(k, String(v));
  }
  return url.pathname + url.search;
}

/** The seconds of a `Retry-After` header, or null. */
function retryAfterOf(res) {
  const retry = res.headers.get('Retry-After');
  return retry !== null && retry !== '' && Number.isFinite(Number(retry)) ? Number(retry) : null;
}

/**
 * request('GET', '/admin/api/bands', {query: {q: 'x'}})
 * request('POST', '/admin/api/job-triggers', {body: {job_type: 'enrich'}})
 * Options: query, body, timeout (ms), signal (outer abort), cache (fetch's cache mode).
 * Resolves to the parsed JSON body (null when empty); rejects with an ApiError.
 */
export async function request(method, path, { query, body, timeout = DEFAULT_TIMEOUT_MS, signal, cache = 'default' } = {}) {
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
  const init = { method, headers, credentials: 'same-origin', signal: ctrl.signal, cache };
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
  const raw = res.status === 204 ? '' : await res.text().catch(() => '');
  if (raw) {
    try {
      data = JSON.parse(raw);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const err = data && data.error ? data.error : {};
    throw new ApiError(
      res.status,
      err.code || `http_${res.status}`,
      err.message || `HTTP ${res.status} ${res.statusText || ''}`.trim(),
      { retryAfter: retryAfterOf(res), fromServer: Boolean(err.message) },
    );
  }
  return data;
}

/** The phrases of a request that got no answer, in the page's language: the map sets
 *  them from its catalogue at start (`setFailurePhrases`); French until then. */
const failure = {
  timeout: 'le serveur ne répond pas (délai dépassé)',
  network: 'le serveur est injoignable',
};

/** Sets the phrases of a timed-out and of an unreachable request. */
export function setFailurePhrases({ timeout, network }) {
  if (timeout) failure.timeout = timeout;
  if (network) failure.network = network;
}

/** The map's phrase for a failed request (its messages read "… : <phrase>."). */
function shortPhrase(e) {
  if (e.code === 'timeout') return failure.timeout;
  if (e.code === 'network') return failure.network;
  return e.fromServer ? `${e.message} (HTTP ${e.status})` : `HTTP ${e.status}`;
}

/** GET a JSON document (the public map's reads). Rejects with an ApiError whose message
 *  is a short phrase; an outer abort rejects with an error `isAbort` recognises. */
export async function getJson(path, { signal } = {}) {
  try {
    return await request('GET', path, { signal });
  } catch (e) {
    if (!(e instanceof ApiError) || e.code === 'aborted') throw e;
    throw new ApiError(e.status, e.code, shortPhrase(e), { retryAfter: e.retryAfter, fromServer: e.fromServer });
  }
}
