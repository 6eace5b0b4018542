// Public map page: markers render without tiles, a band card opens, a genre
// filter is applied and reflected in the URL.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTarget, launch, watchPage } from './helpers.mjs';

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

  before(async () => {
    target = await startTarget();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await target?.close();
  });

  test('map: markers, band card, genre filter in the URL', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const clusterReq = page.waitForResponse((r) => r.url().includes('/api/clusters?'), { timeout: 20000 });
    await page.goto(`${target.url}/`);
    const first = await clusterReq;
    assert.equal(first.status(), 200, 'GET /api/clusters answers 200');
    const firstUrl = new URL(first.url());
    assert.match(firstUrl.searchParams.get('bbox') || '', /^-?[\d.]+,-?[\d.]+,-?[\d.]+,-?[\d.]+$/);
    assert.match(firstUrl.searchParams.get('zoom') || '', /^\d+$/);

    // Attribution credits OSM and GeoNames.
    const attribution = await page.locator('.leaflet-control-attribution').innerText();
    assert.match(attribution, /OpenStreetMap contributors/);
    assert.match(attribution, /GeoNames/);

    const anyMarker = page.locator('.bm-marker');
    await anyMarker.first().waitFor({ timeout: 15000 });
    assert.ok(await anyMarker.count() > 0, 'cluster or point markers are drawn');

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
    const option = page.locator('#search-results button').first();
    await option.waitFor({ timeout: 10000 });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.locator('#card').waitFor({ state: 'visible' });
    await page.waitForFunction(() => document.querySelector('#card-title')?.textContent !== 'Chargement…');
    assert.ok((await page.locator('#card-title').innerText()).length > 0);
    await page.close();
  });
});
