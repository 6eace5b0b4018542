// Admin console: login, the five views by hash route (one with a query
// string), data rows, band detail, and HTML in data shown as text.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTarget, launch, watchPage, adminView } from './helpers.mjs';

const XSS_NAME = '<img src=x onerror=alert(1)>';

describe('admin console', () => {
  let target;
  let browser;
  let page;
  let problems;

  before(async () => {
    target = await startTarget();
    browser = await launch();
    page = await browser.context.newPage();
    problems = watchPage(page);
  });
  after(async () => {
    await browser?.close();
    await target?.close();
  });

  /** Navigate by hash and wait until the view is mounted and its data loaded. */
  const go = (hash) => adminView(page, hash);

  async function noErrorBox(view) {
    const errs = await page.locator('#main .error-box').allInnerTexts();
    assert.deepEqual(errs, [], `${view}: no API error shown`);
  }

  test('admin: wrong password shows a message, right one logs in', async () => {
    assert.ok(target.password, 'BANDMAP_ADMIN_PASSWORD must be set when BANDMAP_URL is');
    await page.goto(`${target.url}/admin/`);
    await page.locator('#login-form').waitFor({ state: 'visible', timeout: 15000 });
    // One wrong attempt (well below the lockout threshold of 5).
    await page.fill('#login-username', target.user);
    await page.fill('#login-password', `${target.password}-wrong`);
    await page.click('#login-form button[type=submit]');
    await page.locator('#login-error').waitFor({ state: 'visible' });
    assert.match(await page.locator('#login-error').innerText(), /refus|verrouill/i);

    await page.fill('#login-password', target.password);
    await page.click('#login-form button[type=submit]');
    await page.locator('#app').waitFor({ state: 'visible', timeout: 15000 });
    assert.equal(await page.locator('#whoami').innerText(), target.user);
  });

  test('admin: pilotage shows health, job buttons and the live monitor', async () => {
    await go('#/pilotage');
    await page.locator('h1', { hasText: 'Pilotage' }).waitFor();
    await page.waitForFunction(() => document.querySelector('.view-pilotage [data-job-type="geocoder_enqueue"]'));
    // Geocoder enqueue stays enabled whatever the crawler heartbeat says.
    assert.equal(await page.locator('[data-job-type="geocoder_enqueue"]').isDisabled(), false);
    // Crawler buttons: disabled exactly when a reason is shown.
    const reasonVisible = await page.locator('#crawler-reason').isVisible();
    assert.equal(await page.locator('[data-job-type="incremental"]').isDisabled(), reasonVisible);
    await page.locator('#monitor-interval').waitFor();
    assert.deepEqual(await page.locator('#monitor-interval option').evaluateAll((o) => o.map((x) => x.value)), ['3', '5', '10', '30']);
    // Heartbeat cards render every check detail as text, objects included.
    await page.locator('.view-pilotage article.card.health').first().waitFor({ timeout: 15000 });
    const viewText = await page.locator('.view-pilotage').innerText();
    assert.ok(!viewText.includes('[object Object]'), 'no check detail shown as [object Object]');
    await noErrorBox('pilotage');
  });

  test('admin: groupes lists bands and opens a detail', async () => {
    await go('#/bands');
    await page.locator('h1', { hasText: 'Groupes' }).waitFor();
    const rows = page.locator('.view-bands .list tbody tr');
    await rows.first().waitFor({ timeout: 15000 });
    assert.ok(await rows.count() > 0, 'band rows are shown');
    await page.locator('.view-bands .band-open').first().click();
    await page.locator('#band-detail-title').waitFor({ timeout: 15000 });
    assert.match(page.url(), /#\/bands\?.*open=\d+/, 'open detail is reflected in the hash');
    assert.ok(await page.locator('#band-detail form.edit-form').count() === 1, 'edit form present');
    await noErrorBox('bands');
  });

  test('admin: HTML in band names is shown as text, never parsed', async () => {
    await go(`#/bands?q=${encodeURIComponent('onerror')}`);
    assert.equal(await page.inputValue('#bands-q'), 'onerror', 'filter control shows the hash query');
    const cell = page.locator('.view-bands .band-open', { hasText: XSS_NAME });
    await cell.first().waitFor({ timeout: 15000 });
    await cell.first().click();
    await page.locator('#band-detail-title').waitFor();
    assert.equal(await page.locator('#band-detail-title').innerText(), XSS_NAME);
    assert.equal(await page.locator('img[src="x"]').count(), 0, 'no <img> created from data');
    assert.equal(await page.locator('#main img').count(), 0, 'no image at all in the admin views');
    assert.deepEqual(problems.dialogs, [], 'no alert() ran');
  });

  test('admin: localisations with a query string in the hash', async () => {
    await go('#/locations?status=error');
    await page.locator('h1', { hasText: 'Localisations' }).waitFor();
    assert.equal(await page.inputValue('#locations-status'), 'error', 'status filter shows error');
    const list = page.locator('#h-loc-list ~ div').last();
    await list.locator('table, .empty').first().waitFor({ timeout: 15000 });
    // Each row's status tag carries the raw key (its text is the French word).
    const tags = page.locator('.view-locations tbody tr[data-location-id] .status-tag');
    const statuses = await tags.evaluateAll((els) => els.map((e) => e.dataset.status));
    const rows = await page.locator('.view-locations tbody tr[data-location-id]').count();
    assert.equal(statuses.length, rows, 'every row shows its status');
    for (const s of statuses) assert.equal(s, 'error');
    await page.locator('.stat-chips, .view-locations .empty').first().waitFor();
    await noErrorBox('locations');
    // Back to all statuses: rows appear.
    await go('#/locations');
    assert.equal(await page.inputValue('#locations-status'), '');
    await page.locator('.view-locations tbody tr[data-location-id]').first().waitFor({ timeout: 15000 });
  });

  test('admin: journal lists activity and opens an entry', async () => {
    await go('#/journal');
    await page.locator('h1', { hasText: 'Journal' }).waitFor();
    await noErrorBox('journal');
    const toggle = page.locator('.view-journal .entry-toggle').first();
    if (await toggle.count()) {
      await toggle.click();
      await page.locator('.view-journal .detail-row').first().waitFor();
    }
    await go('#/journal?kind=admin');
    assert.equal(await page.inputValue('#journal-kind'), 'admin');
    for (const k of await page.locator('.view-journal tbody tr[data-kind]').evaluateAll((r) => r.map((x) => x.dataset.kind))) {
      assert.equal(k, 'admin');
    }
    await noErrorBox('journal');
  });

  test('admin: LLM & coûts view loads', async () => {
    await go('#/llm');
    await page.locator('h1', { hasText: 'LLM & coûts' }).waitFor();
    await noErrorBox('llm');
    assert.equal(await page.locator('.mainnav a[aria-current="page"]').innerText(), 'LLM & coûts');
  });

  test('admin: logout returns to the login screen', async () => {
    await page.click('#logout-btn');
    await page.locator('#login-form').waitFor({ state: 'visible' });
    assert.deepEqual(problems.errors, [], 'no uncaught page error');
    assert.deepEqual(problems.dialogs, [], 'no dialog');
    assert.deepEqual(problems.csp, [], 'every view works under the Content-Security-Policy');
  });
});
