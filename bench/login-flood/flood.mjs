// Login flood (issue 18): CONNS connections post wrong passwords to /admin/auth/login for
// DURATION seconds, FLOODS times in a row, while a sampler requests /readyz, /api/search
// and the admin band list once a second on connections of its own. Prints, per flood, the
// login rate and status counts and p50/p99/max of each sampled endpoint, then one JSON
// line for the summary script. Node's own http module only: nothing to install.
//
//   node flood.mjs BASE_URL [DURATION=60] [CONNS=200] [FLOODS=3]
// Env: ADMIN_USER, ADMIN_PASSWORD (for the sampler's session), LABEL (printed).
import http from 'node:http';

const [base, durationArg, connsArg, floodsArg] = process.argv.slice(2);
if (!base) {
  console.error('usage: node flood.mjs BASE_URL [DURATION] [CONNS] [FLOODS]');
  process.exit(2);
}
const DURATION = Number(durationArg ?? 60);
const CONNS = Number(connsArg ?? 200);
const FLOODS = Number(floodsArg ?? 3);
const LABEL = process.env.LABEL ?? 'run';
const url = new URL(base);

const floodAgent = new http.Agent({ keepAlive: true, maxSockets: CONNS });
const sampleAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function request(agent, method, path, { body, headers = {}, timeoutMs = 30000 } = {}) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: url.hostname, port: url.port, path, method, agent,
        headers: {
          ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          headers: res.headers,
          text: Buffer.concat(chunks).toString(),
        }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    if (data) req.write(data);
    req.end();
  });
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
  return sorted[Math.max(0, i)];
}

async function login() {
  const res = await request(sampleAgent, 'POST', '/admin/auth/login', {
    body: { username: process.env.ADMIN_USER ?? 'admin', password: process.env.ADMIN_PASSWORD ?? '' },
  });
  const cookie = (res.headers?.['set-cookie'] ?? []).map((c) => c.split(';')[0])
    .find((c) => c.startsWith('bandmap_session='));
  if (res.status !== 200 || !cookie) throw new Error(`sampler login failed: ${res.status} ${res.text}`);
  return cookie;
}

const SAMPLES = {
  readyz: () => ['/readyz', {}],
  search: () => ['/api/search?q=band', {}],
  admin_list: (cookie) => ['/admin/api/bands?limit=50', { headers: { cookie } }],
};

async function sampler(cookie, stop) {
  const times = Object.fromEntries(Object.keys(SAMPLES).map((k) => [k, []]));
  const errors = Object.fromEntries(Object.keys(SAMPLES).map((k) => [k, 0]));
  while (!stop.done) {
    const tick = Date.now();
    await Promise.all(Object.entries(SAMPLES).map(async ([name, make]) => {
      const [path, opts] = make(cookie);
      const res = await request(sampleAgent, 'GET', path, opts);
      times[name].push(res.ms);
      if (res.status !== 200) errors[name] += 1;
    }));
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - tick))));
  }
  return { times, errors };
}

async function flood(stop) {
  const statuses = {};
  let sent = 0;
  let n = 0;
  const worker = async () => {
    while (!stop.done) {
      n += 1;
      const res = await request(floodAgent, 'POST', '/admin/auth/login', {
        body: { username: 'admin', password: `wrong-${n}` },
      });
      sent += 1;
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CONNS }, worker));
  return { sent, statuses };
}

const cookie = await login();
const results = [];
for (let k = 1; k <= FLOODS; k += 1) {
  const stop = { done: false };
  const started = Date.now();
  const timer = setTimeout(() => { stop.done = true; }, DURATION * 1000);
  const [f, s] = await Promise.all([flood(stop), sampler(cookie, stop)]);
  clearTimeout(timer);
  const secs = (Date.now() - started) / 1000;
  const row = { label: LABEL, flood: k, seconds: Number(secs.toFixed(1)), logins_per_s: Math.round(f.sent / secs), statuses: f.statuses };
  for (const [name, list] of Object.entries(s.times)) {
    const sorted = [...list].sort((a, b) => a - b);
    row[name] = {
      samples: sorted.length,
      errors: s.errors[name],
      p50_ms: Number(quantile(sorted, 0.5).toFixed(1)),
      p99_ms: Number(quantile(sorted, 0.99).toFixed(1)),
      max_ms: Number((sorted[sorted.length - 1] ?? NaN).toFixed(1)),
    };
  }
  results.push(row);
  console.log(`[${LABEL}] flood ${k}: ${row.logins_per_s} logins/s ${JSON.stringify(f.statuses)} | `
    + Object.keys(SAMPLES).map((n) => `${n} p50 ${row[n].p50_ms} p99 ${row[n].p99_ms} max ${row[n].max_ms} ms (${row[n].errors} errors)`).join(' | '));
}
console.log(`RESULT ${JSON.stringify(results)}`);
floodAgent.destroy();
sampleAgent.destroy();
