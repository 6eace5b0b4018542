// Load client of bench/load/run.sh (Node 20+, no dependencies: global fetch).
// N public clients on /api/clusters (varied views and filters) and M admin clients on
// the admin lists, each a closed loop (next request when the previous answered), for
// DUR seconds; one feeder imports new bands through the import endpoint so the pipeline
// keeps enqueueing, geocoding and rebuilding the map index during the run.
// Prints one JSON object: per endpoint count, errors, p50/p99 (ms), and the first errors.
//
// With MODE `baseline`, the CLIENTS clients ask `/healthz` (no database, no index) and
// nothing else: the machine's and the HTTP stack's ceiling at that concurrency, measured in
// the same session, against which run.sh states the other figures as ratios.
//
// usage: node client.mjs BASE DUR CLIENTS ADMIN_CLIENTS ADMIN_PASSWORD IMPORT_TOKEN RUN [MODE]
const [base, dur, clients, adminClients, password, importToken, run, mode] = process.argv.slice(2);
const durationMs = Number(dur) * 1000;
const stats = new Map(); // endpoint -> {lat: [], errors: 0}
const firstErrors = [];

function record(endpoint, ms, ok, detail) {
  let s = stats.get(endpoint);
  if (!s) stats.set(endpoint, (s = { lat: [], errors: 0 }));
  s.lat.push(ms);
  if (!ok) {
    s.errors += 1;
    if (firstErrors.length < 10) firstErrors.push(`${endpoint}: ${detail}`);
  }
}

async function timed(endpoint, url, init) {
  const t0 = performance.now();
  try {
    const res = await fetch(url, init);
    const body = await res.text();
    record(endpoint, performance.now() - t0, res.ok, `HTTP ${res.status} ${url} ${body.slice(0, 200)}`);
  } catch (e) {
    record(endpoint, performance.now() - t0, false, String(e.cause ?? e));
  }
}

const rnd = (a, b) => a + Math.random() * (b - a);
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const filters = [
  "", "", "&genre=black", "&genre=death", "&country=NO", "&country=se", "&status=Active",
  "&year_min=1990", "&year_min=1985&year_max=1995", "&genre=doom&status=Split-up",
];

function clustersUrl() {
  const zoom = pick([2, 3, 4, 5, 6, 7, 8, 10, 12, 14]);
  let bbox = "";
  if (zoom > 3) {
    // A window around a random European point, smaller as the zoom grows.
    const w = 360 / 2 ** zoom * 4, h = w * 0.6;
    const lon = rnd(-10, 30), lat = rnd(36, 68);
    const clamp = (v, m) => Math.max(-m, Math.min(m, v)).toFixed(3);
    bbox = `&bbox=${clamp(lon - w / 2, 180)},${clamp(lat - h / 2, 90)},${clamp(lon + w / 2, 180)},${clamp(lat + h / 2, 90)}`;
  }
  return `${base}/api/clusters?zoom=${zoom}${bbox}${pick(filters)}`;
}

async function login() {
  const res = await fetch(`${base}/admin/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  if (!res.ok) throw new Error(`login: HTTP ${res.status}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("bandmap_session="));
  return cookie.split(";")[0];
}

async function adminLists() {
  const doc = await (await fetch(`${base}/api/openapi.json`)).json();
  return Object.entries(doc.paths)
    .filter(([p, item]) => item.get && p.startsWith("/admin/api/") && !p.includes("{"))
    .map(([p]) => p)
    .filter((p) => !/\/(live|me)$/.test(p)); // a stream and the session itself
}

const CITIES = [
  ["Oslo", "Norway", "NO"], ["Bergen", "Norway", "NO"], ["Stockholm", "Sweden", "SE"],
  ["Gothenburg", "Sweden", "SE"], ["Helsinki", "Finland", "FI"], ["Tampere", "Finland", "FI"],
  ["Berlin", "Germany", "DE"], ["Hamburg", "Germany", "DE"], ["Kraków", "Poland", "PL"],
  ["Lyon", "France", "FR"], ["Milan", "Italy", "IT"], ["Porto", "Portugal", "PT"],
];
const GENRES = ["Black Metal", "Death Metal", "Doom Metal", "Thrash Metal", "Heavy Metal"];

async function feeder(until) {
  let n = 0;
  while (performance.now() < until) {
    const lines = [];
    for (let i = 0; i < 25; i++, n++) {
      const [city, country, cc] = pick(CITIES);
      lines.push(JSON.stringify({
        ma_id: 3560000000 + Number(run) * 1000000 + n, name: `Load ${run}-${n}`,
        country, country_code: cc, location_text: city, genre: pick(GENRES),
        status: "Active", formed_year: 1980 + (n % 40),
      }));
    }
    await timed("POST /api/import/bands", `${base}/api/import/bands`, {
      method: "POST",
      headers: { authorization: `Bearer ${importToken}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    });
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const baseline = mode === "baseline";
const cookie = baseline ? "" : await login();
const lists = baseline ? [] : await adminLists();
const until = performance.now() + durationMs;
const loops = [];
for (let i = 0; baseline && i < Number(clients); i++) {
  loops.push((async () => {
    while (performance.now() < until) await timed("GET /healthz", `${base}/healthz`);
  })());
}
for (let i = 0; !baseline && i < Number(clients); i++) {
  loops.push((async () => {
    while (performance.now() < until) await timed("GET /api/clusters", clustersUrl());
  })());
}
for (let i = 0; !baseline && i < Number(adminClients); i++) {
  loops.push((async () => {
    while (performance.now() < until) {
      const p = pick(lists);
      await timed(`GET ${p}`, `${base}${p}`, { headers: { cookie } });
    }
  })());
}
if (!baseline) loops.push(feeder(until));
await Promise.all(loops);

const pct = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const out = { run: Number(run), seconds: Number(dur), endpoints: {}, errors: 0, requests: 0, firstErrors };
for (const [endpoint, s] of [...stats.entries()].sort()) {
  s.lat.sort((a, b) => a - b);
  out.endpoints[endpoint] = {
    count: s.lat.length, errors: s.errors,
    p50_ms: Number(pct(s.lat, 0.5).toFixed(1)), p99_ms: Number(pct(s.lat, 0.99).toFixed(1)),
  };
  out.errors += s.errors;
  out.requests += s.lat.length;
}
console.log(JSON.stringify(out));
