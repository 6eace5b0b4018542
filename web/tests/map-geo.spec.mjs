// Offline geography: with every tile request failing (the test browser aborts any
// non-local request), the Natural Earth outline map is what the visitor sees.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

describe('public map: geography without network', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('outline map: land, borders and country names drawn with tiles unreachable', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const tiles = [];
    page.on('requestfailed', (r) => {
      if (/\/\d+\/\d+\/\d+\.png/.test(r.url())) tiles.push(r.url());
    });
    await page.goto(`${target.url}/?lat=52&lon=12&z=4`);
    const land = page.locator('.leaflet-outline-pane path.bm-land');
    await land.first().waitFor({ state: 'attached', timeout: 15000 });
    assert.ok(await land.count() >= 100, `country shapes drawn: ${await land.count()}`);
    assert.ok(await page.locator('.leaflet-outline-pane path.bm-coast').count() >= 1, 'coastlines drawn');
    assert.ok(await page.locator('.leaflet-outline-pane path.bm-border').count() >= 1, 'borders drawn');
    // The land has a real fill and size on screen (not an invisible layer).
    const fill = await land.first().evaluate((el) => getComputedStyle(el).fill);
    assert.notEqual(fill, 'none');
    const box = await page.locator('.leaflet-outline-pane svg').boundingBox();
    assert.ok(box && box.width > 500 && box.height > 400, `outline layer covers the map: ${JSON.stringify(box)}`);

    // The tiles are out of reach — asked for and failed (the page tried them itself), or never
    // asked for because the server said so (issue 28: an offline page asks for none) — and
    // the outline pane lies below the tile pane.
    await page.waitForFunction(() => document.querySelector('#map').dataset.tiles === 'unreachable', null, { timeout: 15000 });
    const said = await page.evaluate(async () => (await (await fetch('/map/tiles-status.json')).json()).tiles);
    if (said === 'unreachable') assert.equal(tiles.length, 0, 'no tile asked for');
    else assert.ok(tiles.length > 0, 'the tile requests failed (offline)');
    const [outlineZ, tileZ] = await page.evaluate(() => [
      Number(getComputedStyle(document.querySelector('.leaflet-outline-pane')).zIndex),
      Number(getComputedStyle(document.querySelector('.leaflet-tile-pane')).zIndex),
    ]);
    assert.ok(outlineZ < tileZ, `outlines under the tiles (${outlineZ} < ${tileZ})`);

    // Country names at low zoom, legible (not overlapping each other).
    const labels = page.locator('.leaflet-countryLabels-pane .bm-country');
    await labels.first().waitFor({ timeout: 10000 });
    const names = await labels.allInnerTexts();
    assert.ok(names.length >= 8, `several country names at z4: ${names.join(', ')}`);
    assert.ok(names.some((n) => /germany|france|poland|sweden|norway/i.test(n)), `European countries named: ${names.join(', ')}`);
    const boxes = await labels.evaluateAll((els) => els.map((e) => e.firstElementChild.getBoundingClientRect().toJSON()));
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i];
        const b = boxes[j];
        const overlap = a.left < b.right - 2 && b.left < a.right - 2 && a.top < b.bottom - 2 && b.top < a.bottom - 2;
        assert.ok(!overlap, `labels ${names[i]} and ${names[j]} do not overlap`);
      }
    }
    // Zoomed in to city level, the names give way to the points.
    await page.goto(`${target.url}/?lat=59.9&lon=10.7&z=9`);
    await land.first().waitFor({ state: 'attached', timeout: 15000 });
    await page.waitForTimeout(300);
    assert.equal(await labels.count(), 0, 'no country names at z9');

    assert.deepEqual(problems.errors, [], 'no uncaught page error');
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    assert.equal(await page.locator('#page-error').isVisible(), false, 'no error shown');
    await page.close();
  });
});
