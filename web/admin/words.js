// Words, not JSON: the French words the console shows for the server's keys (statuses,
// job types, run counters, heartbeat checks) and human durations. The raw keys stay in
// data-* attributes and in the <details> disclosures for those who want them.
import { fmtNum } from './format.js';
import { stepLabel } from '/map/words.js';

const GEO_STATUS = {
  pending: 'en attente',
  processing: 'en cours',
  done: 'localisé',
  country_only: 'pays seul',
  llm_needed: 'à lire par le LLM',
  manual: 'à corriger à la main',
  error: 'erreur',
};
const RUN_STATUS = {
  running: 'en cours',
  success: 'réussie',
  error: 'échec',
  cancelled: 'annulée',
  interrupted: 'interrompue',
  pending: 'en attente',
  claimed: 'prise en charge',
  done: 'terminée',
};
const JOB_TYPE = {
  incremental: 'crawl incrémental',
  enrich: 'enrichissement',
  full_crawl: 'crawl complet',
  geocoder_enqueue: 'remplissage de la file de géocodage',
};
const SERVICE = { crawler: 'Crawler', enqueue: 'File de géocodage', geocoder: 'Géocodeur', llm: 'Lecteur LLM', api: 'API' };
const STAT = {
  processed: 'traités', total: 'au total', failed: 'en échec', client_requests: 'requêtes au site source',
  bands_seen: 'groupes lus', inserted: 'créés', updated: 'modifiés', unchanged: 'inchangés', enriched: 'enrichis',
  countries_total: 'pays à lire', country_index: 'pays en cours (n°)', country_code: 'pays en cours',
  countries_done: 'pays terminés', pages: 'pages de liste lues', rows_skipped: 'lignes illisibles',
  months: 'mois lus', non_european_skipped: 'groupes hors Europe ignorés',
  enrich_pending_raised: 'groupes remis en file d’enrichissement', scanned: 'lignes examinées',
};
const CHECK = {
  database: 'Base de données', challenge_solver: 'Solveur de défi', last_run: 'Dernière exécution',
  last_scan: 'Dernier remplissage', provider_key: 'Clé du fournisseur', provider_reachable: 'Fournisseur joignable',
  progress: 'Progression', gazetteer: 'Gazetteer hors ligne', api_key: 'Clé d’API LLM', api: 'API LLM',
};

const pick = (dict, key) => (key === null || key === undefined ? '—' : dict[key] ?? String(key).replace(/_/g, ' '));
export const geoStatusLabel = (s) => pick(GEO_STATUS, s);
export const runStatusLabel = (s) => pick(RUN_STATUS, s);
export const jobTypeLabel = (t) => pick(JOB_TYPE, t);
export const serviceLabel = (s) => pick(SERVICE, s);
export const statLabel = (k) => pick(STAT, k);
export const checkLabel = (k) => pick(CHECK, k);

/** 896 → "15 min", 42 → "42 s", 5400 → "1 h 30", 200000 → "2 j 8 h". */
export function fmtDuration(seconds) {
  const s = Number(seconds);
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) {
    const hrs = Math.floor(s / 3600);
    const min = Math.round((s % 3600) / 60);
    return min ? `${hrs} h ${String(min).padStart(2, '0')}` : `${hrs} h`;
  }
  const d = Math.floor(s / 86400);
  const hrs = Math.round((s % 86400) / 3600);
  return hrs ? `${d} j ${hrs} h` : `${d} j`;
}

/** "il y a 15 min" from seconds. */
export const agoText = (seconds) => `il y a ${fmtDuration(seconds)}`;

/** Seconds between two dates (end defaults to now). */
export function secondsBetween(start, end) {
  const a = new Date(start).getTime();
  const b = end ? new Date(end).getTime() : Date.now();
  return Number.isFinite(a) && Number.isFinite(b) ? Math.max(0, (b - a) / 1000) : NaN;
}

/** A run's stats object as French "label : value" pairs; null values and empty lists skipped. */
export function statsPairs(stats) {
  if (!stats || typeof stats !== 'object' || Array.isArray(stats)) return [];
  const out = [];
  for (const [k, v] of Object.entries(stats)) {
    if (v === null || v === undefined || v === '') continue;
    if (Array.isArray(v)) {
      if (v.length) out.push([statLabel(k), v.join(', ')]);
    } else if (typeof v === 'object') continue;
    else out.push([statLabel(k), typeof v === 'number' ? fmtNum(v) : String(v)]);
  }
  return out;
}

/** One sentence for the detail of a successful check (any JSON the service wrote). */
function detailSentence(name, d) {
  if (d === null || d === undefined) return 'ok';
  if (typeof d === 'string') {
    if (d === 'present') return 'présente';
    if (d === 'ok' || d === 'reachable') return 'joignable';
    const m = /^(\d+) places$/.exec(d);
    if (m) return `${fmtNum(Number(m[1]))} lieux chargés`;
    if (d.startsWith('reachable')) return `joignable ${d.slice('reachable'.length).trim()}`.trim();
    if (d.startsWith('disabled: ')) return `désactivé (${d.slice(10)})`;
    if (d.startsWith('not needed')) return `pas nécessaire (${d.replace(/^not needed:?\s*/, '')})`;
    if (d === 'no scan finished yet') return 'aucun remplissage terminé pour l’instant (service récent)';
    return d;
  }
  if (typeof d === 'number' || typeof d === 'boolean') return String(d);
  const parts = [];
  if ('age_hours' in d) parts.push(`dernière exécution${d.status ? ' ' + runStatusLabel(d.status) : ''} il y a ${fmtDuration(Number(d.age_hours) * 3600)}`);
  if ('run_id' in d) parts.push(`(n° ${d.run_id})`);
  if ('last_success_age_s' in d) parts.push(`dernier remplissage réussi ${agoText(d.last_success_age_s)}`);
  if ('pending' in d) parts.push(`${fmtNum(d.pending)} ligne(s) en attente`);
  if ('last_finished' in d) parts.push(d.last_finished ? `dernière ligne traitée ${agoText(secondsBetween(d.last_finished))}` : 'aucune ligne traitée encore');
  if ('due' in d) parts.push(`${fmtNum(d.due)} ligne(s) à lire`);
  if ('calls_last_6h' in d) parts.push(d.calls_last_6h ? 'appels dans les 6 dernières heures' : 'aucun appel depuis 6 h');
  if ('models' in d) parts.push(`${fmtNum(d.models)} modèle(s) disponibles`);
  if (parts.length) return parts.join(', ');
  return name ? 'ok (voir le détail)' : 'ok';
}

/** Server messages known in English, said in French; others kept as written. */
function reasonSentence(r) {
  const s = String(r ?? '');
  if (/LLM_API_KEY is not set/.test(s)) return 'LLM_API_KEY n’est pas défini : le lecteur LLM est à l’arrêt';
  if (s === 'GEOCODING_API_KEY missing') return 'GEOCODING_API_KEY n’est pas défini : pas de fournisseur de géocodage';
  if (s === 'probe timed out') return 'la vérification n’a pas répondu à temps';
  if (s === 'probe panicked') return 'la vérification a planté';
  if (s === 'no finished crawler run yet') return 'aucune exécution du crawler terminée pour l’instant';
  if (s === 'no successful scan yet') return 'aucun remplissage réussi pour l’instant';
  let m = /^(\d+) rows? pending and none finished in the last (\d+) h$/.exec(s);
  if (m) return `${m[1]} ligne(s) en attente et aucune traitée depuis ${m[2]} h`;
  m = /^last successful scan finished (\d+) min ago \(limit (\d+) min\)$/.exec(s);
  if (m) return `dernier remplissage réussi il y a ${fmtDuration(Number(m[1]) * 60)} (limite ${fmtDuration(Number(m[2]) * 60)})`;
  return s;
}

/**
 * One heartbeat check → {ok, text}. Shapes written by the services:
 * {"ok": true, "detail": any} | {"ok": false, "error": "why"} | a bare boolean.
 */
export function checkSentence(name, v) {
  if (typeof v === 'boolean') return { ok: v, text: v ? 'ok' : 'en échec' };
  if (!v || typeof v !== 'object') return { ok: null, text: v === null || v === undefined ? '—' : String(v) };
  const ok = 'ok' in v ? !!v.ok : null;
  if (ok === false) return { ok, text: reasonSentence(v.error ?? v.message ?? v.detail ?? 'en échec') };
  return { ok, text: detailSentence(name, 'detail' in v ? v.detail : v.message ?? null) };
}

const ACTION = {
  'band.patch': 'a modifié le groupe',
  'band.resolve_conflict': 'a tranché un conflit du groupe',
  'band.resolve_conflict.keep': 'a gardé la valeur admin d’un conflit',
  'band.resolve_conflict.accept': 'a accepté la valeur du site source d’un conflit',
  'band.unlock': 'a déverrouillé un champ',
  'location.patch': 'a placé à la main la localisation',
  'location.requeue': 'a relancé la localisation',
  'locations.reset_errors': 'a relancé les localisations en erreur',
  'locations.reset_llm': 'a relancé les localisations LLM / manuelles',
  'locations.requeue_all': 'a remis en file toutes les localisations',
  'locations.reset_all': 'a réinitialisé toutes les localisations',
  'geocode_cache.purge_legacy_provider': 'a purgé le cache du fournisseur historique',
  'job_trigger.create': 'a demandé une tâche',
  'job_trigger.cancel': 'a annulé une demande de tâche',
  'crawl_run.cancel': 'a demandé l’annulation d’une exécution',
  'crawl_runs.cleanup': 'a nettoyé les exécutions bloquées',
};
export const actionLabel = (a) => pick(ACTION, a);

const FIELD = {
  name: 'Nom', country: 'Pays', country_code: 'Code pays', location_text: 'Localisation', genre: 'Genre',
  themes: 'Thèmes', status: 'Statut', formed_year: 'Année de formation', lat: 'Latitude', lon: 'Longitude',
  enriched: 'Enrichi', enrich_pending: 'À relire', updated_at: 'Modifié le', crawled_at: 'Lu le',
  first_seen_at: 'Vu la première fois le',
  // location rows (Journal diffs of location.patch / location.requeue)
  id: 'Id', ma_id: 'Groupe (ma_id)', band_name: 'Groupe', step_order: 'Ordre de l’étape', step_label: 'Période',
  location_raw: 'Lieu', attempts: 'Essais', error: 'Erreur', provider: 'Fournisseur', confidence: 'Confiance',
  granularity: 'Précision', query: 'Requête', geocode_status: 'Statut', years_active: 'Années d’activité',
  label: 'Label', locked_fields: 'Champs verrouillés',
};
export const fieldLabel = (f) => pick(FIELD, f);

// The server's error messages (English, for API clients) said in French to the operator
// (issue 29: "name cannot be empty (HTTP 400, bad_request)" was shown as is). The status
// and code stay on the error object for those who need them.
const ERROR_KIND = {
  400: 'demande refusée', 401: 'session expirée ou absente', 403: 'action interdite', 404: 'introuvable',
  409: 'conflit avec l’état actuel', 413: 'demande trop grosse', 422: 'demande refusée', 429: 'trop de demandes, réessayez dans un instant',
  500: 'erreur du serveur', 502: 'serveur injoignable', 503: 'service indisponible', 504: 'le serveur n’a pas répondu à temps',
};
const ERROR_MESSAGES = [
  [/^name cannot be empty$/, () => 'le nom ne peut pas être vide'],
  [/^days must be between 1 and 90$/, () => 'le nombre de jours doit être compris entre 1 et 90'],
  [/^job_type is required$/, () => 'le type de tâche est requis'],
  [/^q \(the location text\) is required$/, () => 'le texte du lieu est requis'],
  [/^the body must be a JSON object$/, () => 'le contenu envoyé n’est pas un objet JSON'],
  [/^no band (\d+)$/, (m) => `aucun groupe n° ${m[1]}`],
  [/^no band_locations row (\d+)$/, (m) => `aucune ligne de localisation n° ${m[1]}`],
  [/^no crawl run (\d+)$/, (m) => `aucune exécution n° ${m[1]}`],
  [/^no job (?:request|trigger) (\d+)$/, (m) => `aucune demande de tâche n° ${m[1]}`],
  [/^(\w+) must be an integer$/, (m) => `« ${fieldLabel(m[1])} » doit être un nombre entier`],
  [/^field must be one of: (.*)$/, (m) => `champ inconnu (champs possibles : ${m[1]})`],
  [/^invalid body: (.*)$/, (m) => `contenu invalide (${m[1]})`],
  [/^invalid query: (.*)$/, (m) => `paramètres invalides (${m[1]})`],
  [/^lat must be/, () => 'la latitude doit être comprise entre -90 et 90'],
  [/^lon must be/, () => 'la longitude doit être comprise entre -180 et 180'],
];

/** An API error in French: what kind of refusal, then the server's reason in words when
 *  known (else as written, quoted). Network errors and timeouts keep their French text. */
export function apiErrorSentence(e) {
  const status = Number(e?.status) || 0;
  const message = String(e?.message ?? '').trim();
  if (!status) return message || 'erreur inconnue';
  const kind = ERROR_KIND[status] ?? (status >= 500 ? 'erreur du serveur' : 'demande refusée');
  for (const [re, say] of ERROR_MESSAGES) {
    const m = re.exec(message);
    if (m) return `${kind} : ${say(m)}`;
  }
  return message && !/^HTTP \d{3}\b/.test(message) ? `${kind} (détail du serveur : « ${message} »)` : kind;
}

/** The step as the operator reads it: its number in the band's path (1 = origin), or
 *  "placée à la main" for an override (step_order -1, never shown raw), and its period. */
export function stepText(l, number = null) {
  const manual = Number(l.step_order) === -1;
  const n = number ?? (Number.isFinite(Number(l.step_order)) && !manual ? Number(l.step_order) + 1 : null);
  const parts = [n === null ? null : `${n}`, manual ? 'placée à la main' : null, l.step_label ? stepLabel(l.step_label) : null].filter(Boolean);
  return parts.length ? parts.join(' · ') : '—';
}

