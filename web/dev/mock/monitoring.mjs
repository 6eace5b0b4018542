// Admin API, what Pilotage and the Journal read (CONTRACT §7): heartbeats, the live
// summary, statistics, the enrichment queue, checkpoints, activity, logs, the geocoding
// chart.
import { send, err, page } from './respond.mjs';
import { HOUR, byStatus } from './fixtures.mjs';

// Heartbeat rows as the services write them: each check is {"ok": true, "detail": …}
// or {"ok": false, "error": "why"} (crates/health).
export function health(state) {
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

export const routes = [
  {
    method: 'GET', path: '/admin/api/health',
    handle: ({ state, res }) => {
      const items = health(state);
      return send(res, 200, { items, total: items.length, limit: 50, offset: 0 });
    },
  },
  { method: 'GET', path: '/admin/api/live', handle: ({ state, res }) => send(res, 200, {
    runs: state.runs.filter((r) => r.status === 'running'),
    geocoder: { ...byStatus(state), processed_last_hour: 42 },
    pending_jobs: state.jobs.filter((j) => j.status === 'pending'),
    enrich_queue: 17, services: health(state),
  }) },
  {
    method: 'GET', path: '/admin/api/stats',
    handle: ({ state, res }) => {
      const count = (f) => Object.entries(state.bands.reduce((o, b) => { for (const k of [].concat(f(b))) o[k] = (o[k] || 0) + 1; return o; }, {})).map(([key, c]) => ({ key, count: c })).sort((a, b) => b.count - a.count);
      return send(res, 200, {
        bands_total: state.bands.length, enriched: state.bands.filter((b) => b.enriched).length, geocoded: state.bands.filter((b) => b.lat !== null).length,
        by_country: count((b) => b.country), by_genre_keyword: count((b) => b.genre.replace(/ Metal$/, '').split('/')), by_status: count((b) => b.status),
      });
    },
  },
  { method: 'GET', path: '/admin/api/queue', handle: ({ state, res }) => send(res, 200, { total: 17, by_priority: { enrich_pending: 5, updated_since_crawl: 2, never_enriched: 10 }, next: state.bands.slice(0, 5).map((b) => ({ ma_id: b.ma_id, name: b.name, priority: 'never_enriched' })) }) },
  { method: 'GET', path: '/admin/api/crawl-checkpoints', handle: ({ res }) => send(res, 200, { items: [{ key: 'last_full_crawl_at', value: '2026-10-01T03:00:00Z', updated_at: '2026-10-01T03:00:00Z' }, { key: 'last_created_check', value: '2026-11-02T10:00:00Z', updated_at: '2026-11-02T10:00:00Z' }], total: 2, limit: 50, offset: 0 }) },
  {
    method: 'GET', path: '/admin/api/charts/geocoding',
    handle: ({ res, q }) => {
      const range = q.get('range') || '24h';
      if (!['24h', '30d'].includes(range)) return err(res, 400, 'bad_request', 'range must be one of: 24h, 30d');
      return send(res, 200, geocodingChart(range));
    },
  },
  {
    method: 'GET', path: '/admin/api/activity',
    handle: ({ state, res, q, id }) => {
      const runs = state.runs.map((r) => ({ kind: 'run', id: r.id, type: r.type, status: r.status, started_at: r.started_at, finished_at: r.finished_at, stats: r.stats, error: r.error, _t: r.started_at }));
      const admin = state.audit.map((a) => ({ kind: 'admin', ...a, _t: a.at }));
      let items = [...runs, ...admin].sort((a, b) => (a._t < b._t ? 1 : -1));
      if (q.get('kind')) items = items.filter((e) => e.kind === q.get('kind'));
      return send(res, 200, page(items.map(({ _t, ...e }) => e), q));
    },
  },
  {
    method: 'GET', path: '/admin/api/logs',
    handle: ({ state, res, q }) => {
      let items = state.logs;
      if (q.get('run_id')) items = items.filter((l) => l.run_id === Number(q.get('run_id')));
      if (q.get('level')) {
        if (!['debug', 'info', 'warn', 'error'].includes(q.get('level').toLowerCase())) return err(res, 400, 'bad_request', 'level must be one of: debug, info, warn, error');
        items = items.filter((l) => l.level === q.get('level').toLowerCase());
      }
      if (q.has('min_id')) items = items.filter((l) => l.id > Number(q.get('min_id')));
      else items = [...items].reverse();
      return send(res, 200, page(items, q));
    },
  },
];
