// A run's log lines in the Journal: a level filter, paging for finished runs, and for a
// running run a live stream (GET /admin/api/logs?run_id=&min_id= every 3 s, at most 500
// lines kept) that stops when the entry is closed.
import { api, asList } from './api.js';
import { h, clear } from '/lib/dom.js';
import { fmtDate, fmtText } from './format.js';
import { select } from './widgets.js';
import { pager, loadInto } from './ui.js';

export const STREAM_MS = 3000;
const MAX_LINES = 500;
const LEVELS = [['', 'tous les niveaux'], ['debug', 'débogage'], ['info', 'info'], ['warn', 'avertissement'], ['error', 'erreur']];

const line = (l) => h('li', { class: `log level-${String(l.level || '').toLowerCase()}`, 'data-id': String(l.id), 'data-level': String(l.level || '').toLowerCase() },
  h('span', { class: 'log-at' }, fmtDate(l.at)), ' ', h('span', { class: 'log-level' }, fmtText(l.level)), ' ',
  h('span', { class: 'log-msg' }, fmtText(l.message)));

/** → {el, stop()}; live when the run is still running. */
export function runLog(run, opts) {
  const runId = run.id;
  const live = run.status === 'running';
  const levelSel = select('level', LEVELS, '', { id: `run-log-level-${runId}`, class: 'run-log-level' });
  const status = h('span', { class: 'muted', 'aria-live': 'polite' });
  const body = h('div');
  const el = h('div', { class: 'run-log', 'data-run-id': String(runId) },
    h('div', { class: 'toolbar' }, h('label', { for: levelSel.id }, 'Niveau'), levelSel,
      live ? h('span', { class: 'badge badge-info' }, 'en direct') : null, status),
    body);
  let timer = null;
  let lastId = 0;
  let list = null;
  let stopped = false;

  const query = (extra) => ({ run_id: runId, level: levelSel.value || undefined, ...extra });

  function page(offset) {
    return loadInto(body, async () => {
      const data = await api.get('/admin/api/logs', query({ limit: MAX_LINES, offset: offset || undefined }), opts);
      const items = asList(data).slice().sort((a, b) => Number(a.id) - Number(b.id));
      list = h('ol', { class: 'log-lines', tabindex: '0', 'aria-label': `Journal de l’exécution ${runId}` }, items.map(line));
      lastId = items.length ? Number(items[items.length - 1].id) : 0;
      return h('div', null, items.length || live ? list : h('p', { class: 'empty' }, 'Aucune ligne.'),
        !live && Array.isArray(data?.items) ? pager(data, (off) => page(off)) : null);
    });
  }

  async function tick() {
    if (stopped || !list) return;
    try {
      const items = asList(await api.get('/admin/api/logs', query({ min_id: lastId, limit: MAX_LINES }), opts))
        .filter((l) => Number(l.id) > lastId).sort((a, b) => Number(a.id) - Number(b.id));
      if (items.length) {
        const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 20;
        list.append(...items.map(line));
        while (list.childElementCount > MAX_LINES) list.firstElementChild.remove();
        lastId = Number(items[items.length - 1].id);
        if (stick) list.scrollTop = list.scrollHeight;
      }
      status.textContent = `${list.childElementCount} ligne(s) — ${new Date().toLocaleTimeString('fr-FR')}`;
    } catch (e) {
      if (e.code !== 'aborted') status.textContent = `Erreur : ${e.message}`;
    }
  }

  levelSel.addEventListener('change', () => { clear(body); page(0); });
  page(0);
  if (live) timer = setInterval(tick, STREAM_MS);
  return { el, stop: () => { stopped = true; clearInterval(timer); } };
}
