// Pilotage "tells when a requested run ends" (issue 17): every job the operator requests
// from this browser tab is followed — request → claimed → run → finished — through
// GET /admin/api/job-triggers/:id, and the end is announced with its result. The list
// survives leaving the view (sessionStorage); finished entries stay until dismissed.
import { api } from '../api.js';
import { h, clear } from '/lib/dom.js';
import { fmtText } from '../format.js';
import { flash } from '../ui.js';
import { jobTypeLabel, runStatusLabel, fmtDuration, secondsBetween, statsPairs } from '../words.js';

const KEY = 'bandmap.followed-jobs';
export const FOLLOW_POLL_MS = 3000;

function load() {
  try {
    const v = JSON.parse(sessionStorage.getItem(KEY) || '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}
function save(list) {
  try { sessionStorage.setItem(KEY, JSON.stringify(list)); } catch { /* private mode: kept in memory only */ }
}

/** Remember a new request to follow. */
export function follow(id, jobType) {
  const list = load().filter((e) => e.id !== id);
  list.unshift({ id, jobType, finished: false, state: null });
  save(list.slice(0, 10));
}

const FINAL_TRIGGER = ['done', 'error', 'cancelled'];

/** Where a followed request stands, in words: {phase, text, kind}. */
export function describe(state) {
  const t = state?.trigger || {};
  const r = state?.run;
  if (r && r.status === 'running') {
    return { phase: 'running', kind: 'info', text: `exécution n° ${r.id} en cours depuis ${fmtDuration(secondsBetween(r.started_at))}${r.cancel_requested ? ' (annulation demandée)' : ''}.` };
  }
  if (r && r.finished_at) {
    const pairs = statsPairs(r.stats).slice(0, 4).map(([k, v]) => `${k} : ${v}`).join(', ');
    const kind = r.status === 'success' ? 'ok' : r.status === 'error' ? 'bad' : 'warn';
    return {
      phase: 'finished', kind,
      text: `exécution n° ${r.id} terminée à ${new Date(r.finished_at).toLocaleTimeString('fr-FR')} (durée ${fmtDuration(secondsBetween(r.started_at, r.finished_at))}) : ${runStatusLabel(r.status)}${pairs ? ` — ${pairs}` : ''}${r.error ? ` — ${r.error}` : ''}.`,
    };
  }
  if (FINAL_TRIGGER.includes(t.status)) {
    const kind = t.status === 'done' ? 'ok' : t.status === 'error' ? 'bad' : 'warn';
    return { phase: 'finished', kind, text: `demande ${runStatusLabel(t.status)}${t.error ? ` : ${t.error}` : ''}.` };
  }
  if (t.status === 'claimed') return { phase: 'claimed', kind: 'info', text: 'prise en charge, l’exécution démarre…' };
  return { phase: 'waiting', kind: 'muted', text: `en attente depuis ${fmtDuration(secondsBetween(t.created_at))} : le service la prendra à son prochain passage.` };
}

/** → {el, stop(), add(id, type)}: the followed requests, polled while the view is open.
 *  `onFinished()` is called when one of them ends (Pilotage refreshes, so its lists agree
 *  with this one at once: issue 29). */
export function followedJobs({ onFinished = () => {} } = {}) {
  const listEl = h('ul', { class: 'followed', id: 'followed-jobs', 'aria-live': 'polite' });
  const el = h('div', null, listEl);
  let timer = null;
  let stopped = false;

  function render() {
    clear(listEl);
    const list = load();
    if (!list.length) {
      listEl.append(h('li', { class: 'empty' }, 'Aucune demande suivie : les tâches lancées d’ici s’affichent ici jusqu’à leur fin.'));
      return;
    }
    for (const e of list) {
      const d = e.state ? describe(e.state) : { phase: 'waiting', kind: 'muted', text: 'en attente…' };
      listEl.append(h('li', { 'data-trigger-id': String(e.id), 'data-phase': d.phase, class: `followed-item badge-${d.kind}` },
        h('strong', null, `Demande n° ${e.id} — ${jobTypeLabel(e.jobType)}`), ' : ', fmtText(d.text), ' ',
        d.phase === 'finished'
          ? h('button', { type: 'button', class: 'link', onclick: () => { save(load().filter((x) => x.id !== e.id)); render(); } }, 'Masquer')
          : null));
    }
  }

  async function tick() {
    if (stopped) return;
    const list = load();
    let changed = false;
    for (const e of list.filter((x) => !x.finished)) {
      try {
        const state = await api.get(`/admin/api/job-triggers/${encodeURIComponent(e.id)}`);
        if (stopped) return;
        e.state = state;
        const d = describe(state);
        if (d.phase === 'finished') {
          e.finished = true;
          flash(`${jobTypeLabel(e.jobType)} (demande n° ${e.id}) : ${d.text}`, d.kind === 'bad' ? 'error' : 'ok');
        }
        changed = true;
      } catch (err) {
        if (err && err.status === 404) { e.finished = true; e.state = { trigger: { status: 'cancelled', error: 'demande introuvable' } }; changed = true; }
      }
    }
    if (list.some((x) => x.finished && !x.told)) {
      for (const x of list) if (x.finished) x.told = true;
      onFinished();
    }
    if (changed) {
      // Keep the entries removed meanwhile (Masquer) removed.
      const ids = new Set(load().map((x) => x.id));
      save(list.filter((x) => ids.has(x.id)));
    }
    render();
  }

  render();
  tick();
  timer = setInterval(tick, FOLLOW_POLL_MS);
  return {
    el,
    add: (id, type) => { follow(id, type); render(); tick(); },
    stop: () => { stopped = true; clearInterval(timer); },
  };
}
