#!/usr/bin/env node
// Throwaway-but-useful dev tool: serves web/ exactly as `bandmap serve` will
// (/ → map/index.html, /map/*, /lib/*, /vendor/*, /admin/*) with an in-memory mock of
// the API shapes of CONTRACT §4–§7. Lets front-end work and the browser tests
// run without PostgreSQL or the Rust binary.
//
//   node web/dev/mock-server.mjs            # http://127.0.0.1:8090, admin / admin-password
//   PORT=9000 node web/dev/mock-server.mjs
//
// The web tests start it automatically when BANDMAP_URL is unset. The API is split per
// area under mock/ (one module each, `routes` of OpenAPI path templates); the routes and
// the shapes they answer are checked against the real server's OpenAPI document by
// web/tests/mock-contract.spec.mjs.
import http from 'node:http';
import { err, readBody, authed } from './mock/respond.mjs';
import { serveStatic } from './mock/static.mjs';
import { match } from './mock/router.mjs';
import { createState, MOCK_USER, MOCK_PASSWORD } from './mock/fixtures.mjs';

export { MOCK_USER, MOCK_PASSWORD, XSS_NAME, PATH_BAND, TOWN } from './mock/fixtures.mjs';
export { FOLLOW_STEP_MS } from './mock/jobs.mjs';
export { ROUTES } from './mock/router.mjs';

/** Why the admin API refuses this call before routing it: no session, a write that is not
 *  JSON (CONTRACT §5), a non-numeric page; [status, message] or null. */
function adminRefusal(req, q) {
  if (!authed(req)) return [401, 'no session'];
  if (req.method !== 'GET' && !(req.headers['content-type'] || '').startsWith('application/json')) {
    return [400, 'Content-Type must be application/json'];
  }
  const bad = ['limit', 'offset'].find((k) => q.has(k) && !/^\d+$/.test(q.get(k)));
  return bad ? [400, `${bad} must be a non-negative integer`] : null;
}

async function handleApi(state, req, res, url) {
  const q = url.searchParams;
  const p = url.pathname;
  const m = req.method;
  const admin = p.startsWith('/admin/api/');
  const refusal = admin ? adminRefusal(req, q) : null;
  if (refusal) return err(res, refusal[0], refusal[0] === 401 ? 'unauthorized' : 'bad_request', refusal[1]);
  const found = match(m, p);
  if (!found) return admin ? err(res, 404, 'not_found', `no route ${m} ${p}`) : err(res, 404, 'not_found', 'not found');
  const body = m === 'GET' ? {} : await readBody(req).catch(() => ({}));
  return found.route.handle({ state, req, res, q, body, id: found.id });
}

export function startMockServer({ port = 0, host = '127.0.0.1' } = {}) {
  const state = createState();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    const isApi = p.startsWith('/api/') || p.startsWith('/admin/api/') || p.startsWith('/admin/auth/');
    (isApi ? handleApi(state, req, res, url) : Promise.resolve(serveStatic(req, res, p))).catch((e) => {
      console.error(e);
      err(res, 500, 'internal', 'internal error');
    });
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const { port: p } = server.address();
      const close = () => new Promise((r) => {
        state.stop();
        server.closeAllConnections?.();
        server.close(() => r());
      });
      resolve({ url: `http://${host}:${p}`, close, state });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startMockServer({ port: Number(process.env.PORT || 8090) });
  console.log(`mock Band Map server on ${url}  (admin: ${MOCK_USER} / ${MOCK_PASSWORD})`);
}
