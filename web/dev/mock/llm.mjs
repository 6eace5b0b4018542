// Admin API, LLM calls (CONTRACT §6): the call list with totals, the per-day chart, the
// per-model totals the geocoding summary shows.
import { send, err, page, has, boolQ } from './respond.mjs';
import { HOUR } from './fixtures.mjs';

// Per-model totals of the LLM calls, as GET /admin/api/geocoding sums them.
export function llmModels(state) {
  const by = new Map();
  for (const c of state.llm) {
    const m = by.get(c.model) || { model: c.model, calls: 0, city_null: 0, malformed: 0, cost_usd: null, prompt_tokens: 0, completion_tokens: 0 };
    m.calls += 1;
    if (c.extraction?.city === null) m.city_null += 1;
    if (c.cost_usd !== null) m.cost_usd = (m.cost_usd || 0) + c.cost_usd;
    m.prompt_tokens += c.prompt_tokens;
    m.completion_tokens += c.completion_tokens;
    by.set(c.model, m);
  }
  return [...by.values()];
}

function llmChart(state, days) {
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

export const routes = [
  {
    method: 'GET', path: '/admin/api/charts/llm',
    handle: ({ state, res, q }) => {
      const days = q.has('days') && q.get('days') !== '' ? Number(q.get('days')) : 30;
      if (!Number.isInteger(days) || days < 1 || days > 90) return err(res, 400, 'bad_request', 'days must be between 1 and 90');
      return send(res, 200, llmChart(state, days));
    },
  },
  {
    method: 'GET', path: '/admin/api/llm',
    handle: ({ state, res, q }) => {
      const cn = boolQ(q, 'city_null');
      const items = state.llm.filter((c) => (!q.get('model') || c.model === q.get('model')) && (!q.get('ma_id') || String(c.ma_id) === q.get('ma_id'))
        && (cn === null || cn === (c.extraction.city === null)) && (!q.get('q') || has(c.location_raw, q.get('q'))));
      return send(res, 200, { ...page(items, q), totals: { calls: items.length, cost_usd: items.reduce((s, c) => s + (c.cost_usd || 0), 0) } });
    },
  },
];
