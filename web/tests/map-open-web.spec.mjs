// Issue 28 on the map page itself: two languages (one catalogue per language, the URL or the
// browser choosing, a switch, links and the embed keeping it), every visitor (keyboard path,
// a polite live line, the list view, 24 px targets, tiles given up quietly) and axe-core with
// no serious or critical violation on the map, an open card, the list view, the embed, a
// town page and a band page, in both languages.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTargetAndBrowser, watchPage, launch } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const WEB = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const catalogue = (lang) => JSON.parse(readFileSync(path.join(WEB, 'map/i18n', `${lang}.json`), 'utf8'));

async function axeSerious(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
}

const waitMarkers = (page) => page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });
const waitCount = (page) => page.waitForFunction(() => document.querySelector('#map-status')?.dataset.count !== undefined, null, { timeout: 15000 });

/** A band with a placed step, from the data: {id, lat, lon}. */
async function someBand(page) {
  return page.evaluate(async () => {
    const fc = await (await fetch('/api/clusters?bbox=-180,-85,180,85&zoom=17')).json();
    const f = fc.features.find((x) => !x.properties.cluster);
    return { id: f.properties.ma_id, lon: f.geometry.coordinates[0], lat: f.geometry.coordinates[1] };
  });
}

describe('map page: catalogues', () => {
  test('every text the map asks for is in both catalogues, and they hold the same keys', () => {
    const fr = catalogue('fr');
    const en = catalogue('en');
    assert.deepEqual(Object.keys(fr).filter((k) => !(k in en)), [], 'in fr.json, missing from en.json');
    assert.deepEqual(Object.keys(en).filter((k) => !(k in fr)), [], 'in en.json, missing from fr.json');
    const used = new Set();
    for (const file of readdirSync(path.join(WEB, 'map')).filter((f) => f.endsWith('.js'))) {
      const src = readFileSync(path.join(WEB, 'map', file), 'utf8');
      for (const m of src.matchAll(/\bt\('([\w.-]+)'/g)) used.add(m[1]);
      for (const m of src.matchAll(/\btn\('([\w.-]+)'/g)) { used.add(`${m[1]}.one`); used.add(`${m[1]}.other`); }
    }
    const html = readFileSync(path.join(WEB, 'map/index.html'), 'utf8');
    for (const m of html.matchAll(/data-i18n="([\w.-]+)"/g)) used.add(m[1]);
    for (const m of html.matchAll(/data-i18n-attr="([^"]+)"/g)) for (const pair of m[1].split(';')) used.add(pair.split('=')[1].trim());
    // Keys built from a name: the families, the statuses, the periods.
    for (const f of ['black', 'death', 'doom', 'thrash', 'heavy', 'progressive', 'folk', 'gothic', 'grind', 'other']) used.add(`map.family.${f}`);
    for (const s of ['active', 'split-up', 'on_hold', 'changed_name', 'unknown', 'disputed']) used.add(`map.band_status.${s}`);
    for (const p of ['early', 'mid', 'later', 'origin']) used.add(`map.period.${p}`);
    assert.ok(used.size > 100, `the map's keys were found (${used.size})`);
    const missing = [...used].filter((k) => !String(fr[k] ?? '').trim() || !String(en[k] ?? '').trim());
    assert.deepEqual(missing, [], 'keys the map uses that a catalogue lacks');
  });
});

describe('map page: two languages', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('?lang=en: the map, legend, timeline, card, density, flows and share dialog speak English; the URL keeps it; the switch goes back to French', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lang=en&lat=52&lon=12&z=4`);
    await waitMarkers(page);
    await waitCount(page);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.match(await page.title(), /Europe’s metal bands/);
    assert.match(await page.locator('#map-status').innerText(), /\d+ points? shown/);
    assert.equal((await page.locator('#legend summary').innerText()).trim(), 'Legend');
    assert.equal(await page.locator('#timeline-text').innerText(), 'All years');
    assert.equal(await page.getAttribute('#search-input', 'placeholder'), 'Search for a band…');
    assert.match(await page.locator('.leaflet-control-attribution').innerText(), /Places:/);
    // Country names in English (the outline's labels).
    const names = await page.locator('.bm-country span').allTextContents();
    assert.ok(names.includes('Germany') || names.includes('Poland'), `English country names: ${names.slice(0, 8)}`);
    assert.ok(!names.includes('Allemagne'));
    // The density and flows toggles.
    assert.equal(await page.locator('#density-toggle').textContent(), 'Density');
    assert.match(await page.locator('#flows-toggle').textContent(), /^Flows$/);
    if (!target.mock) { // the mock server has no flows
      await page.locator('#flows-toggle').click();
      await page.locator('#flows-summary').waitFor({ timeout: 15000 });
      assert.match(await page.locator('#flows-legend').textContent(), /Where the bands went/);
      await page.locator('#flows-toggle').click();
    }
    // The share dialog and its snippet keep the language.
    assert.equal(await page.locator('#share-open').textContent(), 'Embed');
    await page.locator('#share-open').click();
    assert.equal(await page.locator('#share-title').textContent(), 'Embed this map');
    assert.match(await page.locator('#share-code').inputValue(), /lang=en/);
    await page.keyboard.press('Escape');
    // A card in English.
    const band = await someBand(page);
    await page.goto(`${target.url}/?lang=en&band=${band.id}`);
    await page.locator('#card dl').waitFor({ timeout: 15000 });
    const terms = await page.locator('#card dt').allTextContents();
    assert.deepEqual(terms.slice(0, 4), ['Genre', 'Country', 'Status', 'Formed in']);
    assert.match(await page.locator('#card h3').first().textContent(), /^Path/);
    assert.match(await page.getAttribute('#card-band-page', 'href'), new RegExp(`^/band/${band.id}\\?lang=en$`));
    assert.match(page.url(), /[?&]lang=en(&|$)/, 'the URL keeps the language');
    // The switch: the same view in French.
    assert.equal(await page.locator('#lang-switch').textContent(), 'FrançaisFR');
    await page.locator('#lang-switch').click();
    await page.waitForURL(/lang=fr/);
    await page.locator('#card dl').waitFor({ timeout: 15000 });
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    assert.deepEqual((await page.locator('#card dt').allTextContents()).slice(0, 4), ['Genre', 'Pays', 'Statut', 'Formé en']);
    assert.match(page.url(), new RegExp(`band=${band.id}`), 'the view and the open band are kept');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.csp, []);
    await page.close();
  });

  test('the browser\'s language chooses when the URL does not; French otherwise', async () => {
    const english = await launch({ locale: 'en-GB' });
    try {
      const page = await english.context.newPage();
      await page.goto(`${target.url}/`);
      await waitCount(page);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.match(await page.locator('#map-status').innerText(), /shown|No band/);
      assert.match(page.url(), /[?&]lang=en/, 'an English page says so in its URL: a shared link keeps it');
      // The URL wins over the browser.
      await page.goto(`${target.url}/?lang=fr`);
      await waitCount(page);
      assert.equal(await page.getAttribute('html', 'lang'), 'fr');
      assert.match(page.url(), /[?&]lang=fr/);
    } finally {
      await english.close();
    }
    const page = await browser.context.newPage();
    await page.goto(`${target.url}/`);
    await waitCount(page);
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    assert.match(await page.locator('#map-status').innerText(), /affichés|Aucun groupe/);
    assert.doesNotMatch(page.url(), /lang=/, 'French by default, no parameter');
    await page.close();
  });

  test('the embed speaks the language of its URL', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/embed?lang=en&lat=55&lon=12&z=4`);
    await waitMarkers(page);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal((await page.locator('#legend summary').innerText()).trim(), 'Legend');
    if (!target.mock) assert.match(await page.locator('.embed-credit').innerText(), /see the full map/);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});

describe('map page: every visitor', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('keyboard: search → result → card → Escape; clusters and flows reachable; focus visible; a polite live line', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lat=52&lon=12&z=4`);
    await waitMarkers(page);
    await waitCount(page);
    // The live line says what the map shows.
    assert.equal(await page.getAttribute('#map-status', 'aria-live'), 'polite');
    const count = Number(await page.getAttribute('#map-status', 'data-count'));
    assert.match(await page.locator('#map-status').innerText(), new RegExp(`^${count.toLocaleString('fr-FR').replace(/\s/g, '\\s')} points? affichés?`));
    // Search by keyboard: the first letters of a band's name, ↓, Enter → its card.
    const band = await someBand(page);
    const name = await page.evaluate(async (id) => (await (await fetch(`/api/bands/${id}`)).json()).name, band.id);
    await page.locator('#search-input').focus();
    await page.keyboard.type(name.slice(0, Math.min(name.length, 12)), { delay: 20 });
    await page.locator('#search-results [role="option"]').first().waitFor({ timeout: 10000 });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.locator('#card dl').waitFor({ timeout: 15000 });
    assert.match(page.url(), /band=\d+/);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('#card').hidden);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'search-input', 'the focus is back in the search box');
    // A cluster reached with Tab: its focus ring shows, Enter zooms in.
    await page.goto(`${target.url}/?lat=52&lon=12&z=4`);
    await waitMarkers(page);
    let kind = null;
    for (let i = 0; i < 80 && kind !== 'cluster'; i++) {
      await page.keyboard.press('Tab');
      kind = await page.evaluate(() => document.activeElement?.dataset?.kind ?? null);
    }
    assert.equal(kind, 'cluster', 'a cluster is a Tab stop');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused cluster shows a focus ring');
    // Enter: a cluster zooms in, or — one town's cluster (expansion zoom 17) — opens its list.
    const zoom = await page.evaluate(() => new URLSearchParams(location.search).get('z'));
    await page.keyboard.press('Enter');
    await page.waitForFunction((z) => new URLSearchParams(location.search).get('z') !== z
      || document.querySelector('#card:not([hidden]) .band-list button'), zoom, { timeout: 10000 });
    // Flows (the mock server has none): the largest flows are buttons; one opens the
    // flow's bands, a band's line its card.
    if (!target.mock) {
      await page.goto(`${target.url}/?lat=52&lon=12&z=4&flows=1`);
      await page.locator('#flows-summary').waitFor({ timeout: 15000 });
      const flowButtons = page.locator('#flows-legend .flow-item');
      assert.ok(await flowButtons.count() > 0, 'the demo has flows in this view');
      await flowButtons.first().focus();
      await page.keyboard.press('Enter');
      await page.locator('#flow-bands button').first().waitFor({ timeout: 15000 });
      await page.locator('#flow-bands button').first().focus();
      await page.keyboard.press('Enter');
      await page.locator('#card dl').waitFor({ timeout: 15000 });
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.querySelector('#card').hidden);
    }
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('the list view: a table of the bands in view, each row opening its card', async () => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/?lat=52&lon=12&z=4`);
    await waitMarkers(page);
    const list = page.locator('#list-open');
    await list.focus();
    await page.keyboard.press('Enter');
    await page.locator('#band-table tbody tr').first().waitFor({ timeout: 15000 });
    const rows = await page.locator('#band-table tbody tr').count();
    const said = Number(await page.getAttribute('#band-table-box', 'data-bands'));
    assert.equal(rows, Math.min(said, 300));
    assert.match(await page.locator('#card-title').innerText(), new RegExp(`^${said} groupes? dans cette vue`));
    // The rows are the bands of the view's points, each once.
    const ids = await page.locator('#band-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.maId));
    assert.equal(new Set(ids).size, ids.length, 'one row per band');
    assert.equal(await page.locator('#band-table th[scope="col"]').count(), 4);
    const names = await page.locator('#band-table tbody .band-row').allTextContents();
    assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b, 'fr')), 'sorted by name');
    // A row opens the band's card; Escape closes it and gives the focus back to the list button.
    await page.locator('#band-table tbody .band-row').first().focus();
    await page.keyboard.press('Enter');
    await page.locator('#card dl').waitFor({ timeout: 15000 });
    assert.match(page.url(), new RegExp(`band=${ids[0]}`));
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('#card').hidden);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'list-open');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('touch targets: markers are 24 px at least; the timeline\'s two sliders do not overlap', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const band = await (async () => {
      await page.goto(`${target.url}/?lat=52&lon=12&z=4`);
      await waitMarkers(page);
      return someBand(page);
    })();
    // Single points: at zoom 17 around a band's place.
    await page.goto(`${target.url}/?lat=${band.lat}&lon=${band.lon}&z=17`);
    await page.locator('.bm-marker[data-kind="point"], .bm-marker[data-kind="stack"]').first().waitFor({ timeout: 15000 });
    const sizes = await page.locator('.bm-marker[data-kind]').evaluateAll((els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return [e.dataset.kind, Math.round(r.width), Math.round(r.height)];
    }));
    assert.ok(sizes.length > 0);
    for (const [kind, w, h] of sizes) assert.ok(w >= 24 && h >= 24, `${kind} marker is ${w}×${h}`);
    const [a, b] = await page.evaluate(() => ['timeline-min', 'timeline-max'].map((id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: r.height };
    }));
    assert.ok(a.height >= 24 && b.height >= 24, `slider heights ${a.height}, ${b.height}`);
    assert.ok(a.bottom <= b.top || b.bottom <= a.top, `the sliders do not overlap: ${JSON.stringify([a, b])}`);
    await page.close();
  });

  test('tiles out of reach: the page stops asking and says "fond de carte hors ligne" once', async () => {
    const page = await browser.context.newPage();
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    const tiles = [];
    page.on('request', (r) => { if (!r.url().startsWith(target.url)) tiles.push(r.url()); });
    await page.goto(`${target.url}/?lat=52&lon=12&z=4`);
    await page.waitForFunction(() => document.querySelector('#map').dataset.tiles === 'unreachable', null, { timeout: 15000 });
    const note = page.locator('#tiles-note');
    assert.equal(await note.innerText(), 'fond de carte hors ligne');
    assert.equal(await note.getAttribute('role'), 'status');
    const status = await page.evaluate(async () => (await (await fetch('/map/tiles-status.json')).json()).tiles);
    if (status === 'unreachable') {
      // The server knew: not one tile asked for, not one error in the console.
      assert.deepEqual(tiles, []);
      await waitCount(page);
      assert.deepEqual(consoleErrors, []);
    }
    // Moving the map asks for none, and says nothing more.
    const before = tiles.length;
    await page.evaluate(() => { document.querySelector('#map').focus(); });
    await page.keyboard.press('ArrowRight');
    await waitCount(page);
    assert.equal(tiles.length, before);
    assert.equal(await page.locator('#tiles-note').count(), 1);
    assert.equal(await note.innerText(), 'fond de carte hors ligne');
    await page.close();
  });
});

describe('map page: axe-core, both languages', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  for (const lang of ['fr', 'en']) {
    test(`${lang}: the map, an open card, the list view, the embed, a town page and a band page`, async () => {
      const page = await browser.context.newPage();
      const problems = watchPage(page);
      await page.goto(`${target.url}/?lang=${lang}&lat=52&lon=12&z=4`);
      await waitMarkers(page);
      await waitCount(page);
      assert.deepEqual(await axeSerious(page), [], 'map');
      const band = await someBand(page);
      await page.goto(`${target.url}/?lang=${lang}&band=${band.id}`);
      await page.locator('#card dl').waitFor({ timeout: 15000 });
      assert.deepEqual(await axeSerious(page), [], 'open card');
      await page.locator('#list-open').click();
      await page.locator('#band-table-box[data-bands]').waitFor({ timeout: 15000 });
      assert.deepEqual(await axeSerious(page), [], 'list view');
      await page.goto(`${target.url}/embed?lang=${lang}&lat=55&lon=12&z=4`);
      await waitMarkers(page);
      assert.deepEqual(await axeSerious(page), [], 'embed');
      if (!target.mock) {
        await page.goto(`${target.url}/band/${band.id}?lang=${lang}`);
        assert.equal(await page.getAttribute('html', 'lang'), lang);
        assert.deepEqual(await axeSerious(page), [], 'band page');
        const xml = await (await fetch(`${target.url}/sitemap/towns-0.xml`)).text();
        const town = xml.match(/<loc>[^<]*(\/town\/[^<]+)<\/loc>/)?.[1];
        assert.ok(town, 'the sitemap lists a town');
        await page.goto(`${target.url}${town}?lang=${lang}`);
        assert.equal(await page.getAttribute('html', 'lang'), lang);
        assert.deepEqual(await axeSerious(page), [], 'town page');
      }
      assert.deepEqual(problems.errors, []);
      assert.deepEqual(problems.csp, []);
      await page.close();
    });
  }
});
