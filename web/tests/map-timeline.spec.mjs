// The formation-year timeline: the sliders drive year_min/year_max (in the URL and the
// filter panel) and the point count follows; the play button animates year by year.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

const count = (page) => page.locator('#map-status').getAttribute('data-count').then(Number);

describe('public map: timeline', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('moving the slider changes the point count; state in the URL; play animates', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lat=50&lon=10&z=3`);
    await page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });
    const all = await count(page);
    assert.ok(all > 0, `points at first (${all})`);
    assert.equal(await page.locator('#timeline-text').innerText(), 'Toutes les années');

    const filtered = page.waitForResponse((r) => r.url().includes('/api/clusters?') && r.url().includes('year_max=1980'), { timeout: 15000 });
    await page.locator('#timeline-max').fill('1980');
    await filtered;
    await page.waitForFunction((n) => Number(document.querySelector('#map-status').dataset.count) !== n, all, { timeout: 15000 });
    const before1980 = await count(page);
    assert.ok(before1980 < all, `fewer points formed up to 1980 (${before1980} < ${all})`);
    assert.match(await page.locator('#timeline-text').innerText(), /1980/);
    assert.match(page.url(), /[?&]year_max=1980(&|$)/);
    assert.doesNotMatch(page.url(), /year_min=/, 'the left end means no lower bound');
    assert.equal(await page.inputValue('#f-year-max'), '1980', 'the filter panel follows');

    // The URL restores the slider.
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });
    assert.equal(await page.inputValue('#timeline-max'), '1980');
    assert.equal(await count(page), before1980);

    // Play: the upper bound advances year by year and the count grows back.
    const years = [];
    page.on('request', (r) => {
      const m = r.url().match(/\/api\/clusters\?.*year_max=(\d+)/);
      if (m) years.push(Number(m[1]));
    });
    await page.click('#timeline-play');
    assert.equal(await page.getAttribute('#timeline-play', 'aria-pressed'), 'true');
    await page.waitForFunction(() => Number(document.querySelector('#timeline-max').value) >= 1984, null, { timeout: 20000 });
    await page.click('#timeline-play');
    assert.equal(await page.getAttribute('#timeline-play', 'aria-pressed'), 'false');
    assert.deepEqual(years.slice(0, 4), [1981, 1982, 1983, 1984], `one request per year: ${years}`);

    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    await page.close();
  });
});
