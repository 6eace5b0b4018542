// JSON requests of the public map: a timeout, an optional outer abort signal, and the
// API's error body turned into a readable message.
const REQUEST_TIMEOUT_MS = 15000;

export async function getJson(path, { signal } = {}) {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(new DOMException('timeout', 'TimeoutError')), REQUEST_TIMEOUT_MS);
  const onAbort = () => ctrl.abort(signal.reason);
  if (signal) signal.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await fetch(path, { signal: ctrl.signal, headers: { Accept: 'application/json' } });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      const e = new Error(body?.error?.message ? `${body.error.message} (HTTP ${res.status})` : `HTTP ${res.status}`);
      e.status = res.status;
      throw e;
    }
    return body;
  } catch (e) {
    if (ctrl.signal.aborted && ctrl.signal.reason?.name === 'TimeoutError') throw new Error('le serveur ne répond pas (délai dépassé)');
    if (e instanceof TypeError) throw new Error('le serveur est injoignable');
    throw e;
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener('abort', onAbort);
  }
}

/** True for the error of a request that was replaced by a newer one. */
export const isAbort = (e) => e?.name === 'AbortError';
