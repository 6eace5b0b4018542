// Genre families (issue 16 item 3): clusters are rings of their families, points take
// their family's colour, and the legend filters on the server: a click asks
// /api/clusters?family=…, the point count becomes what the API answered, the state is in
// the URL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

const count = (page) => page.locator('#map-status').getAttribute('data-count').then(Number);

/** Points in a FeatureCollection, as the API counts them. */
const points = (fc) => fc.features.reduce((s, f) => s + (f.properties.cluster ? f.properties.count : 1), 0);

/** Waits for the next /api/clusters answer whose URL satisfies `match`; its JSON. */
async function nextClusters(page, match) {
  const res = await page.waitForResponse((r) => r.url().includes('/api/clusters?') && match(new URL(r.url())), { timeout: 15000 });
  assert.equal(res.status(), 200);
  return res.json();
}

describe('public map: genre families', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('rings and colours; a legend click filters the clusters as the API says; state in the URL', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const first = nextClusters(page, (u) => u.searchParams.get('breakdown') === 'families' && !u.searchParams.has('family'));
    await page.goto(`${target.url}/?lat=50&lon=10&z=3`);
    const all = await first;
    await page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });
    assert.equal(await count(page), points(all));
    assert.ok(points(all) > 0, 'points at first');

    // Rings: each cluster marker is painted with the conic-gradient of its families.
    // (A map marker: the legend's swatch is a .bm-cluster too, and the controls come first
    // in the page since issue 29.)
    const ring = await page.locator('.leaflet-marker-icon.bm-cluster').first().evaluate((el) => el.style.getPropertyValue('--ring'));
    assert.match(ring, /^conic-gradient\(var\(--fam-/, `a cluster's ring: ${ring}`);
    // The legend shows the view's points per family, as the API broke them down.
    const apiDoom = all.features.reduce((s, f) => s + (f.properties.cluster
      ? (f.properties.families?.doom ?? 0) : (f.properties.family === 'doom' ? 1 : 0)), 0);
    assert.ok(apiDoom > 0, 'the data has doom bands in view');
    const legendDoom = page.locator('#families [data-family="doom"] .fam-count');
    assert.equal(Number(await legendDoom.getAttribute('data-count')), apiDoom);

    // Click « doom »: the server filters, the count is the API's.
    const doomOnly = nextClusters(page, (u) => u.searchParams.get('family') === 'doom');
    await page.click('#families [data-family="doom"]');
    const doom = await doomOnly;
    await page.waitForFunction((n) => Number(document.querySelector('#map-status').dataset.count) === n, points(doom), { timeout: 15000 });
    assert.equal(points(doom), apiDoom, 'the filtered answer holds the doom points of the view');
    assert.ok(points(doom) < points(all), `fewer points (${points(doom)} < ${points(all)})`);
    assert.match(page.url(), /[?&]family=doom(&|$)/);
    assert.equal(await page.getAttribute('#families [data-family="doom"]', 'aria-pressed'), 'true');
    assert.equal(await page.getAttribute('#families-all', 'aria-pressed'), 'false');
    // Every single point drawn is a doom band.
    const fams = await page.locator('.bm-point[data-kind="point"]').evaluateAll((els) => els.map((e) => e.dataset.family));
    assert.ok(fams.every((f) => f === 'doom'), `point families: ${fams}`);

    // A second family adds to the first.
    const two = nextClusters(page, (u) => u.searchParams.get('family') === 'death,doom');
    await page.click('#families [data-family="death"]');
    const both = await two;
    await page.waitForFunction((n) => Number(document.querySelector('#map-status').dataset.count) === n, points(both), { timeout: 15000 });
    assert.ok(points(both) > points(doom));

    // The URL restores the selection.
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });
    assert.equal(await count(page), points(both));
    assert.equal(await page.getAttribute('#families [data-family="death"]', 'aria-pressed'), 'true');

    // « Toutes les familles » clears the filter.
    const cleared = nextClusters(page, (u) => !u.searchParams.has('family'));
    await page.click('#families-all');
    assert.equal(points(await cleared), points(all));
    await page.waitForFunction((n) => Number(document.querySelector('#map-status').dataset.count) === n, points(all), { timeout: 15000 });
    assert.doesNotMatch(page.url(), /family=/);

    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    await page.close();
  });
});
