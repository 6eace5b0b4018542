// Issue 28: the map embedded in another site's page. A local HTML file, served from
// another origin, frames /embed and sees clusters; the embed hides the controls it was
// not asked for and links back to the full map; the map's "Intégrer" dialog prints the
// <iframe> snippet of the current view.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

/** Serves one HTML file on localhost (another origin than the server under test, which
 *  the tests reach on 127.0.0.1). */
async function hostPage(html) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bandmap-embed-'));
  const file = path.join(dir, 'blog.html');
  writeFileSync(file, html);
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://localhost:${port}/blog.html`,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => { rmSync(dir, { recursive: true, force: true }); r(); }); }),
  };
}

describe('embedded map', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('a page on another site frames /embed and sees clusters', async () => {
    const host = await hostPage(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A metal blog</title></head>
<body><h1>Our scene</h1>
<iframe id="bm" src="${target.url}/embed?lat=55&amp;lon=12&amp;z=4" title="Band Map" width="900" height="600" style="border:0"></iframe>
</body></html>`);
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    try {
      await page.goto(host.url);
      const frame = page.frameLocator('#bm');
      await frame.locator('.bm-marker[data-kind="cluster"]').first().waitFor({ timeout: 20000 });
      const count = Number(await frame.locator('.bm-marker[data-kind="cluster"]').first().getAttribute('data-count'));
      assert.ok(count >= 2, `a cluster is drawn in the frame (data-count ${count})`);
      // The controls the URL did not ask for are hidden; the credit links back.
      assert.equal(await frame.locator('header.bar').isVisible(), false, 'no search or filters bar');
      assert.equal(await frame.locator('#timeline').isVisible(), false, 'no timeline');
      const back = frame.locator('.embed-credit a');
      assert.equal(await back.getAttribute('target'), '_blank');
      assert.match(await back.innerText(), /Band Map/);
      assert.match(await frame.locator('.leaflet-control-attribution').innerText(), /GeoNames/);
      assert.deepEqual(problems.errors, []);
      assert.deepEqual(problems.csp, []);
    } finally {
      await page.close();
      await host.close();
    }
  });

  test('the map prints the iframe snippet of its current view', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lat=60.1000&lon=10.5000&z=6&genre=black`);
    await page.locator('#share-open').click();
    const dialog = page.locator('#share-dialog');
    await dialog.waitFor({ state: 'visible' });
    const code = await page.locator('#share-code').inputValue();
    assert.match(code, /^<iframe src="[^"]*\/embed\?[^"]*"/);
    assert.match(code, /lat=60\.1000/);
    assert.match(code, /genre=black/);
    assert.doesNotMatch(code, /search=/, 'defaults are not written');
    await page.locator('#share-search').check();
    assert.match(await page.locator('#share-code').inputValue(), /search=1/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, []);
    await page.close();
  });
});
