// Issue 29, the public map: what a visitor tripped over, each with the check that fails
// on the code before the fix. Real server (the demo's multi-step bands and towns), Chromium,
// no network to outside hosts (helpers.mjs).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

const urlZoom = (page) => Number(new URL(page.url()).searchParams.get('z'));

/** The bands whose placed steps are in several places, the most spread out first:
 *  [{id, name, places}] (from the points one by one, zoom 17). */
const spreadBands = (page) => page.evaluate(async () => {
  const fc = await (await fetch('/api/clusters?bbox=-180,-85,180,85&zoom=17')).json();
  const by = new Map();
  for (const f of fc.features) {
    const p = f.properties;
    if (p.cluster) continue;
    if (!by.has(p.ma_id)) by.set(p.ma_id, { id: p.ma_id, name: p.name, pts: new Map() });
    by.get(p.ma_id).pts.set(f.geometry.coordinates.join(','), f.geometry.coordinates);
  }
  const out = [];
  for (const b of by.values()) {
    const pts = [...b.pts.values()];
    if (pts.length < 2) continue;
    const lons = pts.map((c) => c[0]);
    const lats = pts.map((c) => c[1]);
    const spread = Math.max(...lons) - Math.min(...lons) + Math.max(...lats) - Math.min(...lats);
    out.push({ id: b.id, name: b.name, places: pts.length, spread, first: pts[0] });
  }
  return out.sort((a, b) => b.spread - a.spread);
});

/** Rectangles of what covers the map: the top-right controls (legend, layers), the status
 *  line, the timeline. */
const coverRects = (page) => page.evaluate(() => {
  const rects = [];
  for (const el of document.querySelectorAll('.leaflet-top.leaflet-right > *, #timeline, #map-status')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) rects.push({ l: r.left, t: r.top, r: r.right, b: r.bottom, what: el.id || el.className });
  }
  return rects;
});

/** Centres of the path's step markers. */
const stepCentres = (page) => page.evaluate(() => [...document.querySelectorAll(".leaflet-marker-icon.bm-step")].map((el) => {
  const r = el.getBoundingClientRect();
  return { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2, label: el.textContent };
}));

describe('issue 29: public map', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('2: a searched band\'s whole path is framed, clear of the legend and the timeline', async (t) => {
    if (target.mock) return t.skip('needs the demo\'s multi-step bands');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    // A band spread over several places whose name the search finds once.
    let band = null;
    for (const b of (await spreadBands(page)).slice(0, 15)) {
      const found = await page.evaluate(async (q) => (await (await fetch(`/api/search?q=${encodeURIComponent(q)}`)).json()).items ?? [], b.name);
      if (found.filter((i) => i.name === b.name).length === 1 && found.some((i) => i.ma_id === b.id)) { band = b; break; }
    }
    assert.ok(band, 'the demo has a band in several places');
    await page.fill('#search-input', band.name);
    const option = page.locator('#search-results [role="option"]', { hasText: band.name }).first();
    await option.waitFor({ timeout: 10000 });
    await option.click();
    await page.waitForFunction((id) => new URL(location.href).searchParams.get('band') === String(id), band.id);
    await page.waitForFunction((n) => document.querySelectorAll(".leaflet-marker-icon.bm-step").length === n, band.places, { timeout: 15000 });
    await page.waitForTimeout(400); // the map settles (no animation: fitBounds without it)
    const map = await page.locator('#map').boundingBox();
    const covers = await coverRects(page);
    for (const s of await stepCentres(page)) {
      assert.ok(s.x >= map.x && s.x <= map.x + map.width && s.y >= map.y && s.y <= map.y + map.height,
        `step ${s.label} of ${band.name} is on the map (${s.x}, ${s.y})`);
      const under = covers.find((c) => s.x >= c.l && s.x <= c.r && s.y >= c.t && s.y <= c.b);
      assert.equal(under, undefined, `step ${s.label} is not under ${under?.what}`);
    }
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('3: offline, the towns that have bands are named and ranked for the view', async (t) => {
    if (target.mock) return t.skip('needs the demo\'s towns');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    // The country with most bands, at zoom 7 over its largest town.
    await page.goto(`${target.url}/map/theme.css`);
    const top = await page.evaluate(async () => {
      const all = await (await fetch('/api/clusters?bbox=-180,-85,180,85&zoom=17')).json();
      const byCountry = new Map();
      for (const f of all.features) byCountry.set(f.properties.country, (byCountry.get(f.properties.country) || 0) + 1);
      const country = [...byCountry].sort((a, b) => b[1] - a[1])[0][0];
      const fc = await (await fetch(`/api/clusters?bbox=-180,-85,180,85&zoom=17&country=${encodeURIComponent(country)}`)).json();
      const towns = new Map();
      for (const f of fc.features) {
        const p = f.properties;
        const k = f.geometry.coordinates.join(',');
        if (!towns.has(k)) towns.set(k, { c: f.geometry.coordinates, ids: new Set(), name: String(p.location_raw).split(',')[0].trim() });
        towns.get(k).ids.add(p.ma_id);
      }
      const best = [...towns.values()].sort((a, b) => b.ids.size - a.ids.size || a.name.localeCompare(b.name, 'fr'))[0];
      return { lon: best.c[0], lat: best.c[1], country, name: best.name, bands: best.ids.size };
    });
    await page.goto(`${target.url}/?country=${encodeURIComponent(top.country)}&lat=${top.lat}&lon=${top.lon}&z=7`);
    await page.waitForFunction(() => document.querySelectorAll('.bm-town [data-town]').length > 0, null, { timeout: 15000 });
    const names = await page.locator('.bm-town [data-town]').evaluateAll((els) => els.map((e) => e.dataset.town));
    assert.ok(names.includes(top.name), `the largest town ${top.name} is named: ${names}`);
    await page.click('#towns-toggle');
    const first = page.locator('#towns-top button.town').first();
    await first.waitFor({ timeout: 15000 });
    assert.equal(await first.getAttribute('data-town'), top.name, 'the largest town heads the ranking');
    assert.equal(Number(await first.getAttribute('data-bands')), top.bands);
    await first.click();
    await page.locator('#card .band-list').waitFor({ timeout: 5000 });
    assert.equal(await page.locator('#card .band-list button').count(), top.bands, 'its list of bands');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('4 and 8: density: no "null", one class for one value, a zoomed-in view zooms out', async (t) => {
    if (target.mock) return t.skip('needs /api/countries');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    // A town's zoom: the layer opened here used to paint the whole screen one colour.
    await page.goto(`${target.url}/?lat=59.9&lon=10.75&z=10`);
    await page.locator('#density-toggle').waitFor();
    await page.click('#density-toggle');
    await page.waitForFunction(() => document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])').length > 0, null, { timeout: 15000 });
    await page.waitForFunction(() => document.querySelector('#density-legend .dens-title'), null, { timeout: 15000 });
    assert.doesNotMatch(await page.locator('#density-legend').innerText(), /\bnull\b/, 'no literal null in the legend');
    assert.ok(urlZoom(page) <= 6, `the map zoomed out to the countries (z=${urlZoom(page)})`);
    const countries = await page.evaluate(async () => (await (await fetch('/api/countries')).json()).items.length);
    const fills = await page.evaluate(() => {
      const seen = new Set();
      const vw = innerWidth;
      const vh = innerHeight;
      for (const p of document.querySelectorAll('.leaflet-density-pane path[data-density]:not([data-density=""])')) {
        const r = p.getBoundingClientRect();
        if (r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh) seen.add(p.getAttribute('fill'));
      }
      return seen.size;
    });
    if (countries > 1) assert.ok(fills > 1, `several colours on screen (${fills})`);

    // One country: one class, not "0 – v" and "v et plus".
    const cc = await page.evaluate(async () => (await (await fetch('/api/countries')).json()).items.find((i) => i.per_100k > 0)?.country_code);
    await page.goto(`${target.url}/?country=${cc}&layer=density`);
    await page.waitForFunction(() => document.querySelectorAll('#density-legend .dens-classes li').length > 0, null, { timeout: 15000 });
    assert.equal(await page.locator('#density-legend .dens-classes li').count(), 1, 'one value, one class');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('9: a one-place cluster opens its list where the map is; the card leads back to it', async (t) => {
    if (target.mock) return t.skip('needs the demo\'s towns');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const first = page.waitForResponse((r) => r.url().includes('/api/clusters?') && r.url().includes('breakdown'), { timeout: 15000 });
    await page.goto(`${target.url}/?lat=60&lon=10&z=5`);
    const fc = await (await first).json();
    const clusters = fc.features.filter((f) => f.properties.cluster);
    const counts = clusters.map((f) => f.properties.count);
    const town = clusters.find((f) => f.properties.expansion_zoom >= 17 && f.properties.count > 1
      && counts.filter((c) => c === f.properties.count).length === 1);
    if (!town) return t.skip('no one-place cluster with a unique count in this view');
    const n = town.properties.count;
    await page.locator(`.bm-marker[data-kind="cluster"][data-count="${n}"]`).click();
    const list = page.locator('#card .band-list');
    await list.waitFor({ timeout: 15000 });
    assert.equal(urlZoom(page), 5, 'no jump to zoom 17');
    const bands = await list.locator('button').count();
    assert.ok(bands >= 1);
    await list.locator('button').first().click();
    await page.waitForFunction(() => document.querySelector('#card-title') && document.querySelector('#card-title').textContent !== 'Chargement…', null, { timeout: 15000 });
    const back = page.locator('#card-back');
    assert.match(await back.innerText(), new RegExp(`${bands} groupes`));
    await back.click();
    await list.waitFor({ timeout: 5000 });
    assert.equal(await page.locator('#card .band-list button').count(), bands, 'back to the same list');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('10: the timeline and the layers come before the markers; Escape gives the focus back', async (t) => {
    if (target.mock) return t.skip('needs the demo');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lat=52&lon=12&z=4`);
    await page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });
    const markers = await page.locator('.bm-marker[data-kind]').count();
    const stops = {};
    for (let i = 1; i <= 120 && !(stops.play && stops.density); i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => document.activeElement?.id);
      if (id === 'timeline-play' && !stops.play) stops.play = i;
      if (id === 'density-toggle' && !stops.density) stops.density = i;
    }
    assert.ok(stops.play && stops.play <= 20, `play is Tab stop ${stops.play} (${markers} markers)`);
    assert.ok(stops.density && stops.density <= 40, `Densité is Tab stop ${stops.density} (${markers} markers)`);

    // A marker opens the card with Enter; Escape closes it and the focus is the marker's
    // (a band in one place: the card does not move the map).
    const band = await page.evaluate(async () => {
      const fc = await (await fetch('/api/clusters?bbox=-180,-85,180,85&zoom=17')).json();
      const n = new Map();
      for (const f of fc.features) n.set(f.properties.ma_id, (n.get(f.properties.ma_id) || 0) + 1);
      const f = fc.features.find((x) => n.get(x.properties.ma_id) === 1);
      return { id: f.properties.ma_id, first: f.geometry.coordinates };
    });
    await page.goto(`${target.url}/?lat=${band.first[1]}&lon=${band.first[0]}&z=17`);
    const marker = page.locator(`.bm-marker[data-ma-id="${band.id}"]`).first();
    await marker.waitFor({ timeout: 15000 });
    await marker.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#card-title') && document.querySelector('#card-title').textContent !== 'Chargement…', null, { timeout: 15000 });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('#card').hidden);
    const focused = await page.evaluate(() => ({ tag: document.activeElement?.tagName, maId: document.activeElement?.dataset?.maId }));
    assert.equal(focused.maId, String(band.id), `the focus is back on the marker (${JSON.stringify(focused)})`);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('11 and 13: the card folds the legend and speaks French', async (t) => {
    if (target.mock) return t.skip('needs the demo');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    assert.equal(await page.locator('#legend').getAttribute('open'), '', 'the legend starts open on a desktop');
    const band = await page.evaluate(async () => {
      const fc = await (await fetch('/api/clusters?bbox=-180,-85,180,85&zoom=17')).json();
      const p = fc.features.map((f) => f.properties).find((x) => x.step_label && /^(early|mid|later)/.test(x.step_label) && x.status);
      return p ? { id: p.ma_id, status: p.status, label: p.step_label } : null;
    });
    assert.ok(band, 'a band with a period label');
    await page.goto(`${target.url}/?band=${band.id}`);
    await page.waitForFunction(() => document.querySelector('#card-title') && document.querySelector('#card-title').textContent !== 'Chargement…', null, { timeout: 15000 });
    assert.equal(await page.locator('#legend').getAttribute('open'), null, 'the legend folds while a card is open');
    const card = await page.locator('#card').innerText();
    assert.doesNotMatch(card, /\((early|mid|later)[)/]/, `step labels in French: ${card}`);
    assert.doesNotMatch(card, /\b(Active|Split-up|On hold|Changed name)\b/, 'the status in French');
    assert.doesNotMatch(card, /\d{4}-\?/, 'no raw "1983-?"');
    const options = await page.locator('#f-status option').allInnerTexts();
    assert.ok(options.includes('En activité') && options.includes('Séparé'), `statuses in French: ${options}`);
    await page.click('#card .close');
    assert.equal(await page.locator('#legend').getAttribute('open'), '', 'and opens again when the card closes');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('13: countries in French — « Norvège » filters Norway; the outline, the field and the card say Norvège', async (t) => {
    if (target.mock) return t.skip('needs the demo');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lat=62&lon=12&z=4`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    await page.waitForFunction(() => document.querySelectorAll('.leaflet-countryLabels-pane .bm-country').length >= 5, null, { timeout: 15000 });
    const labels = await page.locator('.leaflet-countryLabels-pane .bm-country').allTextContents();
    assert.ok(labels.includes('Norvège') && labels.includes('Suède'), `outline names in French: ${labels}`);
    assert.ok(!labels.some((l) => ['Norway', 'Sweden', 'Germany', 'Finland'].includes(l)), `no English outline name: ${labels}`);
    if (!(await page.locator('#f-country').isVisible())) await page.click('#filters-toggle');
    await page.fill('#f-country', 'Norvège');
    const asked = page.waitForRequest((r) => r.url().includes('/api/clusters') && new URL(r.url()).searchParams.get('country') === 'NO');
    await page.click('#filters-apply');
    await asked;
    assert.equal(new URL(page.url()).searchParams.get('country'), 'NO', 'the URL keeps the code');
    // A shared link with the code shows the country in words in the field.
    await page.goto(`${target.url}/?country=NO`);
    await page.locator('.bm-marker').first().waitFor({ timeout: 15000 });
    if (!(await page.locator('#f-country').isVisible())) await page.click('#filters-toggle');
    assert.equal(await page.inputValue('#f-country'), 'Norvège');
    const id = await page.evaluate(async () => {
      const fc = await (await fetch('/api/clusters?bbox=-180,-85,180,85&zoom=17&country=NO')).json();
      return fc.features.find((f) => !f.properties.cluster)?.properties.ma_id;
    });
    assert.ok(id, 'a Norwegian band');
    await page.goto(`${target.url}/?band=${id}`);
    await page.waitForFunction(() => document.querySelector('#card-title') && document.querySelector('#card-title').textContent !== 'Chargement…', null, { timeout: 15000 });
    const card = await page.locator('#card').innerText();
    assert.match(card, /Norvège/, `the card names the country in French: ${card}`);
    assert.doesNotMatch(card, /\bNorway\b/);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('12: on a phone, « Appliquer » closes the filter drawer', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    await page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });
    await page.click('#filters-toggle');
    await page.locator('#f-genre').waitFor({ state: 'visible' });
    await page.fill('#f-genre', 'Black');
    await page.click('#filters-apply');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('genre') === 'Black');
    assert.equal(await page.locator('#f-genre').isVisible(), false, 'the drawer closed over the filtered map');
    assert.equal(await page.getAttribute('#filters-toggle', 'aria-expanded'), 'false');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('also: unreachable tiles are given up and not credited; a malformed band link is said in words', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    const tiles = [];
    page.on('request', (r) => { if (!r.url().startsWith(target.url)) tiles.push(r.url()); });
    await page.goto(`${target.url}/?band=12abc`);
    await page.locator('#card-bad-link').waitFor({ timeout: 15000 });
    assert.match(await page.locator('#card').innerText(), /pas un numéro de groupe/);
    await page.waitForFunction(() => document.querySelector('#map').dataset.tiles === 'unreachable', null, { timeout: 15000 });
    const before = tiles.length;
    await page.mouse.move(700, 450);
    await page.mouse.down();
    await page.mouse.move(400, 300, { steps: 5 });
    await page.mouse.up();
    await page.waitForTimeout(500);
    assert.equal(tiles.length, before, 'no tile asked for after giving up');
    assert.doesNotMatch(await page.locator('.leaflet-control-attribution').innerText(), /OpenStreetMap/);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});
