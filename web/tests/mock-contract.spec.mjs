// The dev mock server (web/dev/mock-server.mjs, one module per API area under
// web/dev/mock/) checked against the real server's OpenAPI document
// (`GET /api/openapi.json` of BANDMAP_URL, CONTRACT §4): the browser tests run against the
// mock when no server is given, so a mock that drifts from the API would let them pass on
// answers the real server never gives. Fails when
// - the mock answers a path or a method the API does not have;
// - a mocked answer's status is not documented for its operation, or its JSON body
//   violates the documented response schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses);
// - a mock route has no sample request here (so a new route is checked too);
// - the job types the mock's own OpenAPI stub offers are not the server's.
// Needs the real document: skipped without BANDMAP_URL (scripts/e2e.sh sets it).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020.js';
import { startMockServer, ROUTES, MOCK_USER, MOCK_PASSWORD } from '../dev/mock-server.mjs';

const REAL = process.env.BANDMAP_URL?.replace(/\/+$/, '');

/** One request per mock route (path with its ids, optional JSON body). The mock's fixture
 *  ids: band 2000 (three steps), band 1000 (a locked field with a pending conflict), job
 *  request 7 (pending), run 41 (running), location 1. */
const SAMPLES = {
  'GET /api/clusters': ['/api/clusters?bbox=-180,-85,180,85&zoom=3&breakdown=families'],
  'GET /api/bands/{}': ['/api/bands/2000'],
  'GET /api/countries': ['/api/countries'],
  'GET /api/openapi.json': ['/api/openapi.json'],
  'GET /api/search': ['/api/search?q=Band'],
  'POST /admin/auth/login': ['/admin/auth/login', { username: MOCK_USER, password: MOCK_PASSWORD }],
  'POST /admin/auth/logout': ['/admin/auth/logout', {}],
  'GET /admin/auth/me': ['/admin/auth/me'],
  'GET /admin/api/health': ['/admin/api/health'],
  'GET /admin/api/live': ['/admin/api/live'],
  'GET /admin/api/stats': ['/admin/api/stats'],
  'GET /admin/api/queue': ['/admin/api/queue'],
  'GET /admin/api/crawl-checkpoints': ['/admin/api/crawl-checkpoints'],
  'GET /admin/api/charts/geocoding': ['/admin/api/charts/geocoding?range=24h'],
  'GET /admin/api/activity': ['/admin/api/activity'],
  'GET /admin/api/logs': ['/admin/api/logs?run_id=41'],
  'POST /admin/api/job-triggers': ['/admin/api/job-triggers', { job_type: 'enrich' }],
  'GET /admin/api/job-triggers': ['/admin/api/job-triggers'],
  'GET /admin/api/job-triggers/{}': ['/admin/api/job-triggers/6'],
  'POST /admin/api/job-triggers/{}/cancel': ['/admin/api/job-triggers/7/cancel', {}],
  'POST /admin/api/crawl-runs/{}/cancel': ['/admin/api/crawl-runs/41/cancel', {}],
  'POST /admin/api/crawl-runs/cleanup': ['/admin/api/crawl-runs/cleanup', {}],
  'GET /admin/api/bands': ['/admin/api/bands?limit=5'],
  'GET /admin/api/bands/{}': ['/admin/api/bands/2000'],
  'PATCH /admin/api/bands/{}': ['/admin/api/bands/1001', { themes: 'Contract' }],
  'POST /admin/api/bands/{}/resolve-conflict': ['/admin/api/bands/1000/resolve-conflict', { field: 'genre', action: 'keep' }],
  'POST /admin/api/bands/{}/unlock': ['/admin/api/bands/1001/unlock', { field: 'themes' }],
  'GET /admin/api/bands/{}/history': ['/admin/api/bands/1001/history'],
  'GET /admin/api/gazetteer/candidates': ['/admin/api/gazetteer/candidates?q=Bergen&country=Norway'],
  'GET /admin/api/locations': ['/admin/api/locations?limit=5'],
  'PATCH /admin/api/locations/{}': ['/admin/api/locations/1', { lat: 59.9, lon: 10.7 }],
  'POST /admin/api/locations/{}/requeue': ['/admin/api/locations/1/requeue', {}],
  'POST /admin/api/locations/reset-errors': ['/admin/api/locations/reset-errors', {}],
  'POST /admin/api/locations/reset-llm': ['/admin/api/locations/reset-llm', {}],
  'POST /admin/api/locations/requeue-all': ['/admin/api/locations/requeue-all', {}],
  'POST /admin/api/locations/reset-all': ['/admin/api/locations/reset-all', {}],
  'POST /admin/api/geocode-cache/purge-legacy-provider': ['/admin/api/geocode-cache/purge-legacy-provider', {}],
  'GET /admin/api/geocoding': ['/admin/api/geocoding'],
  'GET /admin/api/llm': ['/admin/api/llm'],
  'GET /admin/api/charts/llm': ['/admin/api/charts/llm?days=30'],
};

/** Refusals the front ends show: their bodies must be the documented error shape too. */
const ERROR_SAMPLES = [
  ['GET', '/api/clusters?bbox=nope&zoom=3', 400],
  ['GET', '/api/bands/999999', 404],
  ['GET', '/api/countries?family=polka', 400],
  ['POST', '/admin/auth/login', 401, { username: MOCK_USER, password: 'wrong' }],
  ['GET', '/admin/api/bands/999999', 404],
  ['GET', '/admin/api/charts/geocoding?range=1y', 400],
  ['POST', '/admin/api/job-triggers/7/cancel', 409, {}],
];

/** The document itself (CONTRACT §4): served by the API but not one of its own paths. */
const DOCUMENT = 'GET /api/openapi.json';

/** A route's key with its parameters unnamed: `GET /api/bands/{}`. */
const routeKey = (method, template) => `${method.toUpperCase()} ${template.replace(/\{[^}]+\}/g, '{}')}`;

/** The operation of `method` and the concrete `path` in the document, or null. */
function operationOf(doc, method, path) {
  for (const [template, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(path) && item[method.toLowerCase()]) return item[method.toLowerCase()];
  }
  return null;
}

/** `node` with its local `$ref` (`#/components/...`) followed. */
function deref(doc, node) {
  if (!node?.$ref?.startsWith('#/')) return node;
  return node.$ref.slice(2).split('/').reduce((o, k) => o?.[k], doc);
}

describe('the mock server against the served OpenAPI document', { skip: REAL ? false : 'needs the real server (BANDMAP_URL)' }, () => {
  let doc;
  let mock;
  let cookie;
  let ajv;
  const validators = new Map();

  before(async () => {
    doc = await (await fetch(`${REAL}/api/openapi.json`)).json();
    mock = await startMockServer({ port: 0 });
    const login = await fetch(`${mock.url}/admin/auth/login`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: MOCK_USER, password: MOCK_PASSWORD }),
    });
    cookie = login.headers.get('set-cookie').split(';')[0];
    // strict off: OpenAPI adds keywords JSON Schema does not know (example, discriminator…);
    // formats (int64, date-time) are the server's business, the shapes are the mock's.
    ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  });
  after(async () => {
    await mock?.close();
  });

  /** The mock's answer to `method` `path`: {status, body}. */
  async function call(method, path, body) {
    const init = { method, headers: { Accept: 'application/json', cookie } };
    if (method !== 'GET') {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body ?? {});
    }
    const res = await fetch(`${mock.url}${path}`, init);
    const raw = await res.text();
    const type = (res.headers.get('content-type') || '').split(';')[0].trim();
    return { status: res.status, type, body: raw ? JSON.parse(raw) : undefined };
  }

  /** The problems of one mocked answer against the documented responses of its operation. */
  function violations(method, path, { status, type, body }) {
    const op = operationOf(doc, method, path.split('?')[0]);
    if (!op) return [`${method} ${path}: no such operation in the API`];
    const response = deref(doc, op.responses?.[String(status)] ?? op.responses?.default);
    if (!response) return [`${method} ${path}: status ${status} is not documented (documented: ${Object.keys(op.responses || {}).join(', ')})`];
    const media = Object.keys(response.content || {});
    if (!media.length) return body === undefined ? [] : [`${method} ${path}: ${status} has no documented body, the mock sends one`];
    if (body === undefined) return [`${method} ${path}: ${status} documents a body (${media.join(', ')}), the mock sends none`];
    if (!media.includes(type)) return [`${method} ${path}: ${status} is sent as ${type}, documented as ${media.join(', ')}`];
    const schema = response.content[type].schema;
    const key = `${method} ${path.split('?')[0]} ${status}`;
    if (!validators.has(key)) validators.set(key, ajv.compile({ ...schema, components: doc.components }));
    const validate = validators.get(key);
    return validate(body) ? [] : validate.errors.slice(0, 5).map((e) => `${method} ${path} (${status}): ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }

  test('every path and method the mock answers is one of the API', () => {
    const api = new Set([DOCUMENT]);
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) api.add(routeKey(method, template));
    }
    const extra = ROUTES.map((r) => routeKey(r.method, r.path)).filter((k) => !api.has(k));
    assert.deepEqual(extra, [], `the mock answers what the API does not have: ${extra.join(', ')}`);
  });

  test('every mock route has a sample request here', () => {
    const missing = ROUTES.map((r) => routeKey(r.method, r.path)).filter((k) => !SAMPLES[k]);
    assert.deepEqual(missing, [], 'add a sample to SAMPLES for each new mock route');
  });

  test('every mocked answer has a documented status and the documented shape', async () => {
    const problems = [];
    for (const route of ROUTES) {
      const [path, body] = SAMPLES[routeKey(route.method, route.path)] ?? [];
      // The document's own shape is the job-types test below.
      if (!path || routeKey(route.method, route.path) === DOCUMENT) continue;
      const answer = await call(route.method, path, body);
      assert.ok(answer.status < 400, `${route.method} ${path}: the sample must succeed on the mock (${answer.status} ${JSON.stringify(answer.body)})`);
      problems.push(...violations(route.method, path, answer));
    }
    assert.deepEqual(problems, []);
  });

  test('the mock\'s refusals have a documented status and the error body', async () => {
    const problems = [];
    for (const [method, path, status, body] of ERROR_SAMPLES) {
      const answer = await call(method, path, body);
      assert.equal(answer.status, status, `${method} ${path}`);
      problems.push(...violations(method, path, answer));
    }
    assert.deepEqual(problems, []);
  });

  test('the job types of the mock\'s document are the server\'s', async () => {
    const mocked = (await call('GET', '/api/openapi.json')).body.components.schemas.NewTrigger.properties.job_type;
    const real = deref(doc, doc.components.schemas.NewTrigger.properties.job_type);
    assert.deepEqual([...mocked.enum].sort(), [...real.enum].sort());
    assert.deepEqual(mocked['x-job-services'], real['x-job-services']);
  });

  test('the check finds what it looks for', () => {
    // A good answer passes; one missing a required field, sent as another type, on a path
    // the API does not have or with an undocumented status does not.
    const op = operationOf(doc, 'GET', '/api/search');
    assert.ok(op, 'the API has GET /api/search');
    const json = (status, body) => ({ status, type: 'application/json', body });
    assert.deepEqual(violations('GET', '/api/search', json(200, { items: [] })), []);
    assert.notDeepEqual(violations('GET', '/api/search', json(200, { nothing: true })), []);
    assert.notDeepEqual(violations('GET', '/api/search', { ...json(200, { items: [] }), type: 'text/plain' }), []);
    assert.notDeepEqual(violations('GET', '/api/no-such-thing', json(200, {})), []);
    assert.notDeepEqual(violations('GET', '/api/search', json(418, {})), []);
  });
});
