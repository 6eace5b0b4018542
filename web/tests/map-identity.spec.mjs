// The page's identity and its honesty: legend, favicon, display typeface, and a visible
// message (not an empty map) when the API or a script fails.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

describe('public map: identity and errors', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('legend, favicon, dark theme and display typeface', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    const legend = page.locator('#legend');
    assert.ok(await legend.isVisible(), 'a legend is shown');
    const legendText = await legend.innerText();
    for (const word of [/Amas/, /Un groupe/, /même lieu/, /Parcours/]) assert.match(legendText, word);
    assert.equal(await page.locator('head link[rel="icon"]').getAttribute('href'), '/favicon.svg');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g).map(Number);
    assert.ok(r + g + b < 120, `a dark page background (${bg})`);
    const font = await page.evaluate(() => getComputedStyle(document.querySelector('.title')).fontFamily);
    assert.match(font, /Cinzel/, 'the display typeface names the site');
    await page.evaluate(() => document.fonts.ready);
    assert.ok(await page.evaluate(() => document.fonts.check('700 16px Cinzel')), 'the self-hosted font loaded');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    await page.close();
  });

  test('the API failing: the page says what went wrong, and retries', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    let fail = true;
    await page.route('**/api/clusters?**', (route) => (fail
      ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":{"code":"internal","message":"database unavailable"}}' })
      : route.continue()));
    await page.goto(`${target.url}/`);
    const banner = page.locator('#page-error');
    await banner.waitFor({ state: 'visible', timeout: 15000 });
    const said = await banner.innerText();
    assert.match(said, /groupes n’ont pas pu être chargés/);
    assert.match(said, /database unavailable/);
    assert.match(said, /500/);
    assert.match(await page.locator('#map-status').innerText(), /non chargés/);
    // The outline map is still there: the page is not empty.
    assert.ok(await page.locator('.leaflet-outline-pane path').count() > 0);
    fail = false;
    await banner.getByRole('button', { name: 'Réessayer' }).click();
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    // Other requests of the first load (a second view, the outline) may still settle: wait
    // for the banner to go, then say what it still holds if it did not.
    await banner.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
    const left = (await banner.isVisible()) ? await banner.innerText() : '';
    assert.equal(left, '', 'the message goes once the clusters load');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, []);
    await page.close();
  });

  test('a script that fails to load: the page names the missing file and the fix', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.route('**/vendor/leaflet/leaflet-src.esm.js', (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":{"code":"not_found","message":"no such file"}}' }));
    await page.goto(`${target.url}/`);
    const banner = page.locator('#page-error');
    await banner.waitFor({ state: 'visible', timeout: 15000 });
    const said = await banner.innerText();
    assert.match(said, /\/vendor\/leaflet\/leaflet-src\.esm\.js \(HTTP 404\)/);
    assert.match(said, /scripts\/setup-web\.sh/);
    assert.deepEqual(problems.csp, [], 'the error path needs no inline script either');
    await page.close();
  });
});
