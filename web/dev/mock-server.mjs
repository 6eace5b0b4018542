#!/usr/bin/env node
// Throwaway-but-useful dev tool: serves web/ exactly as `bandmap serve` will
// (/ → map/index.html, /map/*, /vendor/*, /admin/*) with an in-memory mock of
// the API shapes of CONTRACT §4–§7. Lets front-end work and the browser tests
// run without PostgreSQL or the Rust binary.
//
//   node web/dev/mock-server.mjs            # http://127.0.0.1:8090, admin / admin-password
//   PORT=9000 node web/dev/mock-server.mjs
//
// The web tests start it automatically when BANDMAP_URL is unset.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MOCK_USER = 'admin';
export const MOCK_PASSWORD = 'admin-password';
export const XSS_NAME = '<img src=x onerror=alert(1)>';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.geojson': 'application/geo+json',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
};

const ADMIN_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
  + "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// ---------- data ----------
const CITIES = [
  ['Oslo', 'Norway', 59.91, 10.75], ['Bergen', 'Norway', 60.39, 5.32], ['Stockholm', 'Sweden', 59.33, 18.07],
  ['Gothenburg', 'Sweden', 57.71, 11.97], ['Helsinki', 'Finland', 60.17, 24.94], ['Tampere', 'Finland', 61.5, 23.76],
  ['Berlin', 'Germany', 52.52, 13.4], ['Essen', 'Germany', 51.46, 7.01], ['Paris', 'France', 48.86, 2.35],
  ['Lyon', 'France', 45.76, 4.84], ['Warsaw', 'Poland', 52.23, 21.01], ['Kraków', 'Poland', 50.06, 19.94],
  ['London', 'United Kingdom', 51.51, -0.13], ['Birmingham', 'United Kingdom', 52.49, -1.9], ['Athens', 'Greece', 37.98, 23.73],
  ['Madrid', 'Spain', 40.42, -3.7], ['Rome', 'Italy', 41.9, 12.5], ['Prague', 'Czechia', 50.08, 14.44],
];
const GENRES = ['Black Metal', 'Death Metal', 'Black/Death Metal', 'Doom Metal', 'Thrash Metal', 'Heavy Metal', 'Progressive Death Metal'];
const STATUSES = ['Active', 'Split-up', 'On hold'];
// The genre family the real server derives for each genre of this fixture
// (crates/index/src/map/family.rs; checked there by `the_documented_examples`). A fixture
// table, not the rule: the mock never guesses a family.
const FAMILY_OF_GENRE = {
  'Black Metal': 'black', 'Death Metal': 'death', 'Black/Death Metal': 'black', 'Doom Metal': 'doom',
  'Thrash Metal': 'thrash', 'Heavy Metal': 'heavy', 'Progressive Death Metal': 'death', 'Atmospheric Black Metal': 'black',
};
const FAMILY_NAMES = ['black', 'death', 'doom', 'thrash', 'heavy', 'progressive', 'folk', 'gothic', 'grind', 'other'];
const familyOf = (b) => FAMILY_OF_GENRE[b.genre] ?? 'other';
/** The `family=` names of a query, as written (trimmed, blanks dropped). */
const familyNames = (q) => (q.get('family') || '').split(',').map((f) => f.trim()).filter(Boolean);
/** The `family=` list of a query (lower-cased, blanks dropped). */
const familyList = (q) => familyNames(q).map((f) => f.toLowerCase());
const GEO_STATUSES = ['done', 'done', 'done', 'done', 'country_only', 'error', 'llm_needed', 'pending', 'manual'];

// A band whose path has three steps, the middle one never placed, and four bands of one
// town sharing its exact coordinates (the town list of CONTRACT §11 at zoom 17).
export const PATH_BAND = { ma_id: 2000, name: 'Tristep Wanderers' };
export const TOWN = { name: 'Tilburg', country: 'Netherlands', lat: 51.5555, lon: 5.0913, ma_ids: [2001, 2002, 2003, 2004] };

function mockBand(maId, name, country, lat, lon, extra) {
  return {
    ma_id: maId, name, country, country_code: country.slice(0, 2).toUpperCase(), location_text: '', genre: 'Doom Metal',
    themes: null, status: 'Active', formed_year: 1992, lat, lon, enriched: true, enrich_pending: false, locked_fields: [],
    crawler_pending: {}, updated_at: new Date().toISOString(), crawled_at: null, first_seen_at: '2025-01-01T00:00:00Z',
    data: { url: `https://www.metal-archives.com/bands/x/${maId}` }, url: `https://www.metal-archives.com/bands/x/${maId}`,
    band_page: null, ...extra,
  };
}

function mockLocation(id, b, order, label, raw, country, lat, lon) {
  const located = lat !== null;
  return {
    id, ma_id: b.ma_id, band_name: b.name, step_order: order, step_label: label, location_raw: raw, country,
    status: located ? 'done' : 'error', attempts: 1, error: located ? null : 'no such place', provider: located ? 'gazetteer' : null,
    confidence: located ? 0.9 : null, granularity: located ? 'city' : null, lat, lon, query: raw, updated_at: new Date().toISOString(),
  };
}

function addShowcase(bands, locations, firstId) {
  let id = firstId;
  const w = mockBand(PATH_BAND.ma_id, PATH_BAND.name, 'Norway', 59.95, 10.8, {
    location_text: 'Oslo (early); Atlantis (mid); Berlin (later)', themes: 'Wandering, Exile', label: 'Nomad Records',
    years_active: '1992-2001, 2008-present', status: 'Active', formed_year: 1992, genre: 'Atmospheric Black Metal',
  });
  bands.push(w);
  locations.push(mockLocation(id++, w, 0, 'early', 'Oslo', 'Norway', 59.95, 10.8));
  locations.push(mockLocation(id++, w, 1, 'mid', 'Atlantis', 'Norway', null, null));
  locations.push(mockLocation(id++, w, 2, 'later', 'Berlin', 'Germany', 52.5, 13.45));
  TOWN.ma_ids.forEach((maId, k) => {
    const b = mockBand(maId, `${['Kanaal', 'Heide', 'Ruïne', 'Veen'][k]} ${maId}`, TOWN.country, TOWN.lat, TOWN.lon, { formed_year: 1990 + k * 5 });
    bands.push(b);
    locations.push(mockLocation(id++, b, 0, null, TOWN.name, TOWN.country, TOWN.lat, TOWN.lon));
  });
}

function makeData() {
  const bands = [];
  const locations = [];
  let locId = 1;
  for (let i = 0; i < 60; i++) {
    const c = CITIES[i % CITIES.length];
    const maId = 1000 + i;
    const jitter = ((i * 37) % 17) / 100;
    const name = i === 7 ? XSS_NAME : `Band ${String.fromCharCode(65 + (i % 26))}${i}`;
    const b = {
      ma_id: maId, name, country: c[1], country_code: c[1].slice(0, 2).toUpperCase(),
      location_text: i % 5 === 0 ? `${c[0]} (early); ${CITIES[(i + 3) % CITIES.length][0]} (later)` : c[0],
      genre: GENRES[i % GENRES.length], themes: i % 2 ? 'Darkness, Death' : 'War, History',
      status: STATUSES[i % STATUSES.length], formed_year: 1985 + (i % 35),
      lat: c[2] + jitter, lon: c[3] + jitter, enriched: i % 3 !== 0, enrich_pending: i % 7 === 0,
      locked_fields: i % 6 === 0 ? ['genre'] : [], crawler_pending: i % 6 === 0 ? { genre: 'Upstream Genre Metal' } : {},
      updated_at: new Date(Date.now() - i * 3600e3).toISOString(), crawled_at: new Date(Date.now() - i * 7200e3).toISOString(),
      first_seen_at: '2025-01-01T00:00:00Z', data: { url: `https://www.metal-archives.com/bands/x/${maId}` },
      band_page: { lyrical_themes: 'Darkness', location: c[0] },
    };
    b.url = b.data.url;
    bands.push(b);
    const steps = i % 5 === 0 ? [c, CITIES[(i + 3) % CITIES.length]] : [c];
    steps.forEach((s, k) => {
      const st = k === 0 ? GEO_STATUSES[i % GEO_STATUSES.length] : 'done';
      const located = st === 'done' || st === 'country_only' || st === 'manual';
      locations.push({
        id: locId++, ma_id: maId, band_name: name, step_order: k, step_label: k === 0 ? 'origin' : 'later',
        location_raw: s[0], country: s[1], status: st, attempts: st === 'error' ? 3 : 1,
        error: st === 'error' ? `provider said: <b>bad</b> request for ${s[0]}` : null,
        provider: located ? 'geoapify' : null, confidence: st === 'country_only' ? 0.1 : located ? 0.93 : null,
        granularity: located ? 'city' : null, lat: located ? s[2] + jitter : null, lon: located ? s[3] + jitter : null,
        query: `${s[0]}, ${s[1]}`, updated_at: new Date().toISOString(),
      });
    });
  }
  addShowcase(bands, locations, locId);
  const llm = bands.slice(0, 8).map((b, i) => ({
    id: i + 1, created_at: new Date(Date.now() - i * 43200e3).toISOString(), ma_id: b.ma_id, band_name: b.name,
    location_raw: b.location_text, country: b.country, model: i % 2 ? 'llama-3.1-8b-instant' : 'llama-3.3-70b-versatile',
    extraction: { city: i % 3 ? CITIES[i][0] : null, region: null, country: b.country, confidence: 0.8 },
    prompt_tokens: 120 + i, completion_tokens: 30 + i, cost_usd: i === 3 ? null : 0.00012 * (i + 1),
    prompt: `Extract the city from: "${b.location_text}" <script>alert(1)</script>`, response: '{"city": null}',
  }));
  return { bands, locations, llm };
}

const state = {
  ...makeData(),
  runs: [
    { id: 41, type: 'full_crawl', status: 'running', cancel_requested: false, started_at: new Date(Date.now() - 600e3).toISOString(), finished_at: null, stats: { countries_total: 40, countries_done: 12, country_index: 13, country_code: 'FI', pages: 310, bands_seen: 12000, failed: 2, months: null }, error: null },
    { id: 40, type: 'incremental', status: 'error', cancel_requested: false, started_at: new Date(Date.now() - 86400e3).toISOString(), finished_at: new Date(Date.now() - 86000e3).toISOString(), stats: { processed: 10 }, error: 'scraped: <script>alert("x")</script> Just a moment...' },
    { id: 39, type: 'geocoder_enqueue', status: 'success', cancel_requested: false, started_at: new Date(Date.now() - 90000e3).toISOString(), finished_at: new Date(Date.now() - 89000e3).toISOString(), stats: { inserted: 12, failed: 0, country_code: null, months: null }, error: null },
  ],
  jobs: [
    { id: 6, job_type: 'full_crawl_typo', status: 'error', created_at: new Date(Date.now() - 7200e3).toISOString(), created_by: 'alice', claimed_at: null, finished_at: new Date(Date.now() - 7100e3).toISOString(), run_id: null, error: 'unknown job_type full_crawl_typo' },
    { id: 7, job_type: 'enrich', status: 'pending', created_at: new Date().toISOString(), created_by: 'alice', claimed_at: null, finished_at: null, run_id: null, error: null },
  ],
  audit: [{ id: 3, at: new Date(Date.now() - 3000e3).toISOString(), username: 'admin', action: 'band.patch', target: '1000', before: { genre: 'Black Metal' }, after: { genre: 'Raw Black Metal' } }],
  logs: [],
  nextJobId: 8,
  crawlerAlive: true,
  failures: new Map(),
};
for (let i = 1; i <= 30; i++) state.logs.push({ id: i, run_id: 41, at: new Date(Date.now() - (30 - i) * 1000).toISOString(), level: i % 10 === 0 ? 'warn' : 'info', message: `band ${1000 + i} processed <i>ok</i>` });
setInterval(() => {
  const id = state.logs.length + 1;
  state.logs.push({ id, run_id: 41, at: new Date().toISOString(), level: id % 5 === 0 ? 'warn' : 'info', message: `tick ${id}` });
}, 2000).unref();

// ---------- issue 17: follow a request, charts, gazetteer suggestions ----------
const EDITABLE_FIELDS = ['name', 'genre', 'themes', 'status', 'country', 'location_text', 'formed_year'];
function audit(action, target, before, after) {
  state.audit.unshift({ id: 100 + state.audit.length, at: new Date().toISOString(), username: MOCK_USER, action, target, before, after });
}
/** A request made through the mock moves on its own: pending 1.5 s, then a run for 1.5 s, then done. */
export const FOLLOW_STEP_MS = 1500;
function followJob(j) {
  const strip = ({ followed, ...t }) => t;
  if (!j.followed) return { trigger: strip(j), run: null };
  const age = Date.now() - j.followed;
  if (age < FOLLOW_STEP_MS || j.status === 'cancelled') return { trigger: strip(j), run: null };
  const started = new Date(j.followed + FOLLOW_STEP_MS).toISOString();
  const runId = 500 + j.id;
  j.run_id = runId;
  j.claimed_at = started;
  if (age < 2 * FOLLOW_STEP_MS) {
    j.status = 'claimed';
    return { trigger: strip(j), run: { id: runId, type: j.job_type, status: 'running', cancel_requested: false, started_at: started, finished_at: null, updated_at: started, stats: { processed: 1 }, error: null, trigger_id: j.id } };
  }
  const finished = new Date(j.followed + 2 * FOLLOW_STEP_MS).toISOString();
  j.status = 'done';
  j.finished_at = finished;
  return { trigger: strip(j), run: { id: runId, type: j.job_type, status: 'success', cancel_requested: false, started_at: started, finished_at: finished, updated_at: finished, stats: { inserted: 3, failed: 0 }, error: null, trigger_id: j.id } };
}
const HOUR = 3600e3;
function geocodingChart(range) {
  const hourly = range === '24h';
  const step = hourly ? HOUR : 24 * HOUR;
  const n = hourly ? 24 : 30;
  const now = Date.now();
  const last = hourly ? Math.floor(now / HOUR) * HOUR : Math.floor(now / (24 * HOUR)) * 24 * HOUR;
  const points = [];
  for (let k = n - 1; k >= 0; k--) {
    const at = last - k * step;
    const wave = (Math.sin(at / step) + 1) * (hourly ? 20 : 300);
    points.push({
      at: new Date(at).toISOString(), geocoded: Math.round(wave) + 5, errors: (at / step) % 7 === 0 ? 2 : 0, llm_needed: Math.round(wave / 10),
      manual: 0, provider_calls: 0, provider_errors: 0,
    });
  }
  return { range, bucket: hourly ? 'hour' : 'day', points, provider: { provider: 'geoapify', enabled: false, min_delay_s: 0.22, limit_per_bucket: Math.floor((hourly ? 3600 : 86400) / 0.22) } };
}
function llmChart(days) {
  const dayOf = (iso) => `${iso.slice(0, 10)}T00:00:00Z`;
  const since = Date.now() - days * 24 * HOUR;
  const groups = new Map();
  for (const c of state.llm.filter((x) => new Date(x.created_at).getTime() >= since)) {
    const key = `${dayOf(c.created_at)}|${c.model}`;
    const g = groups.get(key) || { day: dayOf(c.created_at), model: c.model, calls: 0, cost_usd: null, prompt_tokens: 0, completion_tokens: 0 };
    g.calls += 1;
    if (c.cost_usd !== null) g.cost_usd = (g.cost_usd || 0) + c.cost_usd;
    g.prompt_tokens += c.prompt_tokens;
    g.completion_tokens += c.completion_tokens;
    groups.set(key, g);
  }
  const items = [...groups.values()].sort((a, b) => (a.day + a.model < b.day + b.model ? -1 : 1));
  const primary = 'llama-3.3-70b-versatile';
  const fallback = 'llama-3.1-8b-instant';
  const n = (m) => items.filter((i) => i.model === m).reduce((s, i) => s + i.calls, 0);
  const both = n(primary) + n(fallback);
  const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
  const inMonth = state.llm.filter((c) => new Date(c.created_at) >= month);
  return {
    days, primary_model: primary, fallback_model: fallback, items,
    cache_hits: [{ day: dayOf(new Date().toISOString()), hits: 3 }],
    fallback_share: both ? n(fallback) / both : null,
    month: { since: month.toISOString(), calls: inMonth.length, cost_usd: inMonth.reduce((s, c) => s + (c.cost_usd || 0), 0), tokens: inMonth.reduce((s, c) => s + c.prompt_tokens + c.completion_tokens, 0), cache_hits: 3 },
  };
}
const GAZETTEER = [
  ...CITIES.map(([name, country, lat, lon], k) => ({ name, country, lat, lon, population: 100000 * (k + 1), admin1: null })),
  { name: 'Bergen', country: 'Netherlands', lat: 52.66917, lon: 4.70417, population: 29715, admin1: 'North Holland' },
  { name: 'Tilburg', country: 'Netherlands', lat: 51.5555, lon: 5.0913, population: 199613, admin1: 'North Brabant' },
];
function candidates(text, country) {
  const name = text.split(',')[0].replace(/\(.*?\)/g, '').trim();
  const code = (c) => (c || '').slice(0, 2).toUpperCase();
  const want = country ? code(country) : null;
  const items = GAZETTEER.filter((g) => g.name.toLowerCase() === name.toLowerCase())
    .map((g, k) => ({ geonameid: 9000 + k, name: g.name, admin1: g.admin1, country_code: code(g.country), lat: g.lat, lon: g.lon, population: g.population, in_region: false }))
    .sort((a, b) => ((a.country_code === want ? 0 : 1) - (b.country_code === want ? 0 : 1)) || b.population - a.population);
  return { name, country_code: want, available: true, items };
}

// ---------- helpers ----------
function send(res, status, body, headers = {}) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(payload);
}
const err = (res, status, code, message, headers) => send(res, status, { error: { code, message } }, headers);
function page(items, q) {
  const limit = Math.min(500, Number(q.get('limit') || 50));
  const offset = Number(q.get('offset') || 0);
  return { items: items.slice(offset, offset + limit), total: items.length, limit, offset };
}
const has = (hay, needle) => String(hay ?? '').toLowerCase().includes(String(needle).toLowerCase());
const boolQ = (q, k) => (q.has(k) && q.get(k) !== '' ? ['true', '1'].includes(q.get(k)) : null);
async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const t = Buffer.concat(chunks).toString();
  return t ? JSON.parse(t) : {};
}
function authed(req) {
  return /(?:^|;\s*)bandmap_session=ok/.test(req.headers.cookie || '');
}

// /embed (issue 28): the map page as the real server shapes it (crates/api/src/pages/map_page.rs),
// reduced to what the browser tests look at: the classes hiding the controls, the stylesheet,
// the credit line linking back.
function serveEmbed(res) {
  fs.readFile(path.join(WEB, 'map/index.html'), 'utf8', (e, page) => {
    if (e) return err(res, 404, 'not_found', 'not found');
    const html = page
      .replace('<html lang="fr">', '<html lang="fr" class="embed embed-no-search embed-no-filters embed-no-timeline">')
      .replace('</head>', '<link rel="stylesheet" href="/map/embed.css"></head>')
      .replace(/<\/body>(?![\s\S]*<\/body>)/, '<p class="embed-credit"><a href="/" target="_blank" rel="noopener">Band Map — voir la carte complète ↗</a></p></body>');
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.end(html);
  });
}

function serveStatic(req, res, pathname) {
  let rel;
  if (pathname === '/embed') return serveEmbed(res);
  if (pathname === '/' || pathname === '/index.html') rel = 'map/index.html';
  else if (pathname === '/admin' || pathname === '/admin/') rel = 'admin/index.html';
  else if (pathname === '/favicon.svg') rel = 'favicon.svg';
  else if (/^\/(map|lib|vendor|admin)\//.test(pathname)) rel = pathname.slice(1);
  else return err(res, 404, 'not_found', 'not found');
  const file = path.resolve(WEB, rel);
  if (!file.startsWith(WEB + path.sep)) return err(res, 404, 'not_found', 'not found');
  fs.readFile(file, (e, buf) => {
    if (e) return err(res, 404, 'not_found', 'not found');
    const headers = { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-cache' };
    // The admin page gets the real server's policy (crates/api/src/security_headers.rs), so the
    // tests' CSP watch means something against the mock too.
    if (rel === 'admin/index.html') headers['Content-Security-Policy'] = ADMIN_CSP;
    res.writeHead(200, headers);
    // The real server adds the "Intégrer" dialog to the map page (issue 28).
    if (rel === 'map/index.html') {
      res.end(buf.toString('utf8').replace('</head>',
        '<link rel="stylesheet" href="/map/share.css"><script type="module" src="/map/share.js"></script></head>'));
      return;
    }
    res.end(buf);
  });
}

function clusters(q) {
  const bbox = (q.get('bbox') || '-180,-90,180,90').split(',').map(Number);
  const zoom = Number(q.get('zoom') ?? 3);
  if (bbox.length !== 4 || bbox.some((n) => !Number.isFinite(n))) return null;
  const [minLon, minLat, maxLon, maxLat] = bbox;
  const families = familyList(q);
  if (families.some((f) => !FAMILY_NAMES.includes(f))) return null;
  const breakdown = q.get('breakdown') === 'families';
  const byId = new Map(state.bands.map((b) => [b.ma_id, b]));
  const pts = [];
  for (const l of state.locations) {
    if (l.status !== 'done' && l.status !== 'country_only') continue;
    const b = byId.get(l.ma_id);
    if (q.get('genre') && !has(b.genre, q.get('genre'))) continue;
    if (q.get('country') && String(b.country).toLowerCase() !== q.get('country').toLowerCase()) continue;
    if (q.get('status') && String(b.status).toLowerCase() !== q.get('status').toLowerCase()) continue;
    if (q.get('year_min') && b.formed_year < Number(q.get('year_min'))) continue;
    if (q.get('year_max') && b.formed_year > Number(q.get('year_max'))) continue;
    if (families.length && !families.includes(familyOf(b))) continue;
    if (l.lon < minLon || l.lon > maxLon || l.lat < minLat || l.lat > maxLat) continue;
    pts.push({ l, b });
  }
  const feature = (lon, lat, props) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: props });
  const point = ({ l, b }) => feature(l.lon, l.lat, {
    cluster: false, ma_id: b.ma_id, name: b.name, genre: b.genre, country: b.country, status: b.status, formed_year: b.formed_year,
    location_id: l.id, location_raw: l.location_raw, step_label: l.step_label, step_order: l.step_order,
    ...(breakdown ? { family: familyOf(b) } : {}),
  });
  if (zoom >= 17) return { type: 'FeatureCollection', features: pts.map(point) };
  const cell = (360 / (256 * 2 ** zoom)) * 60;
  const cells = new Map();
  for (const p of pts) {
    const k = `${Math.floor(p.l.lon / cell)}:${Math.floor(p.l.lat / cell)}`;
    if (!cells.has(k)) cells.set(k, []);
    cells.get(k).push(p);
  }
  const features = [];
  for (const group of cells.values()) {
    if (group.length === 1) features.push(point(group[0]));
    else {
      const lon = group.reduce((s, p) => s + p.l.lon, 0) / group.length;
      const lat = group.reduce((s, p) => s + p.l.lat, 0) / group.length;
      const mix = {};
      for (const f of FAMILY_NAMES) {
        const n = group.filter((p) => familyOf(p.b) === f).length;
        if (n) mix[f] = n;
      }
      features.push(feature(lon, lat, {
        cluster: true, count: group.length, expansion_zoom: Math.min(17, zoom + 2), ...(breakdown ? { families: mix } : {}),
      }));
    }
  }
  return { type: 'FeatureCollection', features };
}

// The job types of the real server's OpenAPI document (schema of the job request body).
const MOCK_JOB_SERVICES = { incremental: 'crawler', enrich: 'crawler', full_crawl: 'crawler', geocoder_enqueue: 'enqueue' };

function openapi() {
  const jobType = { type: 'string', enum: Object.keys(MOCK_JOB_SERVICES), 'x-job-services': MOCK_JOB_SERVICES };
  return { openapi: '3.1.0', paths: {}, components: { schemas: { NewTrigger: { type: 'object', required: ['job_type'], properties: { job_type: jobType } } } } };
}

// GeoNames countryInfo populations of the mock's countries (the real server reads
// data/gazetteer/countries.tsv).
const POPULATIONS = {
  Norway: ['NO', 578, 5314336], Sweden: ['SE', 752, 10183175], Finland: ['FI', 246, 5518050], Germany: ['DE', 276, 82927922],
  France: ['FR', 250, 66987244], Poland: ['PL', 616, 37978548], 'United Kingdom': ['GB', 826, 66488991], Greece: ['GR', 300, 10727668],
  Spain: ['ES', 724, 46723749], Italy: ['IT', 380, 60431283], Czechia: ['CZ', 203, 10625695], Netherlands: ['NL', 528, 17231017],
};

/** GET /api/countries: the catalogue's bands per country under the map's filters and the
 *  genre families (`family=`, as /api/clusters; the caller rejects unknown names). */
function countryDensities(q) {
  const families = familyList(q);
  const counts = new Map();
  for (const b of state.bands) {
    if (families.length && !families.includes(familyOf(b))) continue;
    if (q.get('genre') && !has(b.genre, q.get('genre'))) continue;
    const pop = POPULATIONS[b.country];
    if (q.get('country') && ![b.country, pop?.[0]].some((c) => String(c).toLowerCase() === q.get('country').toLowerCase())) continue;
    if (q.get('status') && String(b.status).toLowerCase() !== q.get('status').toLowerCase()) continue;
    if (q.get('year_min') && !(b.formed_year >= Number(q.get('year_min')))) continue;
    if (q.get('year_max') && !(b.formed_year <= Number(q.get('year_max')))) continue;
    counts.set(b.country, (counts.get(b.country) || 0) + 1);
  }
  return [...counts].map(([country, bands]) => {
    const [cc, iso, population] = POPULATIONS[country] || [country.slice(0, 2).toUpperCase(), null, null];
    const per100k = population ? Math.round((bands * 1e5 / population) * 1e4) / 1e4 : null;
    return { country_code: cc, country, iso_numeric: iso, bands, population, per_100k: per100k };
  }).sort((a, b) => a.country_code.localeCompare(b.country_code));
}

// Heartbeat rows as the services write them: each check is {"ok": true, "detail": …}
// or {"ok": false, "error": "why"} (crates/health).
function health() {
  const now = Date.now();
  const rows = [
    { service: 'geocoder', state: 'degraded', instance: 'geo-1', checks: {
      database: { ok: true, detail: 'ok' }, provider_key: { ok: false, error: 'GEOCODING_API_KEY missing' }, provider_reachable: { ok: true, detail: 'disabled: GEOCODING_API_KEY missing' },
      progress: { ok: true, detail: { pending: 6, last_finished: new Date(now - 1200e3).toISOString(), started_within_window: false } },
      gazetteer: { ok: true, detail: '48211 places' },
    }, last_write_at: new Date(now - 3 * 3600e3).toISOString(), stale: true },
    { service: 'enqueue', state: 'ok', instance: 'enq-1', checks: { database: { ok: true, detail: 'ok' }, last_scan: { ok: true, detail: { last_success_age_s: 3555 } } }, last_write_at: new Date(now - 600e3).toISOString(), stale: false },
    { service: 'llm', state: 'degraded', instance: 'llm-1', checks: {
      database: { ok: true, detail: 'ok' }, api_key: { ok: false, error: 'LLM_API_KEY is not set: the LLM worker idles' },
      api: { ok: false, error: 'not checked: LLM_API_KEY is not set: the LLM worker idles' }, progress: { ok: true, detail: { due: 0, calls_last_6h: false } },
    }, last_write_at: new Date(now - 120e3).toISOString(), stale: false },
  ];
  if (state.crawlerAlive) rows.unshift({ service: 'crawler', state: 'ok', instance: 'crawler-1', checks: { database: { ok: true, detail: 'ok' }, challenge_solver: { ok: true, detail: 'reachable (recorded)' }, last_run: { ok: true, detail: { run_id: 39, status: 'success', age_hours: 0.988191913611113 } } }, last_write_at: new Date(now - 900e3).toISOString(), stale: false });
  return rows;
}

// Per-model totals of the LLM calls, as GET /admin/api/geocoding sums them.
function llmModels() {
  const by = new Map();
  for (const c of state.llm) {
    const m = by.get(c.model) || { model: c.model, calls: 0, city_null: 0, cost_usd: null, prompt_tokens: 0, completion_tokens: 0 };
    m.calls += 1;
    if (c.extraction?.city === null) m.city_null += 1;
    if (c.cost_usd !== null) m.cost_usd = (m.cost_usd || 0) + c.cost_usd;
    m.prompt_tokens += c.prompt_tokens;
    m.completion_tokens += c.completion_tokens;
    by.set(c.model, m);
  }
  return [...by.values()];
}

function byStatus() {
  const o = { pending: 0, processing: 0, done: 0, country_only: 0, llm_needed: 0, manual: 0, error: 0 };
  for (const l of state.locations) o[l.status] = (o[l.status] || 0) + 1;
  return o;
}

// ---------- API ----------
async function handleApi(req, res, url) {
  const q = url.searchParams;
  const p = url.pathname;
  const m = req.method;

  // public
  if (p === '/api/clusters' && m === 'GET') {
    const fc = clusters(q);
    return fc ? send(res, 200, fc) : err(res, 400, 'bad_request', 'malformed bbox or unknown family');
  }
  let mm;
  if ((mm = p.match(/^\/api\/bands\/(\d+)$/)) && m === 'GET') {
    const b = state.bands.find((x) => x.ma_id === Number(mm[1]));
    if (!b) return err(res, 404, 'not_found', 'unknown band');
    // Like the API: every step in order, coordinates only for placed ones; themes, label
    // and years_active only when known.
    const placed = (l) => l.status === 'done' || l.status === 'country_only' || l.status === 'manual';
    const steps = state.locations.filter((l) => l.ma_id === b.ma_id).map((l) => ({
      location_id: l.id, step_order: l.step_order, step_label: l.step_label, location_raw: l.location_raw,
      lat: placed(l) ? l.lat : null, lon: placed(l) ? l.lon : null,
    }));
    const known = Object.fromEntries(['themes', 'label', 'years_active'].filter((k) => b[k]).map((k) => [k, b[k]]));
    return send(res, 200, { ma_id: b.ma_id, name: b.name, genre: b.genre, country: b.country, status: b.status, formed_year: b.formed_year, ...known, url: b.url, steps });
  }
  if (p === '/api/countries' && m === 'GET') {
    if ([...q.values()].some((v) => v.length > 100)) return err(res, 400, 'bad_request', 'filter too long');
    // The real server's text (crates/api/src/public/params.rs, `families`).
    const unknown = familyNames(q).find((f) => !FAMILY_NAMES.includes(f.toLowerCase()));
    if (unknown !== undefined) return err(res, 400, 'bad_request', `family: unknown genre family ${JSON.stringify(unknown)} (known: ${FAMILY_NAMES.join(', ')})`);
    return send(res, 200, { items: countryDensities(q) });
  }
  if (p === '/api/openapi.json' && m === 'GET') return send(res, 200, openapi());
  if (p === '/api/search' && m === 'GET') {
    const s = q.get('q') || '';
    const items = s ? state.bands.filter((b) => has(b.name, s)).slice(0, 20).map((b) => ({ ma_id: b.ma_id, name: b.name, country: b.country, genre: b.genre, lat: b.lat, lon: b.lon })) : [];
    return send(res, 200, { items });
  }

  // auth
  if (p === '/admin/auth/login' && m === 'POST') {
    const body = await readBody(req).catch(() => ({}));
    const key = String(body.username);
    const f = state.failures.get(key) || 0;
    if (f >= 5) return err(res, 429, 'rate_limited', 'too many attempts', { 'Retry-After': '900' });
    if (body.username === MOCK_USER && body.password === MOCK_PASSWORD) {
      state.failures.delete(key);
      return send(res, 200, { username: MOCK_USER }, { 'Set-Cookie': 'bandmap_session=ok; HttpOnly; Secure; SameSite=Strict; Path=/admin; Max-Age=43200' });
    }
    state.failures.set(key, f + 1);
    return err(res, 401, 'unauthorized', 'invalid credentials');
  }
  if (p === '/admin/auth/logout' && m === 'POST') {
    res.writeHead(204, { 'Set-Cookie': 'bandmap_session=; Path=/admin; Max-Age=0' });
    return res.end();
  }
  if (p === '/admin/auth/me') return authed(req) ? send(res, 200, { username: MOCK_USER }) : err(res, 401, 'unauthorized', 'no session');

  if (!p.startsWith('/admin/api/')) return err(res, 404, 'not_found', 'not found');
  if (!authed(req)) return err(res, 401, 'unauthorized', 'no session');
  if (m !== 'GET' && !(req.headers['content-type'] || '').startsWith('application/json')) return err(res, 400, 'bad_request', 'Content-Type must be application/json');
  const body = m === 'GET' ? {} : await readBody(req).catch(() => ({}));
  for (const k of ['limit', 'offset']) if (q.has(k) && !/^\d+$/.test(q.get(k))) return err(res, 400, 'bad_request', `${k} must be a non-negative integer`);
  const route = `${m} ${p.replace(/\/\d+(?=\/|$)/g, '/:id')}`;
  const id = Number((p.match(/\/(\d+)(?:\/|$)/) || [])[1]);

  switch (route) {
    case 'GET /admin/api/health': { const items = health(); return send(res, 200, { items, total: items.length, limit: 50, offset: 0 }); }
    case 'GET /admin/api/live': return send(res, 200, {
      runs: state.runs.filter((r) => r.status === 'running'),
      geocoder: { ...byStatus(), processed_last_hour: 42 },
      pending_jobs: state.jobs.filter((j) => j.status === 'pending'),
      enrich_queue: 17, services: health(),
    });
    case 'GET /admin/api/stats': {
      const count = (f) => Object.entries(state.bands.reduce((o, b) => { for (const k of [].concat(f(b))) o[k] = (o[k] || 0) + 1; return o; }, {})).map(([key, c]) => ({ key, count: c })).sort((a, b) => b.count - a.count);
      return send(res, 200, {
        bands_total: state.bands.length, enriched: state.bands.filter((b) => b.enriched).length, geocoded: state.bands.filter((b) => b.lat !== null).length,
        by_country: count((b) => b.country), by_genre_keyword: count((b) => b.genre.replace(/ Metal$/, '').split('/')), by_status: count((b) => b.status),
      });
    }
    case 'GET /admin/api/queue': return send(res, 200, { total: 17, by_priority: { enrich_pending: 5, updated_since_crawl: 2, never_enriched: 10 }, next: state.bands.slice(0, 5).map((b) => ({ ma_id: b.ma_id, name: b.name })) });
    case 'POST /admin/api/job-triggers': {
      if (!Object.keys(MOCK_JOB_SERVICES).includes(body.job_type)) return err(res, 400, 'bad_request', 'bad job_type');
      const j = { id: state.nextJobId++, job_type: body.job_type, status: 'pending', created_at: new Date().toISOString(), created_by: MOCK_USER, claimed_at: null, finished_at: null, run_id: null, error: null, followed: Date.now() };
      state.jobs.push(j);
      return send(res, 201, { id: j.id });
    }
    case 'GET /admin/api/job-triggers': {
      const st = q.get('status');
      const items = state.jobs.filter((j) => !st || j.status === st).slice().sort((a, b) => b.id - a.id);
      return send(res, 200, page(items, q));
    }
    case 'POST /admin/api/job-triggers/:id/cancel': {
      const j = state.jobs.find((x) => x.id === id);
      if (!j) return err(res, 404, 'not_found', 'unknown trigger');
      if (j.status !== 'pending') return err(res, 409, 'conflict', 'not pending');
      j.status = 'cancelled';
      return send(res, 200, { id });
    }
    case 'POST /admin/api/crawl-runs/:id/cancel': {
      const r = state.runs.find((x) => x.id === id);
      if (!r) return err(res, 404, 'not_found', 'unknown run');
      if (r.status !== 'running') return err(res, 409, 'conflict', 'not running');
      r.cancel_requested = true;
      return send(res, 200, { id });
    }
    case 'POST /admin/api/crawl-runs/cleanup': return send(res, 200, { closed: 0 });
    case 'GET /admin/api/crawl-checkpoints': return send(res, 200, { items: [{ key: 'last_full_crawl_at', value: '2026-10-01T03:00:00Z', updated_at: '2026-10-01T03:00:00Z' }, { key: 'last_created_check', value: '2026-11-02T10:00:00Z', updated_at: '2026-11-02T10:00:00Z' }], total: 2, limit: 50, offset: 0 });
    case 'GET /admin/api/bands': {
      let items = state.bands.filter((b) => {
        if (q.get('q') && !(has(b.name, q.get('q')) || String(b.ma_id) === q.get('q'))) return false;
        if (q.get('location_q') && !has(b.location_text, q.get('location_q'))) return false;
        if (q.get('themes_q') && !has(b.themes, q.get('themes_q'))) return false;
        if (q.get('genre') && !has(b.genre, q.get('genre'))) return false;
        if (q.get('country') && b.country.toLowerCase() !== q.get('country').toLowerCase()) return false;
        if (q.get('status') && b.status.toLowerCase() !== q.get('status').toLowerCase()) return false;
        const hc = boolQ(q, 'has_conflict');
        if (hc !== null && hc !== Object.keys(b.crawler_pending).length > 0) return false;
        const hl = boolQ(q, 'has_lat');
        if (hl !== null && hl !== (b.lat !== null)) return false;
        return true;
      });
      const sort = q.get('sort') || 'name';
      const desc = sort.startsWith('-');
      const key = sort.replace(/^-/, '');
      if (!['name', 'ma_id', 'country', 'formed_year', 'updated_at'].includes(key)) return err(res, 400, 'bad_request', 'bad sort');
      items = [...items].sort((a, b) => (a[key] > b[key] ? 1 : a[key] < b[key] ? -1 : 0) * (desc ? -1 : 1));
      return send(res, 200, page(items.map((b) => ({ ...b, locked: b.locked_fields.length > 0, has_conflict: Object.keys(b.crawler_pending).length > 0 })), q));
    }
    case 'GET /admin/api/bands/:id': {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      return send(res, 200, { band: b, locations: state.locations.filter((l) => l.ma_id === id), llm_calls: state.llm.filter((c) => c.ma_id === id) });
    }
    case 'PATCH /admin/api/bands/:id': {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      for (const k of Object.keys(body)) if (!['name', 'genre', 'themes', 'status', 'country', 'location_text', 'formed_year'].includes(k)) return err(res, 400, 'bad_request', `unknown field ${k}`);
      const before = {};
      for (const [k, v] of Object.entries(body)) {
        before[k] = b[k];
        b[k] = v;
        if (!b.locked_fields.includes(k)) b.locked_fields.push(k);
        delete b.crawler_pending[k];
      }
      state.audit.unshift({ id: state.audit.length + 10, at: new Date().toISOString(), username: MOCK_USER, action: 'band.patch', target: `band:${id}`, before, after: body });
      return send(res, 200, b);
    }
    case 'POST /admin/api/bands/:id/resolve-conflict': {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      if (!(body.field in b.crawler_pending)) return err(res, 409, 'conflict', 'no pending conflict');
      const before = { [body.field]: b[body.field], locked_fields: [...b.locked_fields], crawler_pending: { ...b.crawler_pending } };
      if (body.action === 'accept') {
        b[body.field] = b.crawler_pending[body.field];
        b.locked_fields = b.locked_fields.filter((f) => f !== body.field);
      }
      delete b.crawler_pending[body.field];
      audit(`band.resolve_conflict.${body.action}`, `band:${id}`, before, { [body.field]: b[body.field], locked_fields: [...b.locked_fields], crawler_pending: { ...b.crawler_pending } });
      return send(res, 200, b);
    }
    case 'POST /admin/api/bands/:id/unlock': {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      if (!body || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((k) => k !== 'field')) return err(res, 400, 'bad_request', 'invalid body');
      if (!EDITABLE_FIELDS.includes(body.field)) return err(res, 400, 'bad_request', `field must be one of: ${EDITABLE_FIELDS.join(', ')}`);
      if (!b.locked_fields.includes(body.field)) return err(res, 409, 'conflict', `field ${body.field} of band ${id} is not locked`);
      if (body.field in b.crawler_pending) return err(res, 409, 'conflict', `field ${body.field} of band ${id} has a pending conflict: resolve it (accept unlocks it)`);
      const before = { locked_fields: [...b.locked_fields], enrich_pending: b.enrich_pending };
      b.locked_fields = b.locked_fields.filter((f) => f !== body.field);
      b.enrich_pending = true;
      audit('band.unlock', `band:${id}`, before, { locked_fields: [...b.locked_fields], enrich_pending: true });
      return send(res, 200, b);
    }
    case 'GET /admin/api/bands/:id/history': {
      if (!state.bands.some((x) => x.ma_id === id)) return err(res, 404, 'not_found', 'unknown band');
      const targets = new Set([`band:${id}`, ...state.locations.filter((l) => l.ma_id === id).map((l) => `location:${l.id}`)]);
      return send(res, 200, page(state.audit.filter((a) => targets.has(a.target)), q));
    }
    case 'GET /admin/api/job-triggers/:id': {
      const j = state.jobs.find((x) => x.id === id);
      if (!j) return err(res, 404, 'not_found', `no job request ${id}`);
      return send(res, 200, followJob(j));
    }
    case 'GET /admin/api/charts/geocoding': {
      const range = q.get('range') || '24h';
      if (!['24h', '30d'].includes(range)) return err(res, 400, 'bad_request', 'range must be one of: 24h, 30d');
      return send(res, 200, geocodingChart(range));
    }
    case 'GET /admin/api/charts/llm': {
      const days = q.has('days') && q.get('days') !== '' ? Number(q.get('days')) : 30;
      if (!Number.isInteger(days) || days < 1 || days > 90) return err(res, 400, 'bad_request', 'days must be between 1 and 90');
      return send(res, 200, llmChart(days));
    }
    case 'GET /admin/api/gazetteer/candidates': {
      const text = (q.get('q') || '').trim();
      if (!text) return err(res, 400, 'bad_request', 'q (the location text) is required');
      return send(res, 200, candidates(text, q.get('country')));
    }
    case 'GET /admin/api/locations': {
      const items = state.locations.filter((l) => (!q.get('status') || l.status === q.get('status'))
        && (!q.get('place') || has(l.location_raw, q.get('place')))
        && (!q.get('band') || has(l.band_name, q.get('band')) || String(l.ma_id) === q.get('band'))
        && (!q.get('country') || l.country.toLowerCase() === q.get('country').toLowerCase()));
      return send(res, 200, page(items, q));
    }
    case 'POST /admin/api/locations/:id/requeue': {
      const l = state.locations.find((x) => x.id === id);
      if (!l) return err(res, 404, 'not_found', 'unknown location');
      l.status = 'pending';
      return send(res, 200, { affected: 1 });
    }
    case 'PATCH /admin/api/locations/:id': {
      const l = state.locations.find((x) => x.id === id);
      if (!l) return err(res, 404, 'not_found', 'unknown location');
      const { lat, lon } = body;
      if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return err(res, 400, 'bad_request', 'invalid coordinates');
      const before = { status: l.status, lat: l.lat, lon: l.lon, provider: l.provider };
      Object.assign(l, { lat, lon, status: 'done', step_order: -1, provider: 'manual', confidence: 1 });
      audit('location.patch', `location:${id}`, before, { status: l.status, lat, lon, provider: 'manual' });
      return send(res, 200, l);
    }
    case 'POST /admin/api/locations/reset-errors': return send(res, 200, { affected: state.locations.filter((l) => l.status === 'error').length });
    case 'POST /admin/api/locations/reset-llm': return send(res, 200, { affected: 3 });
    case 'POST /admin/api/locations/requeue-all': return send(res, 200, { affected: state.locations.length });
    case 'POST /admin/api/locations/reset-all': return send(res, 200, { affected: state.locations.length });
    case 'POST /admin/api/geocode-cache/purge-legacy-provider': return send(res, 200, { deleted: 0 });
    case 'GET /admin/api/geocoding': return send(res, 200, {
      by_status: byStatus(), providers: [{ provider: 'geoapify', count: 40, avg_confidence: 0.91 }, { provider: 'llm+geoapify', count: 2, avg_confidence: null }],
      llm_models: llmModels(),
      cache: { entries: 123 },
    });
    case 'GET /admin/api/llm': {
      const cn = boolQ(q, 'city_null');
      const items = state.llm.filter((c) => (!q.get('model') || c.model === q.get('model')) && (!q.get('ma_id') || String(c.ma_id) === q.get('ma_id'))
        && (cn === null || cn === (c.extraction.city === null)) && (!q.get('q') || has(c.location_raw, q.get('q'))));
      return send(res, 200, { ...page(items, q), totals: { calls: items.length, cost_usd: items.reduce((s, c) => s + (c.cost_usd || 0), 0) } });
    }
    case 'GET /admin/api/activity': {
      const runs = state.runs.map((r) => ({ kind: 'run', id: r.id, type: r.type, status: r.status, started_at: r.started_at, finished_at: r.finished_at, stats: r.stats, error: r.error, _t: r.started_at }));
      const admin = state.audit.map((a) => ({ kind: 'admin', ...a, _t: a.at }));
      let items = [...runs, ...admin].sort((a, b) => (a._t < b._t ? 1 : -1));
      if (q.get('kind')) items = items.filter((e) => e.kind === q.get('kind'));
      return send(res, 200, page(items.map(({ _t, ...e }) => e), q));
    }
    case 'GET /admin/api/logs': {
      let items = state.logs;
      if (q.get('run_id')) items = items.filter((l) => l.run_id === Number(q.get('run_id')));
      if (q.get('level')) {
        if (!['debug', 'info', 'warn', 'error'].includes(q.get('level').toLowerCase())) return err(res, 400, 'bad_request', 'level must be one of: debug, info, warn, error');
        items = items.filter((l) => l.level === q.get('level').toLowerCase());
      }
      if (q.has('min_id')) items = items.filter((l) => l.id > Number(q.get('min_id')));
      else items = [...items].reverse();
      return send(res, 200, page(items, q));
    }
    default: return err(res, 404, 'not_found', `no route ${m} ${p}`);
  }
}

export function startMockServer({ port = 0, host = '127.0.0.1' } = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    const isApi = p.startsWith('/api/') || p.startsWith('/admin/api/') || p.startsWith('/admin/auth/');
    (isApi ? handleApi(req, res, url) : Promise.resolve(serveStatic(req, res, p))).catch((e) => {
      console.error(e);
      err(res, 500, 'internal', 'internal error');
    });
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const { port: p } = server.address();
      resolve({ url: `http://${host}:${p}`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }), state });
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startMockServer({ port: Number(process.env.PORT || 8090) });
  console.log(`mock Band Map server on ${url}  (admin: ${MOCK_USER} / ${MOCK_PASSWORD})`);
}
