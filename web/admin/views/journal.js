// Journal: what happened. Activity list (runs + admin actions), run logs,
// before/after diffs, crawl checkpoints.
import { api, asList } from '../api.js';
import { h, append, clear, DASH } from '/lib/dom.js';
import { fmtNum, fmtDate, fmtText } from '../format.js';
import { table, badge, field, select, pre } from '../widgets.js';
import { navigate, formParams } from '../router.js';
import { pager, loadInto } from '../ui.js';
import { runLog } from '../run-log.js';
import { jobTypeLabel, runStatusLabel, statsPairs, fmtDuration, secondsBetween, checkLabel, actionLabel, fieldLabel, geoStatusLabel } from '../words.js';

function runStatusKind(s) {
  if (s === 'success') return 'ok';
  if (s === 'error') return 'bad';
  if (s === 'running') return 'info';
  return 'warn';
}

/** before/after diff table: one row per key, changed keys highlighted. */
export function diffTable(before, after) {
  const isObj = (x) => x && typeof x === 'object' && !Array.isArray(x);
  if (!isObj(before) && !isObj(after)) {
    return h('div', { class: 'diff' }, h('h4', null, 'Avant'), pre(before), h('h4', null, 'Après'), pre(after));
  }
  const b = isObj(before) ? before : {};
  const a = isObj(after) ? after : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  // Words, not raw values: dates in French, empty values as a dash, statuses and fields
  // named (the raw key stays in the row's data-key).
  const show = (k, v) => {
    if (v === undefined || v === null || v === '') return DASH;
    if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v)) return fmtDate(v);
    if (k === 'status' || k === 'geocode_status') return geoStatusLabel(v);
    if (typeof v === 'boolean') return v ? 'oui' : 'non';
    return typeof v === 'string' ? v : JSON.stringify(v);
  };
  return table(
    [
      { label: 'Champ', render: (k) => h('span', { title: k }, fieldLabel(k)) },
      { label: 'Avant', render: (k) => h('span', { class: 'diff-before' }, show(k, b[k])) },
      { label: 'Après', render: (k) => h('span', { class: 'diff-after' }, show(k, a[k])) },
    ],
    keys,
    { empty: 'Aucune différence enregistrée.', rowAttrs: (k) => ({ 'data-key': k, class: JSON.stringify(b[k]) !== JSON.stringify(a[k]) ? 'changed' : null }) },
  );
}

/** A run's counters as a French label/value list (null counters left out). */
function runCounters(stats) {
  const dl = h('dl', { class: 'kv' });
  for (const [k, v] of statsPairs(stats)) dl.append(h('dt', null, k), h('dd', null, v));
  return dl;
}

// Checkpoint keys the crawler writes, in words.
const CHECKPOINTS = { last_full_crawl_at: 'Dernier crawl complet', last_created_check: 'Dernière lecture des groupes créés' };

export function mount(root, params) {
  const state = Object.fromEntries([...params.entries()].filter(([, v]) => v !== ''));
  const ctrl = new AbortController();
  const opts = { signal: ctrl.signal };
  const streams = new Set(); // live run logs open in this view

  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filtres du journal' },
    field('Type', select('kind', [['', 'tout'], ['run', 'exécutions'], ['admin', 'actions admin']], state.kind, { id: 'journal-kind' })),
    field('Par page', select('limit', [['', '50'], ['100', '100'], ['200', '200']], state.limit, { id: 'journal-limit' })),
    h('div', { class: 'field actions' }, h('button', { type: 'submit', class: 'primary', id: 'journal-submit' }, 'Filtrer')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    navigate('journal', formParams(form));
  });
  form.querySelector('select[name=kind]').addEventListener('change', () => form.requestSubmit());

  const listEl = h('div');
  const cpEl = h('div');
  root.append(
    h('div', { class: 'view-head' }, h('h1', null, 'Journal')),
    h('section', { 'aria-labelledby': 'h-activity' }, h('h2', { id: 'h-activity' }, 'Activité'), form, listEl),
    h('section', { 'aria-labelledby': 'h-cp' }, h('h2', { id: 'h-cp' }, 'Points de reprise du crawler'), cpEl),
  );

  function entryDetail(entry) {
    const box = h('div', { class: 'entry-detail' });
    if (entry.kind === 'run') {
      // append() through dom.js: an absent part is skipped (Element.append would write
      // "null", issue 29).
      append(box, [
        entry.error ? h('div', null, h('h4', null, 'Erreur'), pre(entry.error)) : null,
        statsPairs(entry.stats).length ? h('div', null, h('h4', null, 'Compteurs'), runCounters(entry.stats)) : null,
        entry.stats ? h('details', { class: 'raw' }, h('summary', null, 'Compteurs bruts'), pre(entry.stats)) : null,
      ]);
      const log = runLog(entry, opts);
      streams.add(log);
      box.append(h('h4', null, 'Journal de l’exécution'), log.el);
      box.stopLog = () => { log.stop(); streams.delete(log); };
    } else {
      box.append(
        h('p', { class: 'muted' }, `${fmtText(entry.username)} ${actionLabel(entry.action)} · ${fmtText(typeof entry.target === 'object' ? JSON.stringify(entry.target) : entry.target)}`),
        diffTable(entry.before, entry.after));
    }
    return box;
  }

  function loadList() {
    return loadInto(listEl, async () => {
      const data = await api.get('/admin/api/activity', state, opts);
      const items = asList(data);
      const tbl = table(
        [
          { label: 'Quand', render: (e) => fmtDate(e.kind === 'run' ? e.started_at : e.at) },
          { label: 'Type', render: (e) => badge(e.kind === 'run' ? 'exécution' : 'admin', e.kind === 'run' ? 'info' : 'muted') },
          {
            label: 'Quoi',
            render: (e) => (e.kind === 'run'
              ? h('span', null, `n° ${fmtText(e.id)} ${jobTypeLabel(e.type)} `, badge(runStatusLabel(e.status), runStatusKind(e.status)),
                h('span', { class: 'muted' }, e.finished_at
                  ? ` en ${fmtDuration(secondsBetween(e.started_at, e.finished_at))}, fin ${fmtDate(e.finished_at)}`
                  : ` depuis ${fmtDuration(secondsBetween(e.started_at))}`))
              : h('span', { title: fmtText(e.action) }, `${fmtText(e.username)} ${actionLabel(e.action)} `,
                fmtText(typeof e.target === 'object' && e.target !== null ? JSON.stringify(e.target) : e.target))),
          },
          { label: 'Erreur', render: (e) => (e.kind === 'run' && e.error ? h('span', { class: 'error-text clamp' }, String(e.error)) : DASH) },
          {
            label: 'Détail',
            render: (e) => {
              const btn = h('button', { type: 'button', 'aria-expanded': 'false', class: 'entry-toggle' }, e.kind === 'run' ? 'Journal' : 'Différences');
              btn.addEventListener('click', () => {
                const tr = btn.closest('tr');
                const next = tr.nextElementSibling;
                if (next && next.classList.contains('detail-row')) {
                  next.querySelector('.entry-detail')?.stopLog?.();
                  next.remove();
                  btn.setAttribute('aria-expanded', 'false');
                  return;
                }
                const cols = tr.children.length;
                tr.after(h('tr', { class: 'detail-row' }, h('td', { colspan: String(cols) }, entryDetail(e))));
                btn.setAttribute('aria-expanded', 'true');
              });
              return btn;
            },
          },
        ],
        items,
        { empty: 'Aucune activité.', rowAttrs: (e) => ({ 'data-kind': e.kind, 'data-id': String(e.id) }) },
      );
      return h('div', null, tbl, pager(data, (off) => navigate('journal', { ...state, offset: off })));
    });
  }

  function loadCheckpoints() {
    return loadInto(cpEl, async () => {
      const data = await api.get('/admin/api/crawl-checkpoints', null, opts);
      let rows = asList(data);
      if (!rows.length && data && typeof data === 'object' && !Array.isArray(data) && !('items' in data)) {
        rows = Object.entries(data).map(([key, value]) => ({ key, value }));
      }
      return table(
        [
          { label: 'Point', render: (r) => CHECKPOINTS[r.key] ?? checkLabel(r.key ?? r.name) },
          { label: 'Valeur', render: (r) => (/^\d{4}-\d\d-\d\dT/.test(String(r.value)) ? fmtDate(r.value) : fmtText(r.value)) },
          { label: 'Mis à jour', render: (r) => fmtDate(r.updated_at) },
        ],
        rows,
        { empty: 'Aucun point de reprise.' },
      );
    });
  }

  loadList();
  loadCheckpoints();
  return () => {
    ctrl.abort();
    for (const s of streams) s.stop();
  };
}
