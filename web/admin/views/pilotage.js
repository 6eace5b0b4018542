// Pilotage: "is it OK?". A status banner, the geocoding pipeline as a flow of counts,
// heartbeat cards in sentences, running runs with progress and time left, pending and
// failed job requests, job buttons (a full crawl asks first, in red), the enrichment
// queue, catalogue stats, auto-refresh every 15 s, and a live log monitor.
import { api, asList } from '../api.js';
import { h, append, clear } from '/lib/dom.js';
import { fmtNum, fmtDate, fmtText } from '../format.js';
import { table, badge, kvList } from '../widgets.js';
import { flash, errorBox, actionButton, errorText } from '../ui.js';
import { jobTypeLabel, runStatusLabel, fmtDuration, secondsBetween, statsPairs } from '../words.js';
import { healthCards, verdict, banner, pipeline, runProgress, since } from './pilotage-parts.js';
import { geocodingCharts } from './pilotage-charts.js';
import { followedJobs } from './pilotage-follow.js';

export const OVERVIEW_REFRESH_MS = 15000;
export const MONITOR_INTERVALS = [3, 5, 10, 30];
export const LOG_BUFFER_MAX = 500;

// French button labels of the job types the server knows; a type missing here is shown
// by its name. The list itself, its order and the service running each type come from the
// OpenAPI document (see jobTypes).
const JOB_LABELS = {
  incremental: 'Crawl incrémental',
  enrich: 'Enrichissement',
  full_crawl: 'Crawl complet',
  geocoder_enqueue: 'Remplir la file de géocodage',
};
// Job types that ask for confirmation first (long, heavy on the source site).
const CONFIRM_JOBS = {
  full_crawl: 'Lancer un crawl COMPLET ? Il relit toutes les listes de tous les pays européens : plusieurs heures de requêtes au site source.',
};
const QUEUE_LABELS = { total: 'au total', enrich_pending: 'à relire (signalés)', updated_since_crawl: 'modifiés depuis la lecture', never_enriched: 'jamais enrichis' };

/** Job types from an OpenAPI document: the enum of the job request body's `job_type`,
 * with the service running each (`x-job-services`) → [{type, service}]. */
export function jobTypesFrom(doc) {
  const prop = doc?.components?.schemas?.NewTrigger?.properties?.job_type ?? {};
  const services = prop['x-job-services'] ?? {};
  return asList(prop.enum).map((type) => ({ type: String(type), service: String(services[type] ?? '') }));
}

/** The job types the server accepts, read from `GET /api/openapi.json`. */
export async function jobTypes(opts) {
  return jobTypesFrom(await api.get('/api/openapi.json', null, opts));
}

/** Is the crawler heartbeat alive? → {alive, reason} */
export function crawlerStatus(healthRows) {
  const row = healthRows.find((r) => r && r.service === 'crawler');
  if (!row) return { alive: false, reason: 'Aucun battement de cœur du crawler : le service crawler ne tourne pas.' };
  if (row.stale) {
    return { alive: false, reason: `Battement de cœur du crawler périmé (dernier : ${fmtDate(row.last_write_at)}) : le crawler semble arrêté.` };
  }
  return { alive: true, reason: '' };
}

function statsWords(stats) {
  const pairs = statsPairs(stats);
  if (!pairs.length) return null;
  const wrap = h('span', { class: 'chips' });
  for (const [k, v] of pairs) wrap.append(h('span', { class: 'chip' }, `${k} : ${v}`));
  return wrap;
}

function keyCountList(title, list, max = 10) {
  const items = asList(list);
  const top = items.slice(0, max);
  const mk = (rows) => table(
    [
      { label: 'Valeur', render: (r) => fmtText(r.key) },
      { label: 'Groupes', render: (r) => fmtNum(r.count), className: 'num' },
    ],
    rows,
  );
  const box = h('div', { class: 'keycount' }, h('h4', null, title), mk(top));
  if (items.length > max) {
    box.append(h('details', null, h('summary', null, `Tout afficher (${items.length})`), mk(items)));
  }
  return box;
}

export function mount(root) {
  let timer = null;
  let busy = false;
  let destroyed = false;
  const ctrl = new AbortController();

  const stamp = h('span', { class: 'muted', 'aria-live': 'polite' });
  const autoBox = h('input', { type: 'checkbox', id: 'pilotage-auto', checked: true });
  const charts = geocodingCharts(ctrl.signal);
  const followed = followedJobs({ onFinished: () => refresh() });
  const refreshBtn = h('button', { type: 'button', id: 'pilotage-refresh', onclick: () => { refresh(); charts.load(); } }, 'Actualiser');

  const loading = () => h('div', null, h('p', { class: 'muted' }, 'Chargement…'));
  const secBanner = loading();
  const secHealth = loading();
  const secRuns = loading();
  const secLast = loading();
  const secJobs = loading();
  const secFailed = loading();
  const secGeocoder = loading();
  const secQueue = loading();
  const secStats = loading();
  const crawlerReason = h('p', { class: 'reason', id: 'crawler-reason', role: 'status' });

  const jobButtons = [];
  let lastHealthRows = null;
  function jobButton({ type, service }) {
    const label = JOB_LABELS[type] ?? type;
    const btn = actionButton(label, () => api.post('/admin/api/job-triggers', { job_type: type }), {
      className: 'primary',
      confirmText: CONFIRM_JOBS[type],
      danger: type in CONFIRM_JOBS,
      onDone: (res) => {
        flash(`${label} : demande n° ${fmtText(res?.id)} enregistrée ; le service ${service || 'concerné'} la prendra à son prochain passage. Son avancement est suivi sous « Demandes suivies ».`, 'ok');
        if (Number.isFinite(Number(res?.id))) followed.add(Number(res.id), type);
        refresh();
      },
    });
    btn.dataset.jobType = type;
    btn.dataset.service = service;
    if (service === 'crawler') btn.setAttribute('aria-describedby', 'crawler-reason');
    return btn;
  }
  const cleanupBtn = actionButton('Nettoyer les exécutions bloquées', () => api.post('/admin/api/crawl-runs/cleanup', {}), {
    confirmText: 'Fermer (en échec) les exécutions restées « en cours » sans progresser ? Une exécution fermée ainsi ne reprend pas.',
    danger: true,
    onDone: (res) => {
      flash(`Nettoyage : ${fmtNum(res?.closed ?? 0)} exécution(s) fermée(s).`, 'ok');
      refresh();
    },
  });

  root.append(
    h('div', { class: 'view-head' },
      h('h1', null, 'Pilotage'),
      h('div', { class: 'toolbar' },
        h('label', { class: 'inline', for: 'pilotage-auto' }, autoBox, ` Actualisation auto (${OVERVIEW_REFRESH_MS / 1000} s)`),
        refreshBtn, stamp)),
    secBanner,
    h('section', { 'aria-labelledby': 'h-geo' }, h('h2', { id: 'h-geo' }, 'Chaîne de géocodage'), secGeocoder),
    h('section', { 'aria-labelledby': 'h-geo-charts' }, h('h2', { id: 'h-geo-charts' }, 'Activité du géocodage'), charts.el),
    h('section', { 'aria-labelledby': 'h-runs' }, h('h2', { id: 'h-runs' }, 'Exécutions en cours'), secRuns),
    h('section', { 'aria-labelledby': 'h-last' }, h('h2', { id: 'h-last' }, 'Dernières exécutions terminées'), secLast),
    h('section', { 'aria-labelledby': 'h-health' }, h('h2', { id: 'h-health' }, 'Services'), secHealth),
    h('section', { 'aria-labelledby': 'h-jobs' },
      h('h2', { id: 'h-jobs' }, 'Lancer une tâche'),
      h('div', { class: 'toolbar' }, cleanupBtn),
      crawlerReason),
    h('section', { 'aria-labelledby': 'h-followed' }, h('h2', { id: 'h-followed' }, 'Demandes suivies'), followed.el),
    h('section', { 'aria-labelledby': 'h-pending' }, h('h2', { id: 'h-pending' }, 'Demandes en attente'), secJobs),
    h('section', { 'aria-labelledby': 'h-failed' }, h('h2', { id: 'h-failed' }, 'Demandes en échec'), secFailed),
    h('section', { 'aria-labelledby': 'h-queue' }, h('h2', { id: 'h-queue' }, 'File d’enrichissement'), secQueue),
    h('section', { 'aria-labelledby': 'h-stats' }, h('h2', { id: 'h-stats' }, 'Statistiques'), secStats),
  );
  jobTypes({ signal: ctrl.signal }).then((types) => {
    if (destroyed) return;
    jobButtons.push(...types.map(jobButton));
    cleanupBtn.before(...jobButtons);
    if (lastHealthRows) updateJobButtons(lastHealthRows);
  }, (e) => {
    if (!destroyed) cleanupBtn.after(errorBox(e));
  });
  const monitor = liveMonitor();
  root.append(monitor.el);

  function renderRuns(runs) {
    clear(secRuns).append(table(
      [
        { label: 'N°', render: (r) => fmtText(r.id) },
        { label: 'Tâche', render: (r) => jobTypeLabel(r.type) },
        { label: 'Statut', render: (r) => h('span', null, badge(runStatusLabel(r.status), 'info'), r.cancel_requested ? h('span', { class: 'muted' }, ' annulation demandée') : null) },
        { label: 'Depuis', render: (r) => `${fmtDuration(secondsBetween(r.started_at))} (${fmtDate(r.started_at)})` },
        { label: 'Progression', render: (r) => h('div', null, runProgress(r), statsWords(r.stats)) },
        {
          label: 'Action',
          render: (r) => r.cancel_requested
            ? h('span', { class: 'muted' }, 'annulation en cours…')
            : actionButton('Annuler', () => api.post(`/admin/api/crawl-runs/${encodeURIComponent(r.id)}/cancel`, {}), {
              confirmText: `Demander l’annulation de l’exécution n° ${r.id} (${jobTypeLabel(r.type)}) ?`,
              danger: true,
              onDone: () => { flash(`Annulation demandée pour l’exécution ${r.id}.`, 'ok'); refresh(); },
            }),
        },
      ],
      runs,
      { empty: 'Aucune exécution en cours.', rowAttrs: (r) => ({ 'data-run-id': String(r.id) }) },
    ));
  }

  function renderLast(entries) {
    // Issue 29: automatic runs that took no time and changed nothing (a scheduled
    // incremental crawl with nothing new) crowded out the runs that matter; they are
    // counted in a line under the table, and stay in the Journal.
    const finished = entries.filter((e) => e.kind === 'run' && e.finished_at);
    const idle = (e) => e.status === 'success' && secondsBetween(e.started_at, e.finished_at) < 1
      && !['inserted', 'updated', 'enriched', 'failed'].some((k) => Number(e.stats?.[k]) > 0);
    const done = finished.filter((e) => !idle(e)).slice(0, 5);
    const hidden = finished.slice(0, Math.max(5, finished.indexOf(done[done.length - 1]) + 1)).filter(idle).length;
    append(clear(secLast), [table(
      [
        { label: 'N°', render: (r) => fmtText(r.id) },
        { label: 'Tâche', render: (r) => jobTypeLabel(r.type) },
        { label: 'Résultat', render: (r) => badge(runStatusLabel(r.status), r.status === 'success' ? 'ok' : r.status === 'error' ? 'bad' : 'warn') },
        { label: 'Fin', render: (r) => since(r.finished_at) },
        { label: 'Durée', render: (r) => fmtDuration(secondsBetween(r.started_at, r.finished_at)) },
        { label: 'Erreur', render: (r) => (r.error ? h('span', { class: 'error-text clamp' }, r.error) : '—') },
      ],
      done,
      { empty: 'Aucune exécution terminée.', rowAttrs: (r) => ({ 'data-run-id': String(r.id) }) },
    ), hidden ? h('p', { class: 'muted', id: 'last-runs-idle' }, `${hidden} exécution(s) automatique(s) sans effet (moins d’une seconde, rien de changé) non listée(s) ici.`) : null,
    h('p', null, h('a', { href: '#/journal?kind=run' }, 'Tout le journal des exécutions →'))]);
  }

  function renderPending(jobs) {
    clear(secJobs).append(table(
      [
        { label: 'N°', render: (r) => fmtText(r.id) },
        { label: 'Tâche', render: (r) => jobTypeLabel(r.job_type) },
        { label: 'Statut', render: (r) => runStatusLabel(r.status ?? 'pending') },
        { label: 'Demandée', render: (r) => since(r.created_at) },
        { label: 'Par', render: (r) => fmtText(r.created_by), className: 'created-by' },
        {
          label: 'Action',
          render: (r) => actionButton('Annuler', () => api.post(`/admin/api/job-triggers/${encodeURIComponent(r.id)}/cancel`, {}), {
            onDone: () => { flash(`Demande ${r.id} annulée.`, 'ok'); refresh(); },
          }),
        },
      ],
      jobs,
      { empty: 'Aucune demande en attente.', rowAttrs: (r) => ({ 'data-trigger-id': String(r.id) }) },
    ));
  }

  function renderFailed(jobs) {
    clear(secFailed).append(table(
      [
        { label: 'N°', render: (r) => fmtText(r.id) },
        { label: 'Tâche', render: (r) => jobTypeLabel(r.job_type) },
        { label: 'Demandée', render: (r) => since(r.created_at) },
        { label: 'Par', render: (r) => fmtText(r.created_by) },
        { label: 'Raison', render: (r) => h('span', { class: 'error-text' }, fmtText(r.error)) },
      ],
      jobs,
      { empty: 'Aucune demande en échec.', rowAttrs: (r) => ({ 'data-trigger-id': String(r.id) }) },
    ));
  }

  function renderQueue(queue, enrichQueue) {
    clear(secQueue);
    const labelled = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [QUEUE_LABELS[k] ?? k, v]));
    if (!queue) {
      secQueue.append(kvList(labelled({ total: enrichQueue })));
      return;
    }
    secQueue.append(kvList(labelled({ total: queue.total, ...(queue.by_priority || {}) })));
    const next = asList(queue.next);
    if (next.length) {
      secQueue.append(h('details', null, h('summary', null, `Prochains groupes (${next.length})`), table(
        [
          { label: 'ma_id', render: (r) => h('a', { href: `#/bands?q=${encodeURIComponent(r.ma_id)}&open=${encodeURIComponent(r.ma_id)}` }, fmtText(r.ma_id)) },
          { label: 'Nom', render: (r) => fmtText(r.name) },
          { label: 'Pourquoi', render: (r) => QUEUE_LABELS[r.priority] ?? fmtText(r.priority) },
        ],
        next,
      )));
    }
  }

  function renderStats(stats) {
    clear(secStats);
    secStats.append(
      kvList({ 'groupes': stats.bands_total, 'enrichis': stats.enriched, 'géocodés': stats.geocoded }),
      h('div', { class: 'three-col' },
        keyCountList('Par pays', stats.by_country),
        keyCountList('Par genre (mot-clé)', stats.by_genre_keyword),
        keyCountList('Par statut du groupe', stats.by_status)),
    );
  }

  function updateJobButtons(healthRows) {
    lastHealthRows = healthRows;
    const { alive, reason } = crawlerStatus(healthRows);
    for (const btn of jobButtons) {
      if (btn.dataset.service === 'crawler') {
        btn.disabled = !alive;
        btn.title = alive ? '' : reason;
      }
    }
    crawlerReason.textContent = alive ? '' : reason;
    crawlerReason.hidden = alive;
  }

  async function refresh() {
    if (busy || destroyed) return;
    busy = true;
    refreshBtn.disabled = true;
    const opts = { signal: ctrl.signal };
    const [live, health, stats, queue, failed, last] = await Promise.allSettled([
      api.get('/admin/api/live', null, opts),
      api.get('/admin/api/health', null, opts),
      api.get('/admin/api/stats', null, opts),
      api.get('/admin/api/queue', null, opts),
      api.get('/admin/api/job-triggers', { status: 'error', limit: 10 }, opts),
      api.get('/admin/api/activity', { kind: 'run', limit: 30 }, opts),
    ]);
    busy = false;
    refreshBtn.disabled = false;
    if (destroyed) return;

    let healthRows = [];
    if (health.status === 'fulfilled') healthRows = asList(health.value);
    else if (live.status === 'fulfilled') healthRows = asList(live.value?.services);
    if (health.status === 'fulfilled' || live.status === 'fulfilled') {
      clear(secHealth).append(healthCards(healthRows));
      updateJobButtons(healthRows);
    } else {
      clear(secHealth).append(errorBox(health.reason));
    }
    if (last.status === 'fulfilled') renderLast(asList(last.value));
    else clear(secLast).append(errorBox(last.reason));
    const failedJobs = failed.status === 'fulfilled' ? asList(failed.value) : [];
    if (failed.status === 'fulfilled') renderFailed(failedJobs);
    else clear(secFailed).append(errorBox(failed.reason));

    if (live.status === 'fulfilled') {
      const lv = live.value || {};
      const runs = asList(lv.runs);
      renderRuns(runs);
      renderPending(asList(lv.pending_jobs));
      const bandsTotal = stats.status === 'fulfilled' ? stats.value?.bands_total : undefined;
      clear(secGeocoder).append(pipeline(lv.geocoder, bandsTotal, lv.geocoder?.processed_last_hour));
      clear(secBanner).append(banner(verdict({ healthRows, counts: lv.geocoder, failedJobs, runs })));
    } else {
      for (const s of [secRuns, secJobs, secGeocoder, secBanner]) clear(s).append(errorBox(live.reason));
    }
    if (queue.status === 'fulfilled') renderQueue(queue.value, live.value?.enrich_queue);
    else clear(secQueue).append(errorBox(queue.reason));
    if (stats.status === 'fulfilled') renderStats(stats.value || {});
    else clear(secStats).append(errorBox(stats.reason));

    stamp.textContent = `Actualisé à ${new Date().toLocaleTimeString('fr-FR')}`;
  }

  function schedule() {
    clearInterval(timer);
    timer = autoBox.checked ? setInterval(refresh, OVERVIEW_REFRESH_MS) : null;
  }
  autoBox.addEventListener('change', schedule);

  refresh();
  charts.load();
  schedule();

  return () => {
    destroyed = true;
    clearInterval(timer);
    ctrl.abort();
    monitor.stop();
    followed.stop();
  };
}

/** Live monitor: streams log lines with min_id; refresh 3/5/10/30 s; buffer ≤ 500 lines. */
function liveMonitor() {
  let timer = null;
  let lastId = null;
  let running = true;
  let inFlight = false;
  const lines = []; // {id, at, level, message, run_id}

  const intervalSel = h('select', { id: 'monitor-interval', name: 'interval' },
    MONITOR_INTERVALS.map((s) => h('option', { value: String(s), selected: s === 5 }, `${s} s`)));
  const toggle = h('button', { type: 'button', id: 'monitor-toggle', 'aria-pressed': 'false' }, 'Pause');
  const clearBtn = h('button', { type: 'button' }, 'Vider');
  const status = h('span', { class: 'muted', 'aria-live': 'polite' });
  const list = h('ol', { class: 'log-lines', id: 'monitor-lines', 'aria-label': 'Lignes de journal', tabindex: '0' });

  const el = h('section', { 'aria-labelledby': 'h-monitor', class: 'monitor' },
    h('h2', { id: 'h-monitor' }, 'Moniteur en direct'),
    h('div', { class: 'toolbar' },
      h('label', { for: 'monitor-interval' }, 'Rafraîchissement'), intervalSel, toggle, clearBtn, status),
    list);

  function renderLines(newLines) {
    const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 20;
    for (const l of newLines) {
      list.append(h('li', { class: `log level-${String(l.level || '').toLowerCase()}` },
        h('span', { class: 'log-at' }, fmtDate(l.at)), ' ',
        h('span', { class: 'log-level' }, fmtText(l.level)), ' ',
        l.run_id !== null && l.run_id !== undefined ? h('span', { class: 'log-run' }, `#${l.run_id} `) : null,
        h('span', { class: 'log-msg' }, fmtText(l.message))));
    }
    while (list.childElementCount > LOG_BUFFER_MAX) list.firstElementChild.remove();
    if (stick) list.scrollTop = list.scrollHeight;
  }

  async function tick() {
    if (!running || inFlight) return;
    inFlight = true;
    try {
      let items;
      if (lastId === null) {
        // First call: the latest lines (order unspecified without min_id → sort).
        items = asList(await api.get('/admin/api/logs', { limit: 100 }));
      } else {
        items = asList(await api.get('/admin/api/logs', { min_id: lastId, limit: LOG_BUFFER_MAX }));
      }
      items = items.filter((l) => l && l.id !== undefined).sort((a, b) => Number(a.id) - Number(b.id));
      if (lastId !== null) items = items.filter((l) => Number(l.id) > lastId);
      if (items.length) {
        lastId = Number(items[items.length - 1].id);
        lines.push(...items);
        if (lines.length > LOG_BUFFER_MAX) lines.splice(0, lines.length - LOG_BUFFER_MAX);
        renderLines(items.slice(-LOG_BUFFER_MAX));
      } else if (lastId === null) {
        lastId = 0;
      }
      status.textContent = `${lines.length} lignes (max ${LOG_BUFFER_MAX}) — ${new Date().toLocaleTimeString('fr-FR')}`;
    } catch (e) {
      if (e.code !== 'aborted') status.textContent = `Erreur : ${errorText(e)}`;
    } finally {
      inFlight = false;
    }
  }

  function schedule() {
    clearInterval(timer);
    timer = running ? setInterval(tick, Number(intervalSel.value) * 1000) : null;
  }
  intervalSel.addEventListener('change', schedule);
  toggle.addEventListener('click', () => {
    running = !running;
    toggle.textContent = running ? 'Pause' : 'Reprendre';
    toggle.setAttribute('aria-pressed', running ? 'false' : 'true');
    if (running) tick();
    schedule();
  });
  clearBtn.addEventListener('click', () => {
    lines.length = 0;
    clear(list);
  });

  tick();
  schedule();
  return { el, stop: () => { running = false; clearInterval(timer); } };
}
