// LLM & coûts: the month's running total, calls and cost per day stacked by model (30 days,
// GET /admin/api/charts/llm), tokens, the fallback model's share, cache hits; the per-model
// table; LLM calls (filters model, ma_id, city_null, malformed, q) with their totals.
import { api, asList } from '../api.js';
import { h } from '/lib/dom.js';
import { fmtNum, fmtDate, fmtText, fmtCost } from '../format.js';
import { table, field, select, kvList } from '../widgets.js';
import { navigate, formParams } from '../router.js';
import { pager, loadInto } from '../ui.js';
import { llmCallDetails } from './bands.js';
import { checkSentence } from '../words.js';
import { stackedBars, paletteColor } from '../chart.js';

export const CHART_DAYS = 30;
const DAY = 86400;

/** Why the LLM tables may be empty, from the llm service's heartbeat. */
export function llmEmptyReason(healthRows) {
  const row = asList(healthRows).find((r) => r && r.service === 'llm');
  if (!row) return 'Aucun appel LLM : le service llm n’a jamais donné signe de vie (il ne tourne pas ou n’a pas de clé).';
  const key = row.checks?.api_key;
  if (key && checkSentence('api_key', key).ok === false) {
    return `Aucun appel LLM : ${checkSentence('api_key', key).text}. Définissez LLM_API_KEY puis redémarrez le service llm.`;
  }
  return 'Aucun appel LLM pour l’instant : le LLM ne lit que les lieux que le gazetteer et le fournisseur n’ont pas su placer (statut « à lire par le LLM »).';
}

const shareText = (v) => (v === null || v === undefined || !Number.isFinite(Number(v)) ? 'aucun appel' : `${Math.round(Number(v) * 100)} %`);

/** The month's running total as tiles. */
function monthTiles(data) {
  const m = data?.month || {};
  const since = m.since ? new Date(m.since).toLocaleDateString('fr-FR', { month: 'long', year: 'numeric', timeZone: 'UTC' }) : '';
  const tile = (label, value, id) => h('div', { class: 'tile', id }, h('span', { class: 'stat-num' }, value), h('span', null, label));
  return h('div', null,
    h('div', { class: 'tiles' },
      tile('coût cumulé du mois', fmtCost(m.cost_usd ?? 0), 'llm-month-cost'),
      tile('appels', fmtNum(m.calls ?? 0), 'llm-month-calls'),
      tile('jetons', fmtNum(m.tokens ?? 0), 'llm-month-tokens'),
      tile('réponses du cache', fmtNum(m.cache_hits ?? 0), 'llm-month-hits'),
      tile(`part du secours sur ${CHART_DAYS} j`, shareText(data?.fallback_share), 'llm-fallback-share')),
    h('p', { class: 'muted hint' }, `Depuis le 1er ${since} (UTC). Le coût est celui du tarif payant du fournisseur, même sur l’offre gratuite.`));
}

export function mount(root, params) {
  const state = Object.fromEntries([...params.entries()].filter(([, v]) => v !== ''));
  const ctrl = new AbortController();
  const opts = { signal: ctrl.signal };

  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filtres des appels LLM' },
    field('Modèle', h('input', { id: 'llm-model', name: 'model', value: state.model || '', list: 'llm-model-list', maxlength: '100' })),
    h('datalist', { id: 'llm-model-list' }),
    field('ma_id', h('input', { id: 'llm-ma_id', name: 'ma_id', value: state.ma_id || '', inputmode: 'numeric', pattern: '[0-9]*' })),
    field('Sans ville trouvée', select('city_null', [['', 'indifférent'], ['true', 'oui'], ['false', 'non']], state.city_null, { id: 'llm-city_null' })),
    field('Réponse invalide', select('malformed', [['', 'indifférent'], ['true', 'oui'], ['false', 'non']], state.malformed, { id: 'llm-malformed' })),
    field('Lieu contient', h('input', { id: 'llm-q', name: 'q', type: 'search', value: state.q || '', maxlength: '100' })),
    h('div', { class: 'field actions' },
      h('button', { type: 'submit', class: 'primary', id: 'llm-submit' }, 'Filtrer'),
      h('button', { type: 'button', onclick: () => navigate('llm', {}) }, 'Réinitialiser')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    navigate('llm', formParams(form));
  });

  const reasonEl = h('p', { class: 'empty-reason', id: 'llm-empty-reason', role: 'status', hidden: true });
  const totalsEl = h('div');
  const monthEl = h('div', { id: 'llm-month' });
  const chartEl = h('div');
  const listEl = h('div');
  const modelsEl = h('div');
  root.append(
    h('div', { class: 'view-head' }, h('h1', null, 'LLM & coûts')),
    reasonEl,
    h('section', { 'aria-labelledby': 'h-llm-month' }, h('h2', { id: 'h-llm-month' }, 'Ce mois-ci'), monthEl),
    h('section', { 'aria-labelledby': 'h-llm-days' }, h('h2', { id: 'h-llm-days' }, `Par jour (${CHART_DAYS} jours)`), chartEl),
    h('section', { 'aria-labelledby': 'h-llm-models' }, h('h2', { id: 'h-llm-models' }, 'Par modèle'), modelsEl),
    h('section', { 'aria-labelledby': 'h-llm-calls' }, h('h2', { id: 'h-llm-calls' }, 'Appels'), form, totalsEl, listEl),
  );

  function loadModels() {
    return loadInto(modelsEl, async () => {
      const [g, health] = await Promise.all([
        api.get('/admin/api/geocoding', null, opts),
        api.get('/admin/api/health', null, opts).catch(() => null),
      ]);
      const models = Array.isArray(g?.llm_models) ? g.llm_models : [];
      const empty = !models.some((m) => Number(m.calls) > 0);
      if (empty && health) {
        reasonEl.textContent = llmEmptyReason(health);
        reasonEl.hidden = false;
      }
      const dl = form.querySelector('#llm-model-list');
      for (const m of models) if (m.model) dl.append(h('option', { value: m.model }));
      return table(
        [
          { label: 'Modèle', render: (m) => h('a', { href: `#/llm?model=${encodeURIComponent(m.model ?? '')}` }, fmtText(m.model)) },
          { label: 'Appels', render: (m) => fmtNum(m.calls), className: 'num' },
          { label: 'Sans ville trouvée', render: (m) => fmtNum(m.city_null), className: 'num' },
          { label: 'Réponses invalides', render: (m) => fmtNum(m.malformed), className: 'num' },
          { label: 'Jetons prompt', render: (m) => fmtNum(m.prompt_tokens), className: 'num' },
          { label: 'Jetons réponse', render: (m) => fmtNum(m.completion_tokens), className: 'num' },
          { label: 'Coût', render: (m) => fmtCost(m.cost_usd), className: 'num' },
        ],
        models,
        { empty: 'Aucun appel LLM (voir la raison plus haut).' },
      );
    });
  }

  function loadList() {
    return loadInto(listEl, async () => {
      const data = await api.get('/admin/api/llm', state, opts);
      const items = Array.isArray(data?.items) ? data.items : [];
      totalsEl.replaceChildren(kvList({ 'appels (filtre)': data?.totals?.calls ?? data?.total, 'coût (filtre)': fmtCost(data?.totals?.cost_usd) }));
      return h('div', null,
        table(
          [
            { label: 'Quand', render: (c) => fmtDate(c.created_at) },
            {
              label: 'Groupe',
              render: (c) => h('a', { href: `#/bands?q=${encodeURIComponent(c.ma_id)}&open=${encodeURIComponent(c.ma_id)}` }, fmtText(c.band_name ?? c.ma_id)),
            },
            { label: 'Lieu', render: (c) => `${fmtText(c.location_raw)}${c.country ? ' (' + c.country + ')' : ''}` },
            { label: 'Modèle', render: (c) => fmtText(c.model) },
            { label: 'Ville extraite', render: (c) => fmtText(c.extraction && typeof c.extraction === 'object' ? c.extraction.city : c.extraction) },
            { label: 'Jetons', render: (c) => `${fmtNum(c.prompt_tokens)} / ${fmtNum(c.completion_tokens)}`, className: 'num' },
            { label: 'Coût', render: (c) => fmtCost(c.cost_usd), className: 'num' },
            { label: 'Prompt / réponse', render: (c) => llmCallDetails(c) },
          ],
          items,
          { empty: 'Aucun appel ne correspond.', rowAttrs: (c) => ({ 'data-id': String(c.id) }) },
        ),
        pager(data, (off) => navigate('llm', { ...state, offset: off })));
    });
  }

  function loadChart() {
    return loadInto(chartEl, async () => {
      const data = await api.get('/admin/api/charts/llm', { days: CHART_DAYS }, opts);
      monthEl.replaceChildren(monthTiles(data));
      const items = Array.isArray(data?.items) ? data.items : [];
      if (!items.length) return h('p', { class: 'empty' }, `Aucun appel LLM ces ${CHART_DAYS} derniers jours.`);
      const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
      const x = [];
      for (let d = today - (CHART_DAYS - 1) * DAY; d <= today; d += DAY) x.push(d);
      const models = [...new Set(items.map((i) => i.model))].sort((a, b) => (a === data.primary_model ? -1 : b === data.primary_model ? 1 : a.localeCompare(b)));
      const valuesOf = (model, key) => x.map((d) => items
        .filter((i) => i.model === model && Math.floor(new Date(i.day).getTime() / 1000 / DAY) * DAY === d)
        .reduce((s, i) => s + (Number(i[key]) || 0), 0));
      const width = chartEl.clientWidth || root.clientWidth;
      const calls = stackedBars({
        id: 'llm-chart', title: 'Appels par jour et par modèle', x, width, axisLabel: 'appels', integer: true, fmt: (v) => fmtNum(Math.round(v)),
        layers: models.map((m, k) => ({ label: m, values: valuesOf(m, 'calls'), color: paletteColor(k + 1) })),
      });
      calls.el.dataset.calls = String(items.reduce((s, i) => s + (Number(i.calls) || 0), 0));
      calls.el.dataset.models = String(models.length);
      const cost = stackedBars({
        id: 'llm-cost-chart', title: 'Coût par jour et par modèle (tarif payant, USD)', x, width, axisLabel: 'USD', fmt: (v) => fmtCost(v),
        layers: models.map((m, k) => ({ label: m, values: valuesOf(m, 'cost_usd'), color: paletteColor(k + 1) })),
      });
      const tokens = items.reduce((s, i) => s + (Number(i.prompt_tokens) || 0) + (Number(i.completion_tokens) || 0), 0);
      const hits = (Array.isArray(data.cache_hits) ? data.cache_hits : []).reduce((s, d) => s + (Number(d.hits) || 0), 0);
      return h('div', null, calls.el, cost.el,
        h('p', { class: 'muted chart-totals', id: 'llm-period' },
          `Sur ${CHART_DAYS} jours : ${fmtNum(tokens)} jetons, ${fmtNum(hits)} réponse(s) servie(s) par le cache sans appel, `,
          `part du modèle de secours (${fmtText(data.fallback_model)}) : ${shareText(data.fallback_share)}.`));
    });
  }

  loadChart();
  loadModels();
  loadList();
  return () => ctrl.abort();
}
