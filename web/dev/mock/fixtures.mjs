// The mock's data: a fixture catalogue (bands, their located steps, LLM calls) and the
// state one mock server changes as the console acts on it (runs, job requests, audit,
// logs, login failures). Each server has its own state (`createState`), so tests that
// start their own mock never see another's changes.
/** An hour in milliseconds (the charts' buckets). */
export const HOUR = 3600e3;
export const MOCK_USER = 'admin';
export const MOCK_PASSWORD = 'admin-password';
export const XSS_NAME = '<img src=x onerror=alert(1)>';

export const CITIES = [
  ['Oslo', 'Norway', 59.91, 10.75], ['Bergen', 'Norway', 60.39, 5.32], ['Stockholm', 'Sweden', 59.33, 18.07],
  ['Gothenburg', 'Sweden', 57.71, 11.97], ['Helsinki', 'Finland', 60.17, 24.94], ['Tampere', 'Finland', 61.5, 23.76],
  ['Berlin', 'Germany', 52.52, 13.4], ['Essen', 'Germany', 51.46, 7.01], ['Paris', 'France', 48.86, 2.35],
  ['Lyon', 'France', 45.76, 4.84], ['Warsaw', 'Poland', 52.23, 21.01], ['Kraków', 'Poland', 50.06, 19.94],
  ['London', 'United Kingdom', 51.51, -0.13], ['Birmingham', 'United Kingdom', 52.49, -1.9], ['Athens', 'Greece', 37.98, 23.73],
  ['Madrid', 'Spain', 40.42, -3.7], ['Rome', 'Italy', 41.9, 12.5], ['Prague', 'Czechia', 50.08, 14.44],
];
export const GENRES = ['Black Metal', 'Death Metal', 'Black/Death Metal', 'Doom Metal', 'Thrash Metal', 'Heavy Metal', 'Progressive Death Metal'];
export const STATUSES = ['Active', 'Split-up', 'On hold'];
// The genre family the real server derives for each genre of this fixture
// (crates/index/src/map/family.rs; checked there by `the_documented_examples`). A fixture
// table, not the rule: the mock never guesses a family.
export const FAMILY_OF_GENRE = {
  'Black Metal': 'black', 'Death Metal': 'death', 'Black/Death Metal': 'black', 'Doom Metal': 'doom',
  'Thrash Metal': 'thrash', 'Heavy Metal': 'heavy', 'Progressive Death Metal': 'death', 'Atmospheric Black Metal': 'black',
};
export const FAMILY_NAMES = ['black', 'death', 'doom', 'thrash', 'heavy', 'progressive', 'folk', 'gothic', 'grind', 'other'];
export const familyOf = (b) => FAMILY_OF_GENRE[b.genre] ?? 'other';
/** The `family=` names of a query, as written (trimmed, blanks dropped). */
export const familyNames = (q) => (q.get('family') || '').split(',').map((f) => f.trim()).filter(Boolean);
/** The `family=` list of a query (lower-cased, blanks dropped). */
export const familyList = (q) => familyNames(q).map((f) => f.toLowerCase());
export const GEO_STATUSES = ['done', 'done', 'done', 'done', 'country_only', 'error', 'llm_needed', 'pending', 'manual'];

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

/** A fresh state for one mock server: the fixture catalogue and the console's lists. */
export function createState() {
  const state = {
    ...makeData(),
    runs: [
      { id: 41, type: 'full_crawl', status: 'running', cancel_requested: false, started_at: new Date(Date.now() - 600e3).toISOString(), finished_at: null, updated_at: new Date().toISOString(), stats: { countries_total: 40, countries_done: 12, country_index: 13, country_code: 'FI', pages: 310, bands_seen: 12000, failed: 2, months: null }, error: null },
      { id: 40, type: 'incremental', status: 'error', cancel_requested: false, started_at: new Date(Date.now() - 86400e3).toISOString(), finished_at: new Date(Date.now() - 86000e3).toISOString(), updated_at: new Date(Date.now() - 86000e3).toISOString(), stats: { processed: 10 }, error: 'scraped: <script>alert("x")</script> Just a moment...' },
      { id: 39, type: 'geocoder_enqueue', status: 'success', cancel_requested: false, started_at: new Date(Date.now() - 90000e3).toISOString(), finished_at: new Date(Date.now() - 89000e3).toISOString(), updated_at: new Date(Date.now() - 89000e3).toISOString(), stats: { inserted: 12, failed: 0, country_code: null, months: null }, error: null },
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
  // A running run writes a line every 2 s (the live monitor's food); `stop()` ends it.
  const ticker = setInterval(() => {
    const id = state.logs.length + 1;
    state.logs.push({ id, run_id: 41, at: new Date().toISOString(), level: id % 5 === 0 ? 'warn' : 'info', message: `tick ${id}` });
  }, 2000);
  ticker.unref();
  state.stop = () => clearInterval(ticker);
  return state;
}

/** The band fields an admin may edit (PATCH, unlock). */
export const EDITABLE_FIELDS = ['name', 'genre', 'themes', 'status', 'country', 'location_text', 'formed_year'];
/** Records an admin action in the audit log the Journal and the band history read. */
export function audit(state, action, target, before, after) {
  state.audit.unshift({ id: 100 + state.audit.length, at: new Date().toISOString(), username: MOCK_USER, action, target, before, after });
}
/** A band as the admin API sends it: whether it has locked fields, a pending conflict. */
export const adminBand = (b) => ({ ...b, locked: b.locked_fields.length > 0, has_conflict: Object.keys(b.crawler_pending).length > 0 });

/** Location rows per geocoding status. */
export function byStatus(state) {
  const o = { pending: 0, processing: 0, done: 0, country_only: 0, llm_needed: 0, manual: 0, error: 0 };
  for (const l of state.locations) o[l.status] = (o[l.status] || 0) + 1;
  return o;
}

// The job types of the real server's OpenAPI document (schema of the job request body).
export const MOCK_JOB_SERVICES = { incremental: 'crawler', enrich: 'crawler', full_crawl: 'crawler', geocoder_enqueue: 'enqueue' };
