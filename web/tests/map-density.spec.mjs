// The density toggle: a choropleth of bands per 100,000 inhabitants per country
// (GET /api/countries), with a legend, the figure in a tooltip, the filters and the
// legend's genre families applied to it, and its state in the URL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

/** Sum of the bands painted (one path per country shape, a country counted once). */
const painted = (page) => page.evaluate(() => {
  const seen = new Map();
  for (const p of document.querySelectorAll('.leaflet-density-pane path[data-cc]')) {
    if (p.dataset.cc) seen.set(p.dataset.cc, Number(p.dataset.bands));
  }
  return { countries: seen.size, bands: [...seen.values()].reduce((a, b) => a + b, 0) };
});

const answerTotal = (page, query) => page.evaluate(async (q) => {
  const body = await (await fetch(`/api/countries${q}`)).json();
  return body.items.reduce((a, i) => a + i.bands, 0);
}, query);

/** Bands per country code painted, and as an /api/countries answer gives them. */
const paintedByCode = (page) => page.evaluate(() => {
  const seen = {};
  for (const p of document.querySelectorAll('.leaflet-density-pane path[data-cc]')) {
    if (p.dataset.cc) seen[p.dataset.cc] = Number(p.dataset.bands);
  }
  return seen;
});
const answerByCode = (page, query) => page.evaluate(async (q) => {
  const body = await (await fetch(`/api/countries${q}`)).json();
  return Object.fromEntries(body.items.map((i) => [i.country_code, i.bands]));
}, query);

/** Waits until the painted bands sum to `n`. */
const paintedTotalIs = (page, n) => page.waitForFunction((want) => {
  const seen = new Map();
  for (const p of document.querySelectorAll('.leaflet-density-pane path[data-cc]')) if (p.dataset.cc) seen.set(p.dataset.cc, Number(p.dataset.bands));
  return [...seen.values()].reduce((a, b) => a + b, 0) === want;
}, n, { timeout: 15000 });

/** A point inside a painted country (its shape is the element there), or null. */
const paintedSpot = (page) => page.evaluate(() => {
  for (const p of document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])')) {
    const r = p.getBoundingClientRect();
    for (const [fx, fy] of [[0.5, 0.5], [0.4, 0.6], [0.6, 0.4], [0.5, 0.7], [0.3, 0.3]]) {
      const x = r.left + r.width * fx;
      const y = r.top + r.height * fy;
      if (document.elementFromPoint(x, y) === p) return { x, y, cc: p.dataset.cc };
    }
  }
  return null;
});

describe('public map: density', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('the toggle shows a choropleth with a legend and a tooltip; a filter changes it', async (t) => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lat=50&lon=10&z=4`);
    await page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });

    const answered = page.waitForResponse((r) => r.url().includes('/api/countries'), { timeout: 15000 });
    await page.click('#density-toggle');
    assert.equal((await answered).status(), 200);
    assert.equal(await page.getAttribute('#density-toggle', 'aria-pressed'), 'true');
    assert.match(page.url(), /[?&]layer=density(&|$)/);
    await page.waitForFunction(() => document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])').length > 0, null, { timeout: 15000 });
    assert.equal(await page.locator('.bm-marker[data-kind]').count(), 0, 'the clusters give way to the choropleth');
    const all = await painted(page);
    const total = await answerTotal(page, '');
    assert.equal(all.bands, total, 'every country of the answer is painted');

    // Coloured: more than one class when more than one country.
    const fills = await page.evaluate(() => [...new Set([...document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])')].map((p) => p.getAttribute('fill')))]);
    assert.ok(fills.every((f) => /^#[0-9a-f]{6}$/i.test(f)), `fills ${fills}`);
    if (all.countries > 1) assert.ok(fills.length > 1, `several classes of colour: ${fills}`);

    // The legend: classes with swatches, the densest countries, the source.
    const legend = page.locator('#density-legend');
    assert.ok(await legend.isVisible());
    assert.ok(await legend.locator('.dens-classes li').count() >= 1);
    assert.match(await legend.innerText(), /pour 100 000 habitants/i);
    assert.match(await legend.innerText(), /GeoNames/);

    // The tooltip of a painted country gives its figure.
    const spot = await page.evaluate(() => {
      for (const p of document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])')) {
        const r = p.getBoundingClientRect();
        for (const [fx, fy] of [[0.5, 0.5], [0.4, 0.6], [0.6, 0.4], [0.5, 0.7], [0.3, 0.3]]) {
          const x = r.left + r.width * fx;
          const y = r.top + r.height * fy;
          if (document.elementFromPoint(x, y) === p) {
            const figure = Number(p.dataset.density).toLocaleString('fr-FR', { maximumSignificantDigits: 3 });
            return { x, y, cc: p.dataset.cc, figure, country: p.dataset.country };
          }
        }
      }
      return null;
    });
    assert.ok(spot, 'a painted country can be pointed at');
    await page.mouse.move(spot.x, spot.y);
    const tip = page.locator('.bm-density-tip');
    await tip.waitFor({ timeout: 5000 });
    const tipText = await tip.innerText();
    assert.ok(tipText.includes(`${spot.figure} pour 100 000 habitants`), `tooltip "${tipText}" gives ${spot.figure}`);

    // A filter changes the choropleth: a genre that keeps fewer bands.
    const genres = await page.evaluate(async () => {
      const fc = await (await fetch('/api/clusters?bbox=-180,-85,180,85&zoom=17')).json();
      return [...new Set(fc.features.map((f) => String(f.properties.genre || '').split(/[\s/,]+/)[0]).filter((g) => g.length >= 3))];
    });
    let genre = null;
    let expected = null;
    for (const g of genres) {
      const n = await answerTotal(page, `?genre=${encodeURIComponent(g)}`);
      if (n > 0 && n < total) {
        genre = g;
        expected = n;
        break;
      }
    }
    if (!genre) {
      t.diagnostic('no genre keeps fewer bands: filter step skipped');
    } else {
      const filtered = page.waitForResponse((r) => r.url().includes('/api/countries?') && r.url().includes(`genre=${encodeURIComponent(genre)}`), { timeout: 15000 });
      await page.fill('#f-genre', genre);
      await page.click('#filters-apply');
      await filtered;
      await page.waitForFunction((n) => {
        const seen = new Map();
        for (const p of document.querySelectorAll('.leaflet-density-pane path[data-cc]')) if (p.dataset.cc) seen.set(p.dataset.cc, Number(p.dataset.bands));
        return [...seen.values()].reduce((a, b) => a + b, 0) === n;
      }, expected, { timeout: 15000 });
      assert.ok((await painted(page)).bands < all.bands, 'fewer bands painted with the filter');
      assert.match(await page.locator('#map-status').innerText(), /filtres/);
    }

    // The URL reopens the density; the toggle brings the clusters back.
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])').length > 0, null, { timeout: 15000 });
    assert.equal(await page.getAttribute('#density-toggle', 'aria-pressed'), 'true');
    await page.click('#density-toggle');
    await page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });
    assert.equal(await page.locator('.leaflet-density-pane path').count(), 0, 'the choropleth is gone');
    assert.equal(await legend.isVisible(), false);
    assert.doesNotMatch(page.url(), /layer=density/);

    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    await page.close();
  });
  test('from the landing view, the toggle keeps Europe in view (no jump to Siberia)', async (t) => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    await page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });
    await page.click('#density-toggle');
    await page.waitForFunction(() => document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])').length > 0, null, { timeout: 15000 });
    // The catalogue is Europe's: Russia's or Turkey's Asian part must not pull the frame east.
    await page.waitForFunction(() => /[?&]lon=/.test(location.search), null, { timeout: 5000 });
    const view = await page.evaluate(() => Object.fromEntries(new URLSearchParams(location.search)));
    const lon = Number(view.lon);
    const lat = Number(view.lat);
    assert.ok(lon > -25 && lon < 45, `the map's centre is in Europe, not at longitude ${lon} (${JSON.stringify(view)})`);
    assert.ok(lat > 34 && lat < 72, `the map's centre is in Europe, not at latitude ${lat}`);
    const paris = await page.evaluate(() => {
      const p = document.querySelector('.leaflet-density-pane path[data-cc="FR"]');
      const r = p?.getBoundingClientRect();
      const m = document.querySelector('#map').getBoundingClientRect();
      return r && r.right > m.left && r.left < m.right && r.bottom > m.top && r.top < m.bottom;
    });
    assert.ok(paris, 'France is on screen');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, []);
    await page.close();
  });

  test('a genre family clicked in the legend filters the density layer', async (t) => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const first = page.waitForResponse((r) => r.url().includes('/api/countries'), { timeout: 15000 });
    await page.goto(`${target.url}/?lat=50&lon=10&z=4&layer=density`);
    const firstUrl = new URL((await first).url());
    assert.equal(firstUrl.searchParams.has('family'), false, 'no family asked at first');
    const total = await answerTotal(page, '');
    await paintedTotalIs(page, total);
    assert.equal(await page.locator('#density-legend .dens-families').count(), 0, 'no family line without a family');

    // The families in legend order; the first that keeps some bands but not all.
    const order = await page.locator('#families [data-family]').evaluateAll((els) => els.map((e) => e.dataset.family));
    let fam = null;
    let famTotal = null;
    for (const f of order) {
      const n = await answerTotal(page, `?family=${f}`);
      if (n > 0 && n < total) {
        fam = f;
        famTotal = n;
        break;
      }
    }
    if (target.mock) assert.ok(fam, 'the mock has a family keeping some bands only');
    if (!fam) {
      t.diagnostic('no family keeps fewer bands: family step skipped');
      await page.close();
      return;
    }

    // Click it in the legend while the density is shown: /api/countries is asked again
    // with family=, and the painted figures become that answer's, country by country.
    const asked = page.waitForResponse((r) => r.url().includes('/api/countries?') && new URL(r.url()).searchParams.get('family') === fam, { timeout: 15000 });
    await page.click(`#families [data-family="${fam}"]`);
    assert.equal((await asked).status(), 200);
    await paintedTotalIs(page, famTotal);
    assert.ok(famTotal < total, `fewer bands painted (${famTotal} < ${total})`);
    assert.deepEqual(await paintedByCode(page), await answerByCode(page, `?family=${fam}`));
    assert.equal(await page.locator('.bm-marker[data-kind]').count(), 0, 'still the choropleth, no clusters');
    assert.match(page.url(), new RegExp(`[?&]family=${fam}(&|$)`));
    assert.match(page.url(), /[?&]layer=density(&|$)/);
    // The legend and the status line say a family filter applies.
    const famLine = page.locator('#density-legend .dens-families');
    assert.equal(await famLine.getAttribute('data-families'), fam);
    const label = await page.locator(`#families [data-family="${fam}"] .fam-label`).innerText();
    assert.equal(await famLine.innerText(), `Familles : ${label}`);
    assert.match(await page.locator('#map-status').innerText(), /filtres appliqués/);
    // The tooltip names the family counted.
    const spot = await paintedSpot(page);
    if (target.mock) assert.ok(spot, 'a painted country can be pointed at');
    if (spot) {
      await page.mouse.move(spot.x, spot.y);
      const tip = page.locator('.bm-density-tip');
      await tip.waitFor({ timeout: 5000 });
      assert.ok((await tip.innerText()).includes(`(${label})`), `tooltip names ${label}`);
      await page.mouse.move(5, 895);
    }

    // A second family adds its bands (legend order in the request).
    const second = order.find((f) => f !== fam);
    const both = order.filter((f) => f === fam || f === second).join(',');
    const bothTotal = await answerTotal(page, `?family=${both}`);
    const askedBoth = page.waitForResponse((r) => r.url().includes('/api/countries?') && new URL(r.url()).searchParams.get('family') === both, { timeout: 15000 });
    await page.click(`#families [data-family="${second}"]`);
    assert.equal((await askedBoth).status(), 200);
    await paintedTotalIs(page, bothTotal);
    assert.deepEqual(await paintedByCode(page), await answerByCode(page, `?family=${both}`));
    assert.equal(await famLine.getAttribute('data-families'), both);

    // « Toutes les familles »: no family asked, every band painted again.
    const cleared = page.waitForResponse((r) => r.url().includes('/api/countries') && !new URL(r.url()).searchParams.has('family'), { timeout: 15000 });
    await page.click('#families-all');
    assert.equal((await cleared).status(), 200);
    await paintedTotalIs(page, total);
    assert.equal(await page.locator('#density-legend .dens-families').count(), 0);
    assert.doesNotMatch(page.url(), /family=/);

    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, [], 'the page works under the Content-Security-Policy');
    await page.close();
  });
});
