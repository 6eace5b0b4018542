// Search suggestions as you type: debounced, an ARIA listbox driven from the keyboard
// (↑/↓ move, Enter chooses, Escape closes); choosing flies to the band and opens its card.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

describe('public map: search suggestions', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('suggestions by keyboard: ↓ ↓ ↑ Escape, then ↓ Enter opens the card', async (t) => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    // A word shared by several band names, taken from the data.
    const word = await page.evaluate(async () => {
      const fc = await (await fetch('/api/clusters?bbox=-180,-90,180,90&zoom=17')).json();
      const counts = new Map();
      for (const f of fc.features) {
        for (const w of String(f.properties.name || '').split(/\s+/)) {
          if (/^[\p{L}]{3,}$/u.test(w)) counts.set(w, (counts.get(w) || 0) + 1);
        }
      }
      return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    });
    if (!word) {
      t.skip('no band name word in the data');
      return;
    }
    const searches = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/search?')) searches.push(r.url());
    });
    const input = page.locator('#search-input');
    await input.focus();
    await page.keyboard.type(word, { delay: 40 });
    const options = page.locator('#search-results [role="option"]');
    await options.first().waitFor({ timeout: 10000 });
    assert.ok(searches.length <= 2, `typing is debounced (${searches.length} requests for "${word}")`);
    assert.equal(await input.getAttribute('aria-expanded'), 'true');
    assert.equal(await page.locator('#search-results').getAttribute('role'), 'listbox');

    const activeId = () => input.getAttribute('aria-activedescendant');
    const n = await options.count();
    await page.keyboard.press('ArrowDown');
    assert.equal(await activeId(), await options.nth(0).getAttribute('id'));
    assert.equal(await options.nth(0).getAttribute('aria-selected'), 'true');
    if (n > 1) {
      await page.keyboard.press('ArrowDown');
      assert.equal(await activeId(), await options.nth(1).getAttribute('id'));
      assert.equal(await options.nth(0).getAttribute('aria-selected'), 'false');
      await page.keyboard.press('ArrowUp');
      assert.equal(await activeId(), await options.nth(0).getAttribute('id'));
    }
    assert.equal(await page.evaluate(() => document.activeElement.id), 'search-input', 'the focus stays in the box');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#search-results').isVisible(), false, 'Escape closes the list');
    assert.equal(await input.getAttribute('aria-expanded'), 'false');

    // ↓ reopens the suggestions; Enter chooses the highlighted one.
    await page.keyboard.press('ArrowDown');
    await options.first().waitFor({ timeout: 10000 });
    const chosen = (await options.first().locator('.name').innerText()).trim();
    await page.keyboard.press('Enter');
    await page.locator('#card').waitFor({ state: 'visible' });
    await page.waitForFunction(() => document.querySelector('#card-title')?.textContent !== 'Chargement…');
    assert.equal((await page.locator('#card-title').innerText()).trim().toLowerCase(), chosen.toLowerCase());
    assert.match(page.url(), /[?&]band=\d+/);
    // The map frames the band (issue 29): a band in one place at zoom 10 at least; a band
    // that moved with its whole path in view, at whatever zoom that takes.
    const maId = new URL(page.url()).searchParams.get('band');
    const places = await page.evaluate(async (id) => {
      const card = await (await fetch(`/api/bands/${id}`)).json();
      const placed = (card.steps || []).filter((s) => Number.isFinite(s.lat) && Number.isFinite(s.lon));
      return new Set(placed.map((s) => `${s.lat.toFixed(6)},${s.lon.toFixed(6)}`)).size;
    }, maId);
    if (places <= 1) {
      await page.waitForFunction(() => Number(new URL(location.href).searchParams.get('z')) >= 10, null, { timeout: 10000 });
    } else {
      await page.waitForFunction((n) => {
        const m = document.querySelector('#map').getBoundingClientRect();
        const steps = [...document.querySelectorAll('.leaflet-map-pane .bm-step')];
        return steps.length === n && steps.every((e) => {
          const r = e.getBoundingClientRect();
          return r.left >= m.left && r.right <= m.right && r.top >= m.top && r.bottom <= m.bottom;
        });
      }, places, { timeout: 10000 });
    }
    assert.equal(await page.locator('#search-results').isVisible(), false);

    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    await page.close();
  });
});
