// Pilotage building blocks: the "is it OK?" banner, the geocoding pipeline as a flow of
// counts (each a link to the filtered Localisations view), heartbeat cards in sentences,
// and run progress with the time left.
import { h } from '/lib/dom.js';
import { fmtNum, fmtDate, fmtAgo } from '../format.js';
import { badge, pre } from '../widgets.js';
import { checkSentence, checkLabel, serviceLabel, geoStatusLabel, fmtDuration, secondsBetween } from '../words.js';
import { statusKind } from './bands.js';

/** The outcomes of the pipeline, in flow order. */
export const FLOW_STATUSES = ['done', 'country_only', 'pending', 'processing', 'llm_needed', 'manual', 'error'];

function stateBadge(row) {
  if (row.stale) return badge('muet', 'bad');
  if (row.state === 'ok') return badge('en forme', 'ok');
  if (row.state === 'degraded') return badge('dégradé', 'warn');
  return badge(String(row.state ?? '—'), 'warn');
}

/** Failed checks of a heartbeat row → ["Géocodeur : Clé du fournisseur — why"]. */
export function failedChecks(row) {
  const out = [];
  const checks = row && row.checks && typeof row.checks === 'object' ? row.checks : {};
  for (const [k, v] of Object.entries(checks)) {
    const s = checkSentence(k, v);
    if (s.ok === false) out.push(`${serviceLabel(row.service)} : ${checkLabel(k)} — ${s.text}`);
  }
  return out;
}

export function healthCards(rows) {
  if (!rows.length) return h('p', { class: 'empty' }, 'Aucun service n’a encore écrit de battement de cœur : aucun service ne tourne ou ils n’ont pas encore démarré.');
  const grid = h('div', { class: 'cards' });
  for (const row of rows) {
    const checks = row.checks && typeof row.checks === 'object' ? row.checks : {};
    const list = h('ul', { class: 'checks' });
    for (const [k, v] of Object.entries(checks)) {
      const { ok, text } = checkSentence(k, v);
      list.append(h('li', { class: ok === false ? 'bad' : ok === true ? 'good' : '', 'data-check': k },
        h('span', { class: 'check-mark', 'aria-hidden': 'true' }, ok === false ? '✗' : ok === true ? '✓' : '•'),
        h('span', { class: 'sr-only' }, ok === false ? 'échec : ' : ok === true ? 'ok : ' : ''),
        h('strong', null, checkLabel(k)), ` : ${text}`));
    }
    const age = secondsBetween(row.last_write_at);
    grid.append(
      h('article', { class: `card health ${row.stale ? 'is-stale' : ''} state-${row.state || 'unknown'}`, 'data-service': row.service || '' },
        h('h3', null, serviceLabel(row.service), ' ', stateBadge(row)),
        h('p', { class: 'muted' }, `Dernier signe de vie il y a ${fmtDuration(age)}`, row.stale ? ' — le service semble arrêté.' : '.'),
        list.childNodes.length ? list : h('p', { class: 'muted' }, 'Pas de vérifications.'),
        h('details', { class: 'raw' }, h('summary', null, 'Détail brut'), pre({ ...row }))),
    );
  }
  return grid;
}

/** Status banner: {level: ok|warn|bad, title, items[]}. */
export function verdict({ healthRows, counts, failedJobs, runs }) {
  const items = [];
  let level = 'ok';
  const worst = (l) => { if (l === 'bad' || level === 'ok') level = l; };
  if (!healthRows.length) { items.push('Aucun service ne donne signe de vie.'); worst('bad'); }
  for (const r of healthRows) {
    if (r.stale) { items.push(`${serviceLabel(r.service)} : aucun signe de vie depuis ${fmtDuration(secondsBetween(r.last_write_at))}.`); worst('bad'); }
    for (const f of failedChecks(r)) { items.push(f); worst('warn'); }
  }
  const errors = Number(counts?.error) || 0;
  if (errors) { items.push(`${fmtNum(errors)} localisation(s) en erreur.`); worst('warn'); }
  if (failedJobs.length) { items.push(`${failedJobs.length} demande(s) de tâche en échec récemment.`); worst('warn'); }
  const title = level === 'ok'
    ? `Tout va bien${runs.length ? ` — ${runs.length} exécution(s) en cours` : ''}.`
    : level === 'bad' ? 'Problème : un service ne répond plus.' : 'À surveiller :';
  return { level, title, items };
}

export function banner(v) {
  return h('div', { class: `status-banner level-${v.level}`, role: 'status', id: 'status-banner', 'data-level': v.level },
    h('strong', null, v.title),
    v.items.length ? h('ul', null, v.items.map((t) => h('li', null, t))) : null);
}

const flowLink = (status, n) => h('a', {
  class: `flow-count badge-${statusKind(status)}`, href: `#/locations?status=${encodeURIComponent(status)}`,
  'data-status': status, 'data-count': String(n),
}, h('span', { class: 'stat-num' }, fmtNum(n)), h('span', null, geoStatusLabel(status)));

/** bands → steps → outcomes. counts: the API's status counts; bands: bands_total. */
export function pipeline(counts, bands, processedLastHour) {
  const c = counts || {};
  const steps = FLOW_STATUSES.reduce((s, k) => s + (Number(c[k]) || 0), 0);
  return h('div', { class: 'pipeline', id: 'pipeline' },
    h('div', { class: 'flow-node' }, h('span', { class: 'stat-num', 'data-flow': 'bands' }, fmtNum(bands)), h('span', null, 'groupes')),
    h('span', { class: 'flow-arrow', 'aria-hidden': 'true' }, '→'),
    h('a', { class: 'flow-node', href: '#/locations' }, h('span', { class: 'stat-num', 'data-flow': 'steps' }, fmtNum(steps)), h('span', null, 'étapes de lieu')),
    h('span', { class: 'flow-arrow', 'aria-hidden': 'true' }, '→'),
    h('div', { class: 'flow-outcomes' }, FLOW_STATUSES.filter((k) => k !== 'processing' || c[k]).map((k) => flowLink(k, Number(c[k]) || 0))),
    processedLastHour !== undefined
      ? h('p', { class: 'muted flow-rate' }, `${fmtNum(processedLastHour)} ligne(s) traitée(s) dans la dernière heure.`)
      : null);
}

/** Progress of a run from its counters, with the time left at the current pace. */
export function runProgress(run) {
  const st = run.stats && typeof run.stats === 'object' ? run.stats : {};
  const total = Number(st.countries_total ?? st.total);
  const done = Number(st.countries_done ?? st.processed);
  const elapsed = secondsBetween(run.started_at);
  const line = h('div', { class: 'progress-line' });
  if (Number.isFinite(total) && total > 0 && Number.isFinite(done)) {
    const pct = Math.max(0, Math.min(100, (done / total) * 100));
    const unit = 'countries_total' in st ? 'pays' : 'éléments';
    const left = done > 0 ? (elapsed * (total - done)) / done : NaN;
    line.append(
      h('progress', { max: String(total), value: String(done), 'aria-label': 'Progression' }),
      ` ${fmtNum(done)} / ${fmtNum(total)} ${unit} (${pct.toFixed(0)} %)`,
      Number.isFinite(left) ? h('span', { class: 'muted' }, ` — encore environ ${fmtDuration(left)}`) : null);
  } else {
    line.append(h('span', { class: 'muted' }, 'Progression inconnue (pas de total dans les compteurs)'));
  }
  if (st.pages !== undefined && st.pages !== null) line.append(h('span', { class: 'muted' }, ` · ${fmtNum(st.pages)} page(s) lue(s)`));
  return line;
}

export const since = (at) => `${fmtDate(at)} (${fmtAgo(at)})`;
