// Localisations: what is stuck in geocoding. Filters status/place/band/country
// in the hash query (#/locations?status=error), per-row requeue and manual
// coordinates, bulk actions, counters from /admin/api/geocoding.
import { api, asList } from '../api.js';
import { h, clear, DASH } from '/lib/dom.js';
import { fmtNum, fmtDate, fmtText } from '../format.js';
import { table, field, select } from '../widgets.js';
import { navigate, formParams } from '../router.js';
import { flash, actionButton, resultText, pager, loadInto, errorText } from '../ui.js';
import { statusKind } from './bands.js';
import { geoStatusLabel, checkSentence, stepText } from '../words.js';
import { pickMap } from '../pick-map.js';

/** Why pending rows cannot move: the geocoder's provider is off → the reason, else ''. */
export function providerOffReason(healthRows) {
  const row = asList(healthRows).find((r) => r && r.service === 'geocoder');
  const key = row?.checks?.provider_key;
  if (!key) return '';
  const { ok, text } = checkSentence('provider_key', key);
  if (ok === false) return `le fournisseur de géocodage est coupé (${text})`;
  if (typeof key.detail === 'string' && key.detail.startsWith('not needed')) return `aucun fournisseur de géocodage n’est configuré (${text})`;
  return '';
}

/** The offline gazetteer's places for a row's text: a button that fills the coordinates
 *  and one that saves the place at once (« Utiliser ce lieu », issue 29); the places are
 *  handed to `onPlaces` (drawn on the picker map). */
async function suggestions(l, onChoose, opts, { onUse, onPlaces } = {}) {
  const data = await api.get('/admin/api/gazetteer/candidates', { q: l.location_raw, country: l.country }, opts);
  if (data && data.available === false) return h('p', { class: 'muted hint' }, 'Pas de suggestion : le gazetteer hors ligne n’est pas chargé sur ce serveur (scripts/fetch-gazetteer.sh).');
  const items = Array.isArray(data?.items) ? data.items : [];
  if (!items.length) return h('p', { class: 'muted hint' }, `Le gazetteer ne connaît aucun lieu nommé « ${fmtText(data?.name ?? l.location_raw)} ».`);
  const list = h('ul', { class: 'suggestion-list', 'aria-label': `Lieux du gazetteer pour « ${fmtText(data.name)} »` });
  for (const c of items) {
    const where = [c.admin1, c.country_code].filter(Boolean).join(', ');
    const pop = Number(c.population) > 0 ? ` · ${fmtNum(c.population)} hab.` : '';
    const lat = Number(c.lat);
    const lon = Number(c.lon);
    list.append(h('li', null, h('button', {
      type: 'button', class: `suggestion${c.in_region ? ' in-region' : ''}`, 'data-lat': String(c.lat), 'data-lon': String(c.lon),
      onclick: () => onChoose(lat, lon),
    }, `${fmtText(c.name)} (${where})${pop}${c.in_region ? ' · dans la région indiquée' : ''}`),
    onUse ? actionButton('Utiliser ce lieu', () => onUse(lat, lon, c), { className: 'use-place primary', title: `Enregistrer ${fmtText(c.name)} (${lat}, ${lon}) pour cette ligne` }) : null));
  }
  onPlaces?.(items.map((c) => ({ lat: Number(c.lat), lon: Number(c.lon), name: String(c.name ?? '') })));
  return h('div', null, h('p', { class: 'hint' }, 'Suggestions du gazetteer :'), list);
}

/** A row placed by hand: requeueing it drops the admin's point. */
const handPlaced = (l) => Number(l.step_order) === -1 || l.provider === 'manual';

export const STATUSES = ['pending', 'processing', 'done', 'country_only', 'llm_needed', 'manual', 'error'];

/** Client-side validation of manual coordinates → {lat, lon} or an error string. */
export function parseCoords(latStr, lonStr) {
  const norm = (s) => String(s).trim().replace(',', '.');
  if (norm(latStr) === '' || norm(lonStr) === '') return 'Latitude et longitude sont requises.';
  const lat = Number(norm(latStr));
  const lon = Number(norm(lonStr));
  if (!Number.isFinite(lat) || !Number.isFinite(lon)) return 'Coordonnées non numériques.';
  if (lat < -90 || lat > 90) return 'La latitude doit être comprise entre -90 et 90.';
  if (lon < -180 || lon > 180) return 'La longitude doit être comprise entre -180 et 180.';
  return { lat, lon };
}

export function mount(root, params) {
  const state = Object.fromEntries([...params.entries()].filter(([, v]) => v !== ''));
  const ctrl = new AbortController();
  const opts = { signal: ctrl.signal };

  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filtres des localisations' },
    field('Statut', select('status', [['', 'tous'], ...STATUSES.map((s) => [s, geoStatusLabel(s)])], state.status, { id: 'locations-status' })),
    field('Lieu', h('input', { id: 'locations-place', name: 'place', type: 'search', value: state.place || '', maxlength: '100' })),
    field('Groupe (nom ou ma_id)', h('input', { id: 'locations-band', name: 'band', value: state.band || '', maxlength: '100' })),
    field('Pays', h('input', { id: 'locations-country', name: 'country', value: state.country || '', maxlength: '100' })),
    field('Par page', select('limit', [['', '50'], ['100', '100'], ['500', '500']], state.limit, { id: 'locations-limit' })),
    h('div', { class: 'field actions' },
      h('button', { type: 'submit', class: 'primary', id: 'locations-submit' }, 'Filtrer'),
      h('button', { type: 'button', onclick: () => navigate('locations', {}) }, 'Réinitialiser')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    navigate('locations', formParams(form));
  });

  const countersEl = h('div', { class: 'counters' });
  const listEl = h('div');
  const bulkResult = h('p', { class: 'muted', role: 'status', id: 'bulk-result' });

  const bulk = (label, path, confirmText, danger = false) => actionButton(label, () => api.post(path, {}), {
    confirmText,
    danger,
    onDone: (res) => {
      const text = `${label} : ${resultText(res)}`;
      bulkResult.textContent = text;
      flash(text, 'ok');
      loadCounters();
      loadList();
    },
  });

  root.append(
    h('div', { class: 'view-head' }, h('h1', null, 'Localisations')),
    h('section', { 'aria-labelledby': 'h-loc-counters' }, h('h2', { id: 'h-loc-counters' }, 'Compteurs'), countersEl),
    h('section', { 'aria-labelledby': 'h-loc-bulk' },
      h('h2', { id: 'h-loc-bulk' }, 'Actions groupées'),
      h('div', { class: 'toolbar' },
        bulk('Relancer les erreurs', '/admin/api/locations/reset-errors'),
        bulk('Relancer LLM / manuel', '/admin/api/locations/reset-llm', 'Remettre en file toutes les lignes llm_needed et manual ?'),
        bulk('Tout remettre en file', '/admin/api/locations/requeue-all', 'Remettre en file TOUTES les lignes de localisation ? Elles seront toutes géocodées à nouveau.', true),
        bulk('Tout réinitialiser (efface les coordonnées)', '/admin/api/locations/reset-all',
          'DESTRUCTIF : remettre en file toutes les lignes ET effacer leurs coordonnées ? La carte se videra jusqu’au prochain géocodage.', true),
        bulk('Purger le cache du fournisseur historique', '/admin/api/geocode-cache/purge-legacy-provider',
          'DESTRUCTIF : supprimer les entrées de cache du fournisseur historique (nominatim) ?', true)),
      bulkResult),
    h('section', { 'aria-labelledby': 'h-loc-list' }, h('h2', { id: 'h-loc-list' }, 'Lignes'), form, listEl),
  );

  function loadCounters() {
    return loadInto(countersEl, async () => {
      const g = await api.get('/admin/api/geocoding', null, opts);
      const byStatus = g?.by_status && typeof g.by_status === 'object' ? g.by_status : {};
      const chips = h('div', { class: 'stat-chips' });
      for (const [k, v] of Object.entries(byStatus)) {
        chips.append(h('a', { class: `stat-chip badge-${statusKind(k)}`, href: `#/locations?status=${encodeURIComponent(k)}` },
          h('span', { class: 'stat-num' }, fmtNum(v)), h('span', null, geoStatusLabel(k))));
      }
      const providers = Array.isArray(g?.providers) ? g.providers : [];
      return h('div', null, chips,
        h('p', { class: 'muted' }, `Cache : ${fmtNum(g?.cache?.entries)} entrée(s)`),
        table(
          [
            { label: 'Fournisseur', render: (p) => fmtText(p.provider) },
            { label: 'Lignes', render: (p) => fmtNum(p.count), className: 'num' },
            { label: 'Confiance moyenne', render: (p) => fmtNum(p.avg_confidence, 2), className: 'num' },
          ],
          providers,
          { empty: 'Aucun fournisseur.', caption: 'Par fournisseur' },
        ));
    });
  }

  let waitReason = '';
  function loadList() {
    return loadInto(listEl, async () => {
      const q = { ...state };
      const [data, health] = await Promise.all([
        api.get('/admin/api/locations', q, opts),
        api.get('/admin/api/health', null, opts).catch(() => []),
      ]);
      waitReason = providerOffReason(health);
      const items = Array.isArray(data?.items) ? data.items : [];
      return h('div', null,
        h('p', { class: 'muted', 'aria-live': 'polite' }, `${fmtNum(data?.total)} ligne(s)`),
        table(
          [
            { label: 'Id', render: (l) => fmtText(l.id) },
            { label: 'Groupe', render: (l) => h('a', { href: `#/bands?q=${encodeURIComponent(l.ma_id)}&open=${encodeURIComponent(l.ma_id)}` }, fmtText(l.band_name ?? l.ma_id)) },
            { label: 'Étape', render: (l) => stepText(l) },
            { label: 'Lieu', render: (l) => fmtText(l.location_raw) },
            { label: 'Pays', render: (l) => fmtText(l.country) },
            { label: 'Statut', render: (l) => h('span', { class: `status-tag badge-${statusKind(l.status)}`, 'data-status': l.status ?? '' }, geoStatusLabel(l.status)) },
            { label: 'Essais', render: (l) => fmtNum(l.attempts), className: 'num' },
            { label: 'Erreur', render: (l) => h('span', { class: 'error-text' }, fmtText(l.error)) },
            { label: 'Fournisseur', render: (l) => fmtText(l.provider) },
            { label: 'Conf.', render: (l) => fmtNum(l.confidence, 2), className: 'num' },
            { label: 'Coord.', render: (l) => (l.lat === null || l.lat === undefined ? DASH : `${fmtNum(l.lat, 4)}, ${fmtNum(l.lon, 4)}`) },
            { label: 'Requête', render: (l) => fmtText(l.query) },
            { label: 'Modifié', render: (l) => fmtDate(l.updated_at) },
            { label: 'Actions', render: (l) => rowActions(l) },
          ],
          items,
          { empty: 'Aucune ligne ne correspond.', rowAttrs: (l) => ({ 'data-location-id': String(l.id) }) },
        ),
        pager(data, (off) => navigate('locations', { ...state, offset: off })),
      );
    });
  }

  function rowActions(l) {
    const waiting = l.status === 'pending' && waitReason;
    const requeue = waiting
      ? h('span', { class: 'wait-reason', role: 'note' }, `Déjà en file ; rien ne bouge car ${waitReason}. « Relancer » n’y changerait rien.`)
      : actionButton('Relancer', () => api.post(`/admin/api/locations/${encodeURIComponent(l.id)}/requeue`, {}), {
      // Issue 29: a hand placement is the operator's own work: ask before dropping it.
      confirmText: handPlaced(l)
        ? `La ligne ${l.id} (« ${fmtText(l.location_raw)} ») a été placée à la main${l.lat !== null && l.lat !== undefined ? ` en ${fmtNum(l.lat, 4)}, ${fmtNum(l.lon, 4)}` : ''}. La relancer efface ce point : le groupe quitte la carte pour cette étape jusqu’à ce que le géocodage la retrouve. Relancer quand même ?`
        : undefined,
      danger: handPlaced(l),
      onDone: () => { flash(`Ligne ${l.id} remise en file${handPlaced(l) ? ' ; le point placé à la main est effacé' : ''}.`, 'ok'); loadList(); loadCounters(); },
    });
    const latIn = h('input', { name: 'lat', id: `lat-${l.id}`, inputmode: 'decimal', size: '9', value: l.lat ?? '', placeholder: '48.85' });
    const lonIn = h('input', { name: 'lon', id: `lon-${l.id}`, inputmode: 'decimal', size: '9', value: l.lon ?? '', placeholder: '2.35' });
    const msg = h('span', { class: 'form-msg', role: 'status' });
    const save = h('button', { type: 'submit' }, 'Enregistrer');
    const coordForm = h('form', { class: 'coord-form', 'aria-label': `Coordonnées manuelles de la ligne ${l.id}` },
      field('Lat', latIn), field('Lon', lonIn), save, msg);
    coordForm.addEventListener('submit', async (e) => {
      e.preventDefault();
      const parsed = parseCoords(latIn.value, lonIn.value);
      if (typeof parsed === 'string') {
        msg.textContent = parsed;
        latIn.setAttribute('aria-invalid', 'true');
        lonIn.setAttribute('aria-invalid', 'true');
        return;
      }
      latIn.removeAttribute('aria-invalid');
      lonIn.removeAttribute('aria-invalid');
      save.disabled = true;
      try {
        await api.patch(`/admin/api/locations/${encodeURIComponent(l.id)}`, parsed);
        flash(`Ligne ${l.id} : coordonnées enregistrées (${parsed.lat}, ${parsed.lon}).`, 'ok');
        loadList();
        loadCounters();
      } catch (err) {
        msg.textContent = errorText(err);
      } finally {
        save.disabled = false;
      }
    });
    const start = l.lat !== null && l.lat !== undefined && l.lon !== null ? [Number(l.lat), Number(l.lon)] : null;
    const picker = pickMap(`pick-${l.id}`, start, (lat, lon) => {
      latIn.value = String(lat);
      lonIn.value = String(lon);
      msg.textContent = '';
    });
    const suggestEl = h('div', { class: 'suggestions', id: `suggest-${l.id}` });
    let suggested = false;
    // Issue 29: a large panel over the page (not a 165 px map in a table cell); Échap or
    // « Fermer » closes it.
    const closeButton = h('button', { type: 'button', class: 'pick-close', 'aria-label': 'Fermer les coordonnées manuelles' }, 'Fermer');
    const panel = h('div', { class: 'pick-panel', role: 'group', 'aria-label': `Coordonnées manuelles de « ${fmtText(l.location_raw)} »` },
      h('div', { class: 'pick-head' },
        h('h3', null, `Placer « ${fmtText(l.location_raw)} » (ligne ${l.id}, ${fmtText(l.band_name ?? l.ma_id)})`), closeButton),
      h('p', { class: 'muted hint' }, 'Cliquez sur la carte (la molette zoome), choisissez un lieu proposé par le gazetteer ou tapez les valeurs.'),
      h('div', { class: 'pick-body' }, picker.el, h('div', { class: 'pick-side' }, suggestEl, coordForm)));
    const disclosure = h('details', { class: 'manual-coords' }, h('summary', null, 'Coordonnées manuelles'), panel);
    closeButton.addEventListener('click', () => { disclosure.open = false; disclosure.querySelector('summary').focus(); });
    panel.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { e.stopPropagation(); closeButton.click(); }
    });
    const use = async (lat, lon, c) => {
      await api.patch(`/admin/api/locations/${encodeURIComponent(l.id)}`, { lat, lon });
      flash(`Ligne ${l.id} : placée à ${fmtText(c.name)} (${lat}, ${lon}).`, 'ok');
      disclosure.open = false;
      loadList();
      loadCounters();
    };
    disclosure.addEventListener('toggle', () => {
      if (!disclosure.open) return;
      picker.draw();
      if (!suggested) {
        suggested = true;
        loadInto(suggestEl, () => suggestions(l, (lat, lon) => {
          latIn.value = String(lat);
          lonIn.value = String(lon);
          msg.textContent = '';
          picker.set(lat, lon);
        }, opts, { onUse: use, onPlaces: picker.showPlaces }));
      }
    });
    return h('div', { class: 'row-actions' }, requeue, disclosure);
  }

  loadCounters();
  loadList();
  return () => ctrl.abort();
}
