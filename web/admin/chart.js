// Charts with uPlot (vendored by scripts/setup-web.sh into /vendor/uplot). One helper:
// daily series from a list of dated rows, drawn as lines with a legend in French.
import uPlot from '/vendor/uplot/uPlot.esm.js';
import { h } from './dom.js';

const DAY = 86400;

/** Rows with a date → {days: [unix s], series: {name: [values]}} per UTC day, oldest first,
 *  every day from the first (at least `minDays` before today) to today (0 when nothing happened). */
export function perDay(rows, dateOf, values, { minDays = 14, now = Date.now() } = {}) {
  const buckets = new Map();
  for (const r of rows) {
    const t = new Date(dateOf(r)).getTime();
    if (!Number.isFinite(t)) continue;
    const day = Math.floor(t / 1000 / DAY) * DAY;
    const b = buckets.get(day) || {};
    for (const [name, f] of Object.entries(values)) b[name] = (b[name] || 0) + (Number(f(r)) || 0);
    buckets.set(day, b);
  }
  const today = Math.floor(now / 1000 / DAY) * DAY;
  const keys = [...buckets.keys()].sort((a, b) => a - b);
  const first = Math.min(keys.length ? keys[0] : today, today - (minDays - 1) * DAY);
  const last = Math.max(keys.length ? keys[keys.length - 1] : today, today);
  const days = [];
  for (let d = first; d <= last; d += DAY) days.push(d);
  const series = {};
  for (const name of Object.keys(values)) series[name] = days.map((d) => buckets.get(d)?.[name] ?? 0);
  return { days, series };
}

/** A uPlot chart in a container; series: [{label, values, color, scale, fmt}]. */
export function lineChart({ id, title, x, series, width }) {
  const box = h('figure', { class: 'chart', id }, h('figcaption', null, title));
  const w = Math.max(280, Math.min(width || 800, 900));
  const scales = { x: { time: true } };
  const axes = [{}];
  for (const s of series) {
    if (!scales[s.scale]) {
      scales[s.scale] = { auto: true, range: (u, min, max) => [0, Math.max(max, 1e-9) * 1.1] };
      const axis = { scale: s.scale, side: axes.length === 1 ? 3 : 1, label: s.axisLabel, size: 70, values: (u, vals) => vals.map((v) => (s.fmt ? s.fmt(v) : String(v))) };
      if (s.integer) axis.incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
      axes.push(axis);
    }
  }
  const opts = {
    width: w,
    height: 220,
    scales,
    axes,
    series: [{ label: 'Jour', value: (u, v) => (v === null ? '—' : new Date(v * 1000).toLocaleDateString('fr-FR')) },
      ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, scale: s.scale, points: { show: true },
        value: (u, v) => (v === null ? '—' : s.fmt ? s.fmt(v) : String(v)) }))],
  };
  const plot = new uPlot(opts, [x, ...series.map((s) => s.values)], box);
  box.dataset.points = String(x.length);
  return { el: box, plot };
}
