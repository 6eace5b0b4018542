// Public map page: markers render without tiles, a band card opens, a genre
// filter is applied and reflected in the URL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

/** Click a marker; if another marker overlaps it, activate it with the keyboard instead. */
async function activate(locator) {
  try {
    await locator.click({ timeout: 3000 });
  } catch {
    await locator.press('Enter');
  }
}

describe('public map', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('map: markers, band card, genre filter in the URL', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const failed = [];
    page.on('response', (r) => {
      if (r.url().startsWith(target.url) && r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    const clusterReq = page.waitForResponse((r) => r.url().includes('/api/clusters?'), { timeout: 20000 });
    await page.goto(`${target.url}/`);
    const first = await clusterReq;
    assert.equal(first.status(), 200, 'GET /api/clusters answers 200');
    const firstUrl = new URL(first.url());
    assert.match(firstUrl.searchParams.get('bbox') || '', /^-?[\d.]+,-?[\d.]+,-?[\d.]+,-?[\d.]+$/);
    assert.match(firstUrl.searchParams.get('zoom') || '', /^\d+$/);

    // Attribution credits GeoNames, and OSM only once one of its tiles is shown (issue 29:
    // the tests cut the network, no tile loads).
    const attribution = await page.locator('.leaflet-control-attribution').innerText();
    const tileShown = await page.evaluate(() => !document.querySelector('#map').classList.contains('tiles-off'));
    if (tileShown) assert.match(attribution, /OpenStreetMap contributors/);
    else assert.doesNotMatch(attribution, /OpenStreetMap/);
    assert.match(attribution, /GeoNames/);

    // At the default (continental) view the seeded points are grouped: a cluster marker,
    // labelled with its count, is drawn.
    const cluster = page.locator('.bm-marker[data-kind="cluster"]');
    await cluster.first().waitFor({ timeout: 15000 });
    const firstCluster = cluster.first();
    const count = Number(await firstCluster.getAttribute('data-count'));
    assert.ok(count >= 2, `a cluster holds two points or more (data-count ${count})`);
    assert.equal((await firstCluster.innerText()).trim(), count >= 10000 ? `${Math.round(count / 1000)}k` : String(count));
    assert.match(await firstCluster.getAttribute('aria-label'), /^Groupe de \d+ points/);
    assert.equal(await firstCluster.getAttribute('role'), 'button');

    // Zoom into clusters until a single point is visible, then open its card.
    const point = page.locator('.bm-marker[data-kind="point"]');
    for (let i = 0; i < 12 && (await point.count()) === 0; i++) {
      const stack = page.locator('.bm-marker[data-kind="stack"]');
      if (await stack.count()) {
        await activate(stack.first());
        await page.locator('#card .band-list button').first().click();
        break;
      }
      const resp = page.waitForResponse((r) => r.url().includes('/api/clusters?'), { timeout: 15000 });
      await activate(page.locator('.bm-marker[data-kind="cluster"]').first());
      await resp;
      await page.waitForTimeout(300);
    }
    if (!(await page.locator('#card').isVisible())) {
      assert.ok(await point.count() > 0, 'a point marker is reachable by zooming into clusters');
      await activate(point.first());
    }
    const card = page.locator('#card');
    await card.waitFor({ state: 'visible' });
    await page.waitForFunction(() => {
      const t = document.querySelector('#card-title');
      return t && t.textContent !== 'Chargement…';
    }, null, { timeout: 15000 });
    const title = await page.locator('#card-title').innerText();
    assert.ok(title.length > 0, 'band card shows a name');
    assert.match(page.url(), /[?&]band=\d+/, 'open card is in the URL');

    // Genre filter → URL and next clusters request carry it.
    const filtered = page.waitForResponse((r) => r.url().includes('/api/clusters?') && r.url().includes('genre=Black'), { timeout: 15000 });
    await page.fill('#f-genre', 'Black');
    await page.click('#filters-apply');
    const resp = await filtered;
    assert.equal(resp.status(), 200);
    assert.match(page.url(), /[?&]genre=Black(&|$)/, 'genre filter reflected in the URL');
    assert.match(page.url(), /[?&]lat=-?[\d.]+/);
    assert.match(page.url(), /[?&]z=\d+/);

    // The URL reloads to the same filter.
    await page.reload();
    assert.equal(await page.inputValue('#f-genre'), 'Black');

    assert.deepEqual(problems.dialogs, [], 'no dialog was opened');
    assert.deepEqual(problems.errors, [], 'no uncaught page error');
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    assert.deepEqual(failed, [], 'no request of the page fails (no 404 for a missing asset)');
    await page.close();
  });

  test('map: a shared link cannot choose the tile server', async () => {
    const page = await browser.context.newPage();
    const hosts = new Set();
    page.on('request', (r) => hosts.add(new URL(r.url()).host));
    await page.goto(`${target.url}/?tiles=${encodeURIComponent('https://tiles.attacker.invalid/{z}/{x}/{y}.png')}`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    assert.ok(!hosts.has('tiles.attacker.invalid'), `no request to the host named in the URL: ${[...hosts]}`);
    assert.doesNotMatch(page.url(), /tiles=/, 'the parameter is not carried into shared URLs');
    await page.close();
  });

  test('map: usable at phone width (390×844)', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    const inView = async (selector) => {
      const box = await page.locator(selector).boundingBox();
      assert.ok(box, `${selector} is laid out`);
      assert.ok(box.width > 0 && box.height > 0, `${selector} has a size`);
      assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844,
        `${selector} lies within the screen: ${JSON.stringify(box)}`);
      return box;
    };
    // Nothing wider than the screen (no sideways scrolling).
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, 'no horizontal overflow');
    const mapBox = await inView('#map');
    assert.ok(mapBox.height >= 400, `the map takes most of the screen (${mapBox.height}px)`);
    await inView('#search-input');

    // Filters: hidden behind the toggle, reachable, usable, then applied.
    const toggle = page.locator('#filters-toggle');
    await inView('#filters-toggle');
    assert.equal(await page.locator('#f-genre').isVisible(), false, 'the filter panel starts closed on a phone');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await page.locator('#f-genre').waitFor({ state: 'visible' });
    await page.waitForFunction(() => {
      const r = document.querySelector('#filters-panel').getBoundingClientRect();
      return r.left >= 0; // slide-in finished
    });
    for (const sel of ['#f-genre', '#f-country', '#f-status', '#f-year-min', '#f-year-max', '#filters-apply']) await inView(sel);
    const filtered = page.waitForResponse((r) => r.url().includes('/api/clusters?') && r.url().includes('genre=Metal'), { timeout: 15000 });
    await page.fill('#f-genre', 'Metal');
    await page.click('#filters-apply');
    assert.equal((await filtered).status(), 200);
    assert.match(page.url(), /[?&]genre=Metal(&|$)/);
    // Issue 29: « Appliquer » closes the drawer over the filtered map.
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');

    // A cluster marker of several places can be tapped: the map zooms in and asks for the
    // new view (a one-place cluster opens its list instead, issue 29).
    const cluster = page.locator('.bm-marker[data-kind="cluster"]:not([data-expansion-zoom="17"])').first();
    await cluster.waitFor({ timeout: 15000 });
    const zoomBefore = Number(new URL(page.url()).searchParams.get('z'));
    const next = page.waitForResponse((r) => r.url().includes('/api/clusters?'), { timeout: 15000 });
    await activate(cluster);
    await next;
    await page.waitForFunction((z) => Number(new URL(location.href).searchParams.get('z')) > z, zoomBefore);

    assert.deepEqual(problems.errors, [], 'no uncaught page error');
    await page.close();
  });

  test('map: search box finds a band and opens its card', async (t) => {
    const page = await browser.context.newPage();
    await page.goto(`${target.url}/`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    // Take a name from the clusters of the whole map at max detail: search its first word.
    const name = await page.evaluate(async () => {
      const r = await fetch('/api/clusters?bbox=-180,-90,180,90&zoom=17');
      const fc = await r.json();
      const p = fc.features.find((f) => !f.properties.cluster && /^[\p{L}\p{N} ]{3,}$/u.test(f.properties.name));
      return p ? p.properties.name : null;
    });
    if (!name) {
      t.skip('no plain band name in the data to search for');
      return;
    }
    const resp = page.waitForResponse((r) => r.url().includes('/api/search?'), { timeout: 15000 });
    await page.fill('#search-input', name);
    await resp;
    const option = page.locator('#search-results [role="option"]').first();
    await option.waitFor({ timeout: 10000 });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.locator('#card').waitFor({ state: 'visible' });
    await page.waitForFunction(() => document.querySelector('#card-title')?.textContent !== 'Chargement…');
    assert.ok((await page.locator('#card-title').innerText()).length > 0);
    await page.close();
  });

  test('map: the Content-Security-Policy refuses inline script and framing', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const response = await page.goto(`${target.url}/`);
    const headers = response.headers();
    if (target.mock) return; // the dev mock server sends no policy; e2e runs the real server
    assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.equal(headers['x-content-type-options'], 'nosniff');
    await page.locator('#map').waitFor();
    assert.deepEqual(problems.csp, [], 'the page itself needs nothing the policy refuses');
    await page.addScriptTag({ content: 'window.__inlineRan = true;' }).catch(() => {});
    assert.equal(await page.evaluate(() => window.__inlineRan === true), false, 'an inline script does not run');
    for (let i = 0; i < 50 && problems.csp.length === 0; i += 1) await page.waitForTimeout(100);
    assert.ok(problems.csp.some((v) => /script-src/.test(v)), `the violation is reported: ${problems.csp}`);
    // A framing attempt from another document is refused by the browser.
    const framer = await browser.context.newPage();
    await framer.setContent(`<iframe id="f" src="${target.url}/"></iframe>`);
    await framer.waitForTimeout(500);
    const framed = framer.frames().find((f) => f.url().startsWith(target.url));
    const framedTitle = framed ? await framed.title().catch(() => '') : '';
    assert.ok(!/Band Map/.test(framedTitle), 'the map cannot be framed');
    await framer.close();
    await page.close();
  });
});
