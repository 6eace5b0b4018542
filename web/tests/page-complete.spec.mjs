// Every file the pages load is served (no 404 leaving a blank page), the map's outline
// layer draws and no error is shown; the favicon is served for both pages.
// Run by scripts/test-build-order.sh against a binary built before scripts/setup-web.sh.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

describe('pages are complete', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  for (const path of ['/', '/admin/']) {
    test(`${path}: every file answers, the favicon too`, async () => {
      const page = await browser.context.newPage();
      const problems = watchPage(page);
      const failed = [];
      page.on('response', (r) => {
        const ignored = /\/admin\/auth\/me$/.test(r.url()); // 401 before login is expected
        if (r.url().startsWith(target.url) && r.status() >= 400 && !ignored) failed.push(`${r.status()} ${r.url()}`);
      });
      page.on('requestfailed', (r) => {
        if (r.url().startsWith(target.url)) failed.push(`failed ${r.url()}`);
      });
      await page.goto(`${target.url}${path}`, { waitUntil: 'networkidle' });
      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      assert.equal(icon, '/favicon.svg');
      const res = await page.request.get(`${target.url}${icon}`);
      assert.equal(res.status(), 200);
      assert.match(res.headers()['content-type'], /image\/svg\+xml/);
      if (path === '/') {
        await page.locator('.leaflet-outline-pane path.bm-land').first().waitFor({ state: 'attached', timeout: 15000 });
        await page.locator('#map-status').waitFor();
        assert.equal(await page.locator('#page-error').isVisible(), false, 'no error shown');
        // Page weight budget (docs/frontend.md): JS + CSS + outline data + font, gzip.
        const urls = await page.evaluate(() => [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)]);
        let total = 0;
        for (const url of new Set(urls)) {
          if (!url.startsWith(target.url) || /\/api\//.test(url)) continue;
          total += gzipSync(await (await page.request.get(url)).body(), { level: 9 }).length;
        }
        assert.ok(total < 300 * 1024, `page weight ${Math.round(total / 1024)} KB gzip < 300 KB`);
        console.log(`page weight: ${(total / 1024).toFixed(1)} KB gzip`);
      }
      assert.deepEqual(failed, [], 'no request of the page fails');
      assert.deepEqual(problems.errors, [], 'no uncaught page error');
      assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
      await page.close();
    });
  }
});
