// Issue 28: the server-rendered town and band pages, their 404 page and the embed, as a
// visitor sees them: axe-core finds no serious or critical violation (desktop and phone),
// the links between them work, and nothing breaks the pages' Content-Security-Policy.
// Needs the real server (the mock serves the map only).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

async function axeSerious(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

/** The first town page of the sitemap. */
async function firstTown(target) {
  const xml = await (await fetch(`${target.url}/sitemap/towns-0.xml`)).text();
  const m = xml.match(/<loc>[^<]*(\/town\/[^<]+)<\/loc>/);
  assert.ok(m, 'the sitemap lists a town');
  return m[1];
}

describe('town and band pages', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  // Both languages: French on a desktop, English on a phone (the URL chooses).
  for (const [label, viewport, lang] of [['desktop', { width: 1280, height: 900 }, 'fr'], ['phone', { width: 390, height: 844 }, 'en']]) {
    test(`${label}, ${lang}: town page → band page → map, accessible`, async (t) => {
      if (target.mock) return t.skip('the mock server has no town pages');
      const page = await browser.context.newPage();
      await page.setViewportSize(viewport);
      const problems = watchPage(page);
      await page.goto(`${target.url}${await firstTown(target)}?lang=${lang}`);
      assert.equal(await page.getAttribute('html', 'lang'), lang);
      assert.ok((await page.locator('h1').innerText()).length > 0);
      assert.deepEqual(await axeSerious(page), [], 'town page');
      const noScroll = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
      assert.ok(noScroll, 'no sideways scroll');
      await page.locator('table.bands a').first().click();
      await page.waitForURL(new RegExp(`/band/\\d+\\?lang=${lang}$`));
      assert.ok(await page.locator('ol.path li').count() > 0, 'the band page lists its path');
      assert.deepEqual(await axeSerious(page), [], 'band page');
      await page.locator('a.button[href^="/?band="]').click();
      await page.waitForURL(/\/\?band=\d+/);
      await page.locator('#card h2').first().waitFor({ timeout: 15000 });
      assert.deepEqual(problems.errors, []);
      assert.deepEqual(problems.csp, []);
      await page.close();
    });
  }

  test('the 404 page and the embed are accessible', async (t) => {
    if (target.mock) return t.skip('the mock server has no town pages');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const res = await page.goto(`${target.url}/town/1.0000_1.0000/nowhere`);
    assert.equal(res.status(), 404);
    assert.deepEqual(await axeSerious(page), [], '404 page');
    await page.goto(`${target.url}/embed?lat=55&lon=12&z=4`);
    await page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });
    assert.deepEqual(await axeSerious(page), [], 'embed');
    assert.deepEqual(problems.csp, []);
    await page.close();
  });
});
