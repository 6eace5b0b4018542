// Charts with uPlot (vendored by scripts/setup-web.sh into /vendor/uplot): lines with a
// legend in French (a series may be dashed: a limit), and stacked bars (one layer per
// model). Colours come from the shared palette (/map/theme.css) through CSS variables.
import uPlot from '/vendor/uplot/uPlot.esm.js';
import { h } from '/lib/dom.js';

/** A uPlot chart in a container; series: [{label, values, color, scale, fmt}]. */
export function lineChart({ id, title, x, series, width, xLabel = 'Jour', hourly = false }) {
  const box = h('figure', { class: 'chart', id }, h('figcaption', null, title));
  const w = Math.max(280, Math.min(width || 800, 900));
  const scales = { x: { time: true } };
  const axes = [{ values: (u, vals) => vals.map((v) => fmtTick(v, hourly)) }];
  for (const s of series) {
    if (!scales[s.scale]) {
      scales[s.scale] = { auto: true, range: (u, min, max) => [0, Math.max(max, 1e-9) * 1.1] };
      const axis = { scale: s.scale, side: axes.length === 1 ? 3 : 1, label: s.axisLabel, size: 70, values: (u, vals) => vals.map((v) => (s.fmt ? s.fmt(v) : String(v))) };
      if (s.integer) axis.incrs = INT_INCRS;
      axes.push(axis);
    }
  }
  const opts = {
    width: w,
    height: 220,
    scales,
    axes,
    series: [{ label: xLabel, value: (u, v) => (v === null ? '—' : fmtX(v, hourly)) },
      ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, scale: s.scale, points: { show: !s.dash },
        dash: s.dash, value: (u, v) => (v === null ? '—' : s.fmt ? s.fmt(v) : String(v)) }))],
  };
  const plot = new uPlot(opts, [x, ...series.map((s) => s.values)], box);
  box.dataset.points = String(x.length);
  return { el: box, plot };
}

const INT_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000];
const HALF_SLOT = (x) => (x.length > 1 ? (x[1] - x[0]) / 2 : 43200);

/** Axis ticks in French: "14 h" for hours, "25/11" for days. */
const fmtTick = (v, hourly) => (hourly
  ? `${new Date(v * 1000).getHours()} h`
  : new Date(v * 1000).toLocaleDateString('fr-FR', { day: '2-digit', month: '2-digit' }));
const fmtX = (v, hourly) => (hourly
  ? new Date(v * 1000).toLocaleString('fr-FR', { day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit' })
  : new Date(v * 1000).toLocaleDateString('fr-FR'));

/** A colour of the shared palette (`--chart-1`…), read from the page's CSS variables. */
export function paletteColor(i) {
  const css = getComputedStyle(document.documentElement);
  const c = css.getPropertyValue(`--chart-${(i % 6) + 1}`).trim();
  return c || ['#b3261e', '#2451b7', '#1c7c3a', '#9a6200', '#6b3fa0', '#0f7c8c'][i % 6];
}

/** Stacked bars: layers [{label, values, color}] bottom first, each bar the layer's value on
 *  top of the ones below; the legend shows each layer's own value. */
export function stackedBars({ id, title, x, layers, width, fmt = (v) => String(v), axisLabel, integer = false }) {
  const box = h('figure', { class: 'chart', id }, h('figcaption', null, title));
  const w = Math.max(280, Math.min(width || 800, 900));
  const tops = [];
  let acc = x.map(() => 0);
  for (const l of layers) {
    acc = acc.map((a, i) => a + (Number(l.values[i]) || 0));
    tops.push(acc);
  }
  const bars = uPlot.paths.bars({ size: [0.7, 40] });
  // uPlot draws in order: the tallest layer first, each lower layer over it.
  const order = layers.map((l, i) => i).reverse();
  const opts = {
    width: w,
    height: 220,
    // Half a slot of room on each side, so the first and last bars are whole.
    scales: { x: { time: true, range: (u, min, max) => [min - HALF_SLOT(x), max + HALF_SLOT(x)] }, y: { auto: true, range: (u, min, max) => [0, Math.max(max, 1e-9) * 1.1] } },
    axes: [{ values: (u, vals) => vals.map((v) => fmtTick(v, false)) },
      { label: axisLabel, size: 70, values: (u, vals) => vals.map((v) => fmt(v)), ...(integer ? { incrs: INT_INCRS } : {}) }],
    series: [{ label: 'Jour', value: (u, v) => (v === null ? '—' : fmtX(v, false)) },
      ...order.map((i) => ({ label: layers[i].label, stroke: layers[i].color, fill: layers[i].color, width: 1, paths: bars, points: { show: false },
        value: (u, v, si, idx) => (idx === null || idx === undefined ? '—' : fmt(Number(layers[i].values[idx]) || 0)) }))],
  };
  const plot = new uPlot(opts, [x, ...order.map((i) => tops[i])], box);
  box.dataset.points = String(x.length);
  return { el: box, plot };
}
