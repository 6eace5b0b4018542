// Shared setup for the browser tests: system Chromium via playwright-core,
// target server from BANDMAP_URL (or the dev mock server when unset).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { before, after } from 'node:test';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Start (or point at) the server under test. Returns {url, user, password, mock, close}. */
export async function startTarget() {
  if (process.env.BANDMAP_URL) {
    return {
      url: process.env.BANDMAP_URL.replace(/\/+$/, ''),
      user: process.env.BANDMAP_ADMIN_USER || 'admin',
      password: process.env.BANDMAP_ADMIN_PASSWORD || '',
      mock: false,
      close: async () => {},
    };
  }
  const { startMockServer, MOCK_USER, MOCK_PASSWORD } = await import('../dev/mock-server.mjs');
  const srv = await startMockServer({ port: 0 });
  return { url: srv.url, user: MOCK_USER, password: MOCK_PASSWORD, mock: true, close: srv.close };
}

/** Launch the system Chromium with a fresh profile. Never downloads a browser.
 *  The browser speaks French (`locale`: navigator.languages and Accept-Language) unless
 *  `locale` says otherwise: the pages choose their language from it (issue 28), and the
 *  specs read the French texts. */
export async function launch({ locale = 'fr-FR' } = {}) {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: apt-get install -y chromium (or set CHROMIUM=path)`);
  }
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'bandmap-web-test-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
    locale,
  });
  // No tile server is reachable from test machines: fail tile requests at once.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1|localhost|\[::1\])/, (route) => route.abort());
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Collect page errors, dialogs (an alert() would mean injected script ran) and
 *  Content-Security-Policy violations (the pages must work under the server's policy). */
export function watchPage(page) {
  const problems = { errors: [], dialogs: [], csp: [] };
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('dialog', async (d) => {
    problems.dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) problems.csp.push(m.text());
  });
  page.exposeFunction('__bandmapCspViolation', (v) => problems.csp.push(v)).catch(() => {});
  page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      // eslint-disable-next-line no-undef
      window.__bandmapCspViolation?.(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`);
    });
  }).catch(() => {});
  return problems;
}

/** Registers the suite's hooks: the server under test and a browser before its tests,
 *  both closed after; `set(target, browser)` hands them to the suite. */
export function useTargetAndBrowser(set) {
  let target;
  let browser;
  before(async () => {
    target = await startTarget();
    browser = await launch();
    set(target, browser);
  });
  after(async () => {
    await browser?.close();
    await target?.close();
  });
}

// ---- the admin console's browser tests ----

/** Logs `page` in to the console of `target` and waits for the application. */
export async function adminLogin(page, target) {
  await page.goto(`${target.url}/admin/`);
  await page.locator('#login-form').waitFor({ state: 'visible', timeout: 15000 });
  await page.fill('#login-username', target.user);
  await page.fill('#login-password', target.password);
  await page.click('#login-form button[type=submit]');
  await page.locator('#app').waitFor({ state: 'visible', timeout: 15000 });
}

/** Navigates the console by hash and waits until the view is mounted and its data loaded. */
export async function adminView(page, hash) {
  const view = hash.replace(/^#\/?/, '').split('?')[0] || 'pilotage';
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForFunction((v) => {
    const root = document.querySelector(`#main .view-${v}`);
    return root && !root.textContent.includes('Chargement…');
  }, view, { timeout: 20000 });
}

/** GET `path` from the page (its session cookie included); the parsed JSON body. */
export const fetchJson = (page, path) => page.evaluate(async (p) => (await fetch(p, { headers: { Accept: 'application/json' } })).json(), path);

/** `method` `path` with a JSON body from the page; {status, body} (body null if not JSON). */
export const sendJson = (page, method, path, body) => page.evaluate(async ([m, p, b]) => {
  const r = await fetch(p, { method: m, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) });
  return { status: r.status, body: await r.json().catch(() => null) };
}, [method, path, body]);

/** Registers a console suite's hooks: the server under test, a browser and one page
 *  (watched, see watchPage) logged in before its tests, all closed after;
 *  `set({target, browser, page, problems})` hands them to the suite. */
export function useAdminSession(set) {
  let target;
  let browser;
  before(async () => {
    target = await startTarget();
    browser = await launch();
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await adminLogin(page, target);
    set({ target, browser, page, problems });
  });
  after(async () => {
    await browser?.close();
    await target?.close();
  });
}
