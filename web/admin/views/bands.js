// Groupes: find and correct bands. Filters live in the hash query
// (#/bands?q=...&has_conflict=true&open=<ma_id>) so a view can be linked.
import { api } from '../api.js';
import { h, clear, safeUrl, DASH } from '/lib/dom.js';
import { fmtNum, fmtDate, fmtText, fmtCost } from '../format.js';
import { table, badge, kvList, field, select, pre } from '../widgets.js';
import { navigate, replaceQuery, formParams } from '../router.js';
import { flash, errorBox, actionButton, pager, loadInto, errorText } from '../ui.js';
import { fieldLabel, geoStatusLabel, actionLabel, stepText } from '../words.js';
import { diffTable } from './journal.js';
import { bandMap } from '../band-map.js';

const DETAIL_FIELDS = ['country', 'country_code', 'location_text', 'genre', 'themes', 'status', 'formed_year', 'lat', 'lon', 'enriched', 'enrich_pending', 'updated_at', 'crawled_at', 'first_seen_at'];

/** The band's fields as French label → shown value (dates and yes/no in words). */
function bandFacts(band) {
  const out = {};
  for (const k of DETAIL_FIELDS) {
    const v = band[k];
    out[fieldLabel(k)] = typeof v === 'boolean' ? (v ? 'oui' : 'non') : /_at$/.test(k) && v ? fmtDate(v) : v;
  }
  return out;
}

export const EDITABLE = ['name', 'genre', 'themes', 'status', 'country', 'location_text', 'formed_year'];
const FILTER_KEYS = ['q', 'location_q', 'themes_q', 'genre', 'country', 'status', 'has_lat', 'has_location', 'has_conflict', 'sort', 'limit'];
const SORTS = [
  ['', 'Nom (défaut)'], ['-name', 'Nom ↓'], ['ma_id', 'ma_id ↑'], ['-ma_id', 'ma_id ↓'], ['country', 'Pays ↑'], ['-country', 'Pays ↓'],
  ['formed_year', 'Année ↑'], ['-formed_year', 'Année ↓'], ['updated_at', 'Modifié ↑'], ['-updated_at', 'Modifié ↓'],
];
const BOOL_OPTS = [['', 'indifférent'], ['true', 'oui'], ['false', 'non']];

function paramsObj(params) {
  const o = {};
  for (const [k, v] of params.entries()) if (v !== '') o[k] = v;
  return o;
}

export function mount(root, params) {
  const state = paramsObj(params);
  const ctrl = new AbortController();
  const opts = { signal: ctrl.signal };
  const maxLen = { maxlength: '100' };

  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filtres des groupes' },
    field('Recherche (nom ou ma_id)', h('input', { id: 'bands-q', name: 'q', type: 'search', value: state.q || '', ...maxLen })),
    field('Localisation', h('input', { id: 'bands-location_q', name: 'location_q', value: state.location_q || '', ...maxLen })),
    field('Thèmes', h('input', { id: 'bands-themes_q', name: 'themes_q', value: state.themes_q || '', ...maxLen })),
    field('Genre', h('input', { id: 'bands-genre', name: 'genre', value: state.genre || '', ...maxLen })),
    field('Pays', h('input', { id: 'bands-country', name: 'country', value: state.country || '', ...maxLen })),
    field('Statut', h('input', { id: 'bands-status', name: 'status', value: state.status || '', list: 'band-status-list', ...maxLen })),
    h('datalist', { id: 'band-status-list' }, ['Active', 'Split-up', 'On hold', 'Changed name', 'Unknown', 'Disputed'].map((s) => h('option', { value: s }))),
    field('Coordonnées', select('has_lat', BOOL_OPTS, state.has_lat, { id: 'bands-has_lat' })),
    field('Localisation renseignée', select('has_location', BOOL_OPTS, state.has_location, { id: 'bands-has_location' })),
    field('Conflit en attente', select('has_conflict', BOOL_OPTS, state.has_conflict, { id: 'bands-has_conflict' })),
    field('Tri', select('sort', SORTS, state.sort, { id: 'bands-sort' })),
    field('Par page', select('limit', [['', '50'], ['20', '20'], ['100', '100'], ['500', '500']], state.limit, { id: 'bands-limit' })),
    h('div', { class: 'field actions' },
      h('button', { type: 'submit', class: 'primary', id: 'bands-submit' }, 'Filtrer'),
      h('button', { type: 'button', id: 'bands-reset', onclick: () => navigate('bands', {}) }, 'Réinitialiser')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    navigate('bands', formParams(form));
  });

  let currentMap = null; // the open band's step map (destroyed when replaced or unmounted)
  const listEl = h('div', { class: 'list' });
  const detailEl = h('section', { class: 'detail', 'aria-label': 'Détail du groupe', id: 'band-detail', hidden: true, tabindex: '-1' });
  root.append(h('div', { class: 'view-head' }, h('h1', null, 'Groupes')), form, h('div', { class: 'split' }, listEl, detailEl));

  function query() {
    const q = {};
    for (const k of FILTER_KEYS) if (state[k]) q[k] = state[k];
    if (state.offset) q.offset = state.offset;
    return q;
  }

  function loadList() {
    return loadInto(listEl, async () => {
      const data = await api.get('/admin/api/bands', query(), opts);
      const items = Array.isArray(data?.items) ? data.items : [];
      return h('div', null,
        h('p', { class: 'muted', 'aria-live': 'polite' }, `${fmtNum(data?.total)} groupe(s)`),
        table(
          [
            { label: 'ma_id', render: (b) => fmtText(b.ma_id) },
            {
              label: 'Nom',
              render: (b) => h('button', { type: 'button', class: 'link band-open', 'data-ma-id': String(b.ma_id), onclick: () => openDetail(b.ma_id, true) }, fmtText(b.name)),
            },
            { label: 'Pays', render: (b) => fmtText(b.country) },
            { label: 'Localisation', render: (b) => fmtText(b.location_text) },
            { label: 'Genre', render: (b) => fmtText(b.genre) },
            { label: 'Statut', render: (b) => fmtText(b.status) },
            { label: 'Année', render: (b) => fmtText(b.formed_year) },
            { label: 'Coord.', render: (b) => (b.lat === null || b.lat === undefined ? DASH : `${fmtNum(b.lat, 3)}, ${fmtNum(b.lon, 3)}`) },
            {
              label: 'Drapeaux',
              render: (b) => h('span', { class: 'chips' },
                b.locked || (b.locked_fields && b.locked_fields.length) ? badge('verrouillé', 'info') : null,
                b.has_conflict ? badge('conflit', 'warn') : null,
                b.enrich_pending ? badge('à enrichir', 'muted') : null,
                b.enriched ? null : badge('non enrichi', 'muted')),
            },
          ],
          items,
          { empty: 'Aucun groupe ne correspond.', rowAttrs: (b) => ({ 'data-ma-id': String(b.ma_id), class: String(b.ma_id) === String(state.open) ? 'selected' : null }) },
        ),
        pager(data, (off) => navigate('bands', { ...stripOpen(state), offset: off })),
      );
    });
  }

  function stripOpen(s) {
    const o = { ...s };
    delete o.open;
    return o;
  }

  async function openDetail(maId, focus) {
    state.open = String(maId);
    replaceQuery('bands', state);
    for (const tr of listEl.querySelectorAll('tr[data-ma-id]')) tr.classList.toggle('selected', tr.dataset.maId === String(maId));
    detailEl.hidden = false;
    await loadInto(detailEl, async () => renderDetail(await api.get(`/admin/api/bands/${encodeURIComponent(maId)}`, null, opts)));
    if (focus) detailEl.focus();
  }

  function closeDetail() {
    delete state.open;
    replaceQuery('bands', state);
    detailEl.hidden = true;
    clear(detailEl);
    for (const tr of listEl.querySelectorAll('tr.selected')) tr.classList.remove('selected');
  }

  async function reloadAfterWrite(maId) {
    await openDetail(maId, false);
    loadList();
  }

  /** The steps on a small map (replaces the previous band's). */
  function stepMap(locations) {
    if (currentMap) currentMap.destroy();
    currentMap = bandMap(locations);
    return h('div', { class: 'step-map' }, h('h3', null, 'Carte des étapes'), currentMap.el);
  }

  function renderDetail(data) {
    const band = data?.band || {};
    const locations = Array.isArray(data?.locations) ? data.locations : [];
    const calls = Array.isArray(data?.llm_calls) ? data.llm_calls : [];
    const locked = Array.isArray(band.locked_fields) ? band.locked_fields : [];
    const pending = band.crawler_pending && typeof band.crawler_pending === 'object' ? band.crawler_pending : {};
    const url = safeUrl(band.url ?? band.data?.url);
    const maId = band.ma_id;

    const wrap = h('div');
    wrap.append(
      h('div', { class: 'detail-head' },
        h('h2', { id: 'band-detail-title' }, fmtText(band.name)),
        h('button', { type: 'button', class: 'close', 'aria-label': 'Fermer le détail', onclick: closeDetail }, '×')),
      h('p', { class: 'muted' }, `ma_id ${fmtText(maId)} `, url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, 'page amont ↗') : null),
      stepMap(locations),
      kvList(bandFacts(band)),
      h('h3', null, 'Champs verrouillés'),
      locked.length
        ? h('div', null,
          h('p', { class: 'muted hint' }, 'Un champ verrouillé garde la valeur admin : le crawler ne l’écrase pas. « Déverrouiller » lui rend la main ; le groupe est remis en file d’enrichissement pour relire la valeur du site source.'),
          h('ul', { class: 'locked-list' }, locked.map((f) => h('li', { 'data-field': f },
            badge(fieldLabel(f), 'info'), ' ',
            f in pending
              ? h('span', { class: 'muted' }, 'conflit en attente : tranchez-le ci-dessous')
              : actionButton('Déverrouiller', () => api.post(`/admin/api/bands/${encodeURIComponent(maId)}/unlock`, { field: f }), {
                className: 'unlock',
                title: `Déverrouiller « ${fieldLabel(f)} »`,
                onDone: () => { flash(`« ${fieldLabel(f)} » déverrouillé : la prochaine lecture du site source le mettra à jour.`, 'ok'); return reloadAfterWrite(maId); },
              })))))
        : h('p', { class: 'muted' }, 'Aucun.'),
    );

    // Conflicts
    const conflictKeys = Object.keys(pending);
    wrap.append(h('h3', null, `Conflits en attente (${conflictKeys.length})`));
    if (!conflictKeys.length) wrap.append(h('p', { class: 'muted' }, 'Aucun.'));
    else {
      wrap.append(table(
        [
          { label: 'Champ', render: (f) => fieldLabel(f.field) },
          { label: 'Valeur admin', render: (f) => fmtText(band[f.field]) },
          { label: 'Valeur amont', render: (f) => fmtText(f.upstream) },
          {
            label: 'Résolution',
            render: (f) => h('span', { class: 'toolbar' },
              actionButton('Garder la mienne', () => api.post(`/admin/api/bands/${encodeURIComponent(maId)}/resolve-conflict`, { field: f.field, action: 'keep' }), {
                onDone: () => { flash(`Conflit « ${f.field} » : valeur admin conservée.`, 'ok'); return reloadAfterWrite(maId); },
              }),
              actionButton('Accepter l’amont', () => api.post(`/admin/api/bands/${encodeURIComponent(maId)}/resolve-conflict`, { field: f.field, action: 'accept' }), {
                onDone: () => { flash(`Conflit « ${f.field} » : valeur amont acceptée.`, 'ok'); return reloadAfterWrite(maId); },
              })),
          },
        ],
        conflictKeys.map((k) => ({ field: k, upstream: pending[k] })),
        { rowAttrs: (f) => ({ 'data-field': f.field }) },
      ));
    }

    // Edit form
    wrap.append(h('h3', null, 'Modifier'), editForm(band, locked, () => reloadAfterWrite(maId)));

    // Locations
    wrap.append(h('h3', null, `Localisations (${locations.length})`), table(
      [
        { label: 'Id', render: (l) => h('a', { href: `#/locations?band=${encodeURIComponent(maId)}` }, fmtText(l.id)) },
        // Numbered as the public card numbers them: the row's line in the path (issue 29).
        { label: 'Étape', render: (l) => stepText(l, locations.indexOf(l) + 1) },
        { label: 'Lieu', render: (l) => fmtText(l.location_raw) },
        { label: 'Statut', render: (l) => badge(geoStatusLabel(l.status ?? l.geocode_status), statusKind(l.status ?? l.geocode_status)) },
        { label: 'Fournisseur', render: (l) => fmtText(l.provider) },
        { label: 'Confiance', render: (l) => fmtNum(l.confidence, 2), className: 'num' },
        { label: 'Coord.', render: (l) => (l.lat === null || l.lat === undefined ? DASH : `${fmtNum(l.lat, 4)}, ${fmtNum(l.lon, 4)}`) },
        { label: 'Essais', render: (l) => fmtNum(l.attempts), className: 'num' },
        { label: 'Erreur', render: (l) => fmtText(l.error) },
        { label: 'Requête', render: (l) => fmtText(l.query) },
      ],
      locations,
      { empty: 'Aucune ligne de localisation.' },
    ));

    // LLM calls
    const callsTotal = Number.isFinite(data?.llm_calls_total) ? data.llm_calls_total : calls.length;
    wrap.append(h('h3', null, `Appels LLM (${callsTotal})`));
    if (callsTotal > calls.length) {
      wrap.append(h('p', { class: 'muted' }, `Les ${calls.length} plus récents sont affichés. `,
        h('a', { href: `#/llm?ma_id=${encodeURIComponent(String(maId))}` }, 'Voir tous les appels')));
    }
    if (!calls.length) wrap.append(h('p', { class: 'muted' }, 'Aucun.'));
    for (const c of calls) wrap.append(llmCallDetails(c));

    // History from the audit log
    const historyEl = h('div', { id: 'band-history' });
    wrap.append(h('h3', null, 'Historique des modifications'), historyEl);
    loadInto(historyEl, () => bandHistory(maId, opts));

    if (band.band_page) wrap.append(h('details', null, h('summary', null, 'Page du groupe lue au site source (brut)'), pre(band.band_page)));
    return wrap;
  }

  loadList();
  if (state.open) openDetail(state.open, false);
  return () => {
    ctrl.abort();
    if (currentMap) currentMap.destroy();
  };
}

/** The band's audit rows, newest first, each opening its before/after diff. */
async function bandHistory(maId, opts) {
  const data = await api.get(`/admin/api/bands/${encodeURIComponent(maId)}/history`, { limit: 20 }, opts);
  const items = Array.isArray(data?.items) ? data.items : [];
  if (!items.length) return h('p', { class: 'empty' }, 'Aucune modification par un admin.');
  const list = h('ol', { class: 'history' });
  for (const e of items) {
    const where = typeof e.target === 'string' && e.target.startsWith('location:') ? ` (ligne ${e.target.slice(9)})` : '';
    list.append(h('li', { 'data-action': e.action ?? '' },
      h('details', null,
        h('summary', null, h('time', { datetime: e.at }, fmtDate(e.at)), ` · ${fmtText(e.username)} ${actionLabel(e.action)}${where}`),
        diffTable(e.before, e.after))));
  }
  const more = Number(data.total) > items.length
    ? h('p', { class: 'muted' }, `Les ${items.length} plus récentes sur ${fmtNum(data.total)} ; `, h('a', { href: '#/journal?kind=admin' }, 'tout le journal des actions'))
    : null;
  return h('div', null, list, more);
}

export function statusKind(s) {
  if (s === 'done') return 'ok';
  if (s === 'error') return 'bad';
  if (s === 'llm_needed' || s === 'manual' || s === 'country_only') return 'warn';
  return 'muted';
}

export function llmCallDetails(c) {
  return h('details', { class: 'llm-call' },
    h('summary', null, `${fmtDate(c.created_at)} · ${fmtText(c.model)} · ${fmtText(c.location_raw)} → `,
      fmtText(c.extraction && typeof c.extraction === 'object' ? c.extraction.city ?? 'aucune ville' : c.extraction),
      ` · ${fmtCost(c.cost_usd)}`),
    kvList(c, ['model', 'location_raw', 'country', 'prompt_tokens', 'completion_tokens', 'cost_usd']),
    h('h4', null, 'Extraction'), pre(c.extraction),
    h('h4', null, 'Prompt'), pre(c.prompt),
    h('h4', null, 'Réponse'), pre(c.response));
}

/** Edit form: sends only the fields whose value changed. */
function editForm(band, locked, onSaved) {
  const inputs = {};
  const form = h('form', { class: 'edit-form', 'aria-label': 'Modifier le groupe' });
  for (const f of EDITABLE) {
    const v = band[f];
    const attrs = { name: f, id: `edit-${f}`, value: v === null || v === undefined ? '' : String(v) };
    const input = f === 'formed_year'
      ? h('input', { ...attrs, type: 'number', min: '1900', max: '2100', step: '1', inputmode: 'numeric' })
      : f === 'themes' || f === 'location_text'
        ? h('textarea', { ...attrs, rows: '2' })
        : h('input', attrs);
    if (input.tagName === 'TEXTAREA') input.value = attrs.value;
    inputs[f] = input;
    form.append(field(`${fieldLabel(f)}${locked.includes(f) ? ' (verrouillé)' : ''}`, input));
  }
  const msg = h('p', { class: 'muted', role: 'status' });
  const save = h('button', { type: 'submit', class: 'primary' }, 'Enregistrer les modifications');
  form.append(h('div', { class: 'field actions' }, save), msg);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {};
    for (const f of EDITABLE) {
      const before = band[f] === null || band[f] === undefined ? '' : String(band[f]);
      const now = inputs[f].value;
      if (now === before) continue;
      if (f === 'formed_year') {
        if (now.trim() === '') body[f] = null;
        else {
          const n = Number(now);
          if (!Number.isInteger(n)) {
            msg.textContent = 'L’année de formation doit être un entier.';
            inputs[f].focus();
            return;
          }
          body[f] = n;
        }
      } else body[f] = now;
    }
    if (!Object.keys(body).length) {
      msg.textContent = 'Aucune modification.';
      return;
    }
    save.disabled = true;
    try {
      await api.patch(`/admin/api/bands/${encodeURIComponent(band.ma_id)}`, body);
      flash(`Groupe ${band.ma_id} modifié (${Object.keys(body).map(fieldLabel).join(', ')}).`, 'ok');
      await onSaved();
    } catch (err) {
      msg.textContent = `Échec : ${errorText(err)}`;
    } finally {
      save.disabled = false;
    }
  });
  return form;
}
