// Admin API, job requests and runs (CONTRACT §6): request a job, list and follow requests,
// cancel a request or a run, close stale runs. A request made through the mock moves on
// its own (pending, then a run, then done) so the console's follow-up can be watched.
import { send, err, page } from './respond.mjs';
import { MOCK_USER, MOCK_JOB_SERVICES } from './fixtures.mjs';

/** A request made through the mock moves on its own: pending 1.5 s, then a run for 1.5 s, then done. */
export const FOLLOW_STEP_MS = 1500;
function followJob(j) {
  const strip = ({ followed, ...t }) => t;
  if (!j.followed) return { trigger: strip(j), run: null };
  const age = Date.now() - j.followed;
  if (age < FOLLOW_STEP_MS || j.status === 'cancelled') return { trigger: strip(j), run: null };
  const started = new Date(j.followed + FOLLOW_STEP_MS).toISOString();
  const runId = 500 + j.id;
  j.run_id = runId;
  j.claimed_at = started;
  if (age < 2 * FOLLOW_STEP_MS) {
    j.status = 'claimed';
    return { trigger: strip(j), run: { id: runId, type: j.job_type, status: 'running', cancel_requested: false, started_at: started, finished_at: null, updated_at: started, stats: { processed: 1 }, error: null, trigger_id: j.id } };
  }
  const finished = new Date(j.followed + 2 * FOLLOW_STEP_MS).toISOString();
  j.status = 'done';
  j.finished_at = finished;
  return { trigger: strip(j), run: { id: runId, type: j.job_type, status: 'success', cancel_requested: false, started_at: started, finished_at: finished, updated_at: finished, stats: { inserted: 3, failed: 0 }, error: null, trigger_id: j.id } };
}

export const routes = [
  {
    method: 'POST', path: '/admin/api/job-triggers',
    handle: ({ state, res, body, id }) => {
      if (!Object.keys(MOCK_JOB_SERVICES).includes(body.job_type)) return err(res, 400, 'bad_request', 'bad job_type');
      const j = { id: state.nextJobId++, job_type: body.job_type, status: 'pending', created_at: new Date().toISOString(), created_by: MOCK_USER, claimed_at: null, finished_at: null, run_id: null, error: null, followed: Date.now() };
      state.jobs.push(j);
      return send(res, 201, { id: j.id });
    },
  },
  {
    method: 'GET', path: '/admin/api/job-triggers',
    handle: ({ state, res, q }) => {
      const st = q.get('status');
      const items = state.jobs.filter((j) => !st || j.status === st).slice().sort((a, b) => b.id - a.id);
      return send(res, 200, page(items, q));
    },
  },
  {
    method: 'POST', path: '/admin/api/job-triggers/{id}/cancel',
    handle: ({ state, res, id }) => {
      const j = state.jobs.find((x) => x.id === id);
      if (!j) return err(res, 404, 'not_found', 'unknown trigger');
      if (j.status !== 'pending') return err(res, 409, 'conflict', 'not pending');
      j.status = 'cancelled';
      return send(res, 200, { id, status: j.status });
    },
  },
  {
    method: 'POST', path: '/admin/api/crawl-runs/{id}/cancel',
    handle: ({ state, res, id }) => {
      const r = state.runs.find((x) => x.id === id);
      if (!r) return err(res, 404, 'not_found', 'unknown run');
      if (r.status !== 'running') return err(res, 409, 'conflict', 'not running');
      r.cancel_requested = true;
      return send(res, 200, { id, status: r.status, cancel_requested: true });
    },
  },
  { method: 'POST', path: '/admin/api/crawl-runs/cleanup', handle: ({ res }) => send(res, 200, { closed: 0 }) },
  {
    method: 'GET', path: '/admin/api/job-triggers/{id}',
    handle: ({ state, res, id }) => {
      const j = state.jobs.find((x) => x.id === id);
      if (!j) return err(res, 404, 'not_found', `no job request ${id}`);
      return send(res, 200, followJob(j));
    },
  },
];
