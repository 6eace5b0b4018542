// Issue 28: unreachable tiles cost one request, not one per tile and per move; the page
// says "fond de carte hors ligne" once, quietly (the attribution line). Reachable tiles
// still draw the basemap.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

const TILE = /\/\d+\/\d+\/\d+\.png(\?|$)/;

describe('basemap tiles', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('tiles unreachable: one request, then none, and one quiet note', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const tiles = [];
    page.on('request', (r) => { if (TILE.test(r.url()) && !r.url().startsWith(target.url)) tiles.push(r.url()); });
    await page.goto(`${target.url}/?lat=52&lon=12&z=5`);
    await page.locator('.tiles-offline-note').waitFor({ timeout: 15000 });
    // Pan and zoom: still no tile asked for.
    await page.locator('#map').focus();
    for (const key of ['ArrowRight', 'ArrowDown', '+', 'ArrowLeft']) {
      await page.keyboard.press(key);
      await page.waitForTimeout(150);
    }
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    assert.equal(tiles.length, 1, `one tile request in all: ${tiles.join(', ')}`);
    assert.equal(await page.locator('.tiles-offline-note').count(), 1, 'said once');
    assert.equal(await page.locator('.leaflet-control-attribution').getByText('fond de carte hors ligne').count(), 1);
    assert.equal(await page.locator('[role="alert"]:visible').count(), 0, 'quietly: no alert');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('tiles reachable: the basemap is drawn', async () => {
    const page = await browser.context.newPage();
    const png = readFileSync(new URL('../map/preview.png', import.meta.url));
    await page.route((url) => TILE.test(url.href) && !url.href.startsWith(target.url),
      (route) => route.fulfill({ status: 200, contentType: 'image/png', body: png, headers: { 'Access-Control-Allow-Origin': '*' } }));
    await page.goto(`${target.url}/?lat=52&lon=12&z=5`);
    await page.locator('img.leaflet-tile-loaded').first().waitFor({ timeout: 15000 });
    assert.equal(await page.locator('.tiles-offline-note').count(), 0);
    assert.equal(await page.locator('#map.tiles-off').count(), 0, 'the outline-only look is dropped');
    await page.close();
  });
});
