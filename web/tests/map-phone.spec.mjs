// Phone layout at 390×844: the filter panel behind a button, the card as a bottom sheet,
// the point count and error messages visible over the map.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

const W = 390;
const H = 844;

async function inScreen(page, selector) {
  const box = await page.locator(selector).boundingBox();
  assert.ok(box && box.width > 0 && box.height > 0, `${selector} is laid out`);
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= W + 0.5 && box.y + box.height <= H + 0.5,
    `${selector} lies within the screen: ${JSON.stringify(box)}`);
  return box;
}

describe('public map: phone layout', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('390×844: count visible, filters behind a button, card as a bottom sheet', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: W, height: H });
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    await page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });
    assert.equal(await page.locator('#f-genre').isVisible(), false, 'filters start closed');
    const status = await inScreen(page, '#map-status');
    assert.match(await page.locator('#map-status').innerText(), /\d+ point/);
    await inScreen(page, '#filters-toggle');
    await inScreen(page, '#timeline');
    assert.equal(await page.locator('#legend').getAttribute('open'), null, 'the legend starts folded');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= W, 'no horizontal overflow');

    // The card: a bottom sheet across the screen, the count still visible above it.
    const maId = await page.evaluate(async () => {
      const fc = await (await fetch('/api/clusters?bbox=-180,-90,180,90&zoom=17')).json();
      return fc.features[0]?.properties.ma_id;
    });
    assert.ok(maId, 'a band to open');
    await page.goto(`${target.url}/?band=${maId}`);
    await page.waitForFunction(() => document.querySelector('#card-title')?.textContent !== 'Chargement…', null, { timeout: 15000 });
    await page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });
    const card = await inScreen(page, '#card');
    assert.ok(Math.abs(card.width - W) <= 1, `the sheet spans the width (${card.width})`);
    assert.ok(Math.abs(card.y + card.height - H) <= 1, 'the sheet sits on the bottom edge');
    assert.ok(card.height <= H * 0.56, `the sheet leaves the map visible (${card.height}px)`);
    assert.ok(await page.locator('#map-status').isVisible());
    assert.ok(status.y + status.height <= card.y, 'the count is not under the sheet');

    // An error stays visible on a phone too.
    await page.route('**/api/clusters?**', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"unavailable","message":"starting"}}' }));
    await page.locator('.leaflet-control-zoom-in').click();
    await page.locator('#page-error').waitFor({ state: 'visible', timeout: 15000 });
    await inScreen(page, '#page-error');
    assert.match(await page.locator('#page-error').innerText(), /503/);

    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    await page.close();
  });
});
