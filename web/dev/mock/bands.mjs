// Admin API, bands (CONTRACT §6): search, detail, edit, conflicts, unlock, history.
import { send, err, page, has, boolQ } from './respond.mjs';
import { MOCK_USER, EDITABLE_FIELDS, audit, adminBand } from './fixtures.mjs';

export const routes = [
  {
    method: 'GET', path: '/admin/api/bands',
    handle: ({ state, res, q }) => {
      let items = state.bands.filter((b) => {
        if (q.get('q') && !(has(b.name, q.get('q')) || String(b.ma_id) === q.get('q'))) return false;
        if (q.get('location_q') && !has(b.location_text, q.get('location_q'))) return false;
        if (q.get('themes_q') && !has(b.themes, q.get('themes_q'))) return false;
        if (q.get('genre') && !has(b.genre, q.get('genre'))) return false;
        if (q.get('country') && b.country.toLowerCase() !== q.get('country').toLowerCase()) return false;
        if (q.get('status') && b.status.toLowerCase() !== q.get('status').toLowerCase()) return false;
        const hc = boolQ(q, 'has_conflict');
        if (hc !== null && hc !== Object.keys(b.crawler_pending).length > 0) return false;
        const hl = boolQ(q, 'has_lat');
        if (hl !== null && hl !== (b.lat !== null)) return false;
        return true;
      });
      const sort = q.get('sort') || 'name';
      const desc = sort.startsWith('-');
      const key = sort.replace(/^-/, '');
      if (!['name', 'ma_id', 'country', 'formed_year', 'updated_at'].includes(key)) return err(res, 400, 'bad_request', 'bad sort');
      items = [...items].sort((a, b) => (a[key] > b[key] ? 1 : a[key] < b[key] ? -1 : 0) * (desc ? -1 : 1));
      return send(res, 200, page(items.map(adminBand), q));
    },
  },
  {
    method: 'GET', path: '/admin/api/bands/{id}',
    handle: ({ state, res, id }) => {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      return send(res, 200, { band: adminBand(b), locations: state.locations.filter((l) => l.ma_id === id), llm_calls: state.llm.filter((c) => c.ma_id === id), llm_calls_total: state.llm.filter((c) => c.ma_id === id).length });
    },
  },
  {
    method: 'PATCH', path: '/admin/api/bands/{id}',
    handle: ({ state, res, body, id }) => {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      for (const k of Object.keys(body)) if (!['name', 'genre', 'themes', 'status', 'country', 'location_text', 'formed_year'].includes(k)) return err(res, 400, 'bad_request', `unknown field ${k}`);
      const before = {};
      for (const [k, v] of Object.entries(body)) {
        before[k] = b[k];
        b[k] = v;
        if (!b.locked_fields.includes(k)) b.locked_fields.push(k);
        delete b.crawler_pending[k];
      }
      state.audit.unshift({ id: state.audit.length + 10, at: new Date().toISOString(), username: MOCK_USER, action: 'band.patch', target: `band:${id}`, before, after: body });
      return send(res, 200, adminBand(b));
    },
  },
  {
    method: 'POST', path: '/admin/api/bands/{id}/resolve-conflict',
    handle: ({ state, res, body, id }) => {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      if (!(body.field in b.crawler_pending)) return err(res, 409, 'conflict', 'no pending conflict');
      const before = { [body.field]: b[body.field], locked_fields: [...b.locked_fields], crawler_pending: { ...b.crawler_pending } };
      if (body.action === 'accept') {
        b[body.field] = b.crawler_pending[body.field];
        b.locked_fields = b.locked_fields.filter((f) => f !== body.field);
      }
      delete b.crawler_pending[body.field];
      audit(state, `band.resolve_conflict.${body.action}`, `band:${id}`, before, { [body.field]: b[body.field], locked_fields: [...b.locked_fields], crawler_pending: { ...b.crawler_pending } });
      return send(res, 200, adminBand(b));
    },
  },
  {
    method: 'POST', path: '/admin/api/bands/{id}/unlock',
    handle: ({ state, res, body, id }) => {
      const b = state.bands.find((x) => x.ma_id === id);
      if (!b) return err(res, 404, 'not_found', 'unknown band');
      if (!body || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((k) => k !== 'field')) return err(res, 400, 'bad_request', 'invalid body');
      if (!EDITABLE_FIELDS.includes(body.field)) return err(res, 400, 'bad_request', `field must be one of: ${EDITABLE_FIELDS.join(', ')}`);
      if (!b.locked_fields.includes(body.field)) return err(res, 409, 'conflict', `field ${body.field} of band ${id} is not locked`);
      if (body.field in b.crawler_pending) return err(res, 409, 'conflict', `field ${body.field} of band ${id} has a pending conflict: resolve it (accept unlocks it)`);
      const before = { locked_fields: [...b.locked_fields], enrich_pending: b.enrich_pending };
      b.locked_fields = b.locked_fields.filter((f) => f !== body.field);
      b.enrich_pending = true;
      audit(state, 'band.unlock', `band:${id}`, before, { locked_fields: [...b.locked_fields], enrich_pending: true });
      return send(res, 200, adminBand(b));
    },
  },
  {
    method: 'GET', path: '/admin/api/bands/{id}/history',
    handle: ({ state, res, q, id }) => {
      if (!state.bands.some((x) => x.ma_id === id)) return err(res, 404, 'not_found', 'unknown band');
      const targets = new Set([`band:${id}`, ...state.locations.filter((l) => l.ma_id === id).map((l) => `location:${l.id}`)]);
      return send(res, 200, page(state.audit.filter((a) => targets.has(a.target)), q));
    },
  },
];
