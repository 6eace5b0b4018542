// Pilotage charts (issue 17): rows geocoded, errors and provider calls over the last 24 h
// (per hour) or 30 days (per day), with the provider's configured limit drawn as a dashed
// line. Data: GET /admin/api/charts/geocoding?range=24h|30d (hourly counters written by
// the database and the geocoder, migration 023).
import { api } from '../api.js';
import { h } from '/lib/dom.js';
import { fmtNum } from '../format.js';
import { loadInto } from '../ui.js';
import { lineChart, paletteColor } from '../chart.js';

const RANGES = [['24h', '24 h (par heure)'], ['30d', '30 jours (par jour)']];

/** → {el, load()}: the section body; load() (re)draws the chosen range. */
export function geocodingCharts(signal) {
  let range = '24h';
  const body = h('div', { id: 'geo-charts' });
  const buttons = RANGES.map(([key, label]) => {
    const b = h('button', { type: 'button', 'data-range': key, 'aria-pressed': key === range ? 'true' : 'false' }, label);
    b.addEventListener('click', () => {
      range = key;
      for (const x of buttons) x.setAttribute('aria-pressed', x.dataset.range === range ? 'true' : 'false');
      load();
    });
    return b;
  });
  const el = h('div', null, h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Période des graphiques' }, buttons), body);

  function load() {
    return loadInto(body, async () => {
      const data = await api.get('/admin/api/charts/geocoding', { range }, { signal });
      return render(data, body.clientWidth || el.clientWidth);
    });
  }
  return { el, load };
}

function render(data, width) {
  const points = Array.isArray(data?.points) ? data.points : [];
  const hourly = data?.bucket === 'hour';
  const x = points.map((p) => Math.floor(new Date(p.at).getTime() / 1000));
  const sum = (k) => points.reduce((s, p) => s + (Number(p[k]) || 0), 0);
  const per = hourly ? 'par heure' : 'par jour';
  const wrap = h('div', { class: 'chart-pair', 'data-range': data?.range ?? '' });
  const totals = h('p', { class: 'muted chart-totals' },
    `Sur la période : ${fmtNum(sum('geocoded'))} ligne(s) localisée(s), ${fmtNum(sum('errors'))} en erreur, `
    + `${fmtNum(sum('llm_needed'))} passée(s) au LLM, ${fmtNum(sum('provider_calls'))} appel(s) au fournisseur `
    + `dont ${fmtNum(sum('provider_errors'))} en échec.`);
  wrap.append(totals);
  if (!sum('geocoded') && !sum('errors') && !sum('llm_needed') && !sum('provider_calls')) {
    wrap.append(h('p', { class: 'empty' }, 'Aucune activité de géocodage sur la période (les compteurs partent de la mise à jour qui les a créés).'));
  }
  const rows = lineChart({
    id: 'geo-rows-chart',
    title: `Lignes localisées et erreurs ${per}`,
    x, width, hourly, xLabel: hourly ? 'Heure' : 'Jour',
    series: [
      { label: 'Localisées', values: points.map((p) => p.geocoded), color: paletteColor(2), scale: 'n', axisLabel: 'lignes', integer: true, fmt: (v) => fmtNum(Math.round(v)) },
      { label: 'Au LLM', values: points.map((p) => p.llm_needed), color: paletteColor(3), scale: 'n', integer: true, fmt: (v) => fmtNum(Math.round(v)) },
      { label: 'Erreurs', values: points.map((p) => p.errors), color: paletteColor(0), scale: 'n', integer: true, fmt: (v) => fmtNum(Math.round(v)) },
    ],
  });
  rows.el.dataset.geocoded = String(sum('geocoded'));
  rows.el.dataset.errors = String(sum('errors'));
  wrap.append(rows.el);

  const p = data?.provider || {};
  const limit = Number(p.limit_per_bucket);
  const series = [
    { label: 'Appels', values: points.map((q) => q.provider_calls), color: paletteColor(1), scale: 'calls', axisLabel: 'appels', integer: true, fmt: (v) => fmtNum(Math.round(v)) },
    { label: 'Échecs', values: points.map((q) => q.provider_errors), color: paletteColor(0), scale: 'calls', integer: true, fmt: (v) => fmtNum(Math.round(v)) },
  ];
  if (Number.isFinite(limit) && limit > 0) {
    series.push({ label: 'Limite configurée', values: points.map(() => limit), color: '#5d6673', scale: 'calls', dash: [6, 4], fmt: (v) => fmtNum(Math.round(v)) });
  }
  const calls = lineChart({
    id: 'geo-calls-chart',
    title: `Appels au fournisseur ${per}${p.enabled ? '' : ' — fournisseur coupé'}`,
    x, width, hourly, xLabel: hourly ? 'Heure' : 'Jour',
    series,
  });
  calls.el.dataset.calls = String(sum('provider_calls'));
  calls.el.dataset.limit = Number.isFinite(limit) ? String(limit) : '';
  wrap.append(calls.el, h('p', { class: 'muted hint' }, p.enabled
    ? `Limite : un appel toutes les ${fmtNum(p.min_delay_s)} s (GEOCODER_MIN_DELAY), soit au plus ${fmtNum(limit)} ${per}.`
    : `Le fournisseur externe est coupé sur ce serveur (${p.provider === 'none' ? 'GEOCODER_PROVIDER=none' : 'pas de GEOCODING_API_KEY'}) : seul le gazetteer hors ligne localise.`));
  return wrap;
}

