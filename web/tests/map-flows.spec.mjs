// The flows layer ("Parcours", GET /api/flows): the toggle draws curved arrows (at most the
// limit, the largest on top) with the state in the URL; hovering a flow names it;
// clicking it lists its bands and one of them opens its card; on a desktop and on a
// phone; axe-core finds no serious or critical violation with the layer on. Needs the real
// server (the demo's multi-step bands); the mock server has no flows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** A point on the middle of the drawn flow of rank `rank` (1 = largest) that the flow
 *  itself receives (no marker over it), in page pixels. */
const flowSpot = (page, rank) => page.evaluate((r) => {
  const el = document.querySelector(`path.bm-flow[data-rank="${r}"]`);
  if (!el) return null;
  const len = el.getTotalLength();
  const m = el.getScreenCTM();
  for (const f of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]) {
    const p = el.getPointAtLength(len * f);
    const x = m.a * p.x + m.c * p.y + m.e;
    const y = m.b * p.x + m.d * p.y + m.f;
    if (document.elementFromPoint(x, y) === el) return { x, y, text: `${el.dataset.from} → ${el.dataset.to}`, count: Number(el.dataset.count) };
  }
  return null;
}, rank);

/** The ranks of the drawn flows whose middle can be pointed at. */
async function someSpot(page) {
  const n = await page.locator('path.bm-flow').count();
  for (let rank = 1; rank <= n; rank++) {
    const spot = await flowSpot(page, rank);
    if (spot) return spot;
  }
  return null;
}

async function axeSerious(page) {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
  return result;
}

async function exercise(page, target, view) {
  const problems = watchPage(page);
  await page.goto(`${target.url}/?${view}`);
  await page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });

  const answered = page.waitForResponse((r) => r.url().includes('/api/flows?'), { timeout: 15000 });
  await page.click('#flows-toggle');
  const res = await answered;
  assert.equal(res.status(), 200);
  const answer = await res.json();
  assert.equal(await page.getAttribute('#flows-toggle', 'aria-pressed'), 'true');
  assert.match(page.url(), /[?&]flows=1(&|$)/);
  assert.ok(answer.flows.length >= 1, 'the demo has moves in this view');
  await page.waitForFunction((n) => document.querySelectorAll('path.bm-flow').length === n, answer.flows.length, { timeout: 15000 });
  assert.ok(answer.flows.length <= 50, 'at most the limit');
  // The largest is drawn last (on top).
  const order = await page.evaluate(() => [...document.querySelectorAll('path.bm-flow')].map((p) => Number(p.dataset.count)));
  assert.equal(order[order.length - 1], Math.max(...order));
  assert.match(await page.locator('#flows-summary').innerText(), /flux dessinés/);

  // Hover: "From → To : N groupe(s)".
  const spot = await someSpot(page);
  assert.ok(spot, 'a flow can be pointed at');
  await page.mouse.move(spot.x, spot.y);
  const tip = page.locator('.bm-flow-tip');
  await tip.waitFor({ state: 'visible', timeout: 5000 });
  const said = await tip.innerText();
  assert.ok(said.startsWith(`${spot.text} : ${spot.count} groupe`), `tooltip "${said}" names ${spot.text}`);

  // axe-core with the layer on.
  assert.deepEqual(await axeSerious(page), [], 'no serious or critical accessibility violation');

  // Click: the bands of the flow; one opens its card.
  await page.mouse.click(spot.x, spot.y);
  const list = page.locator('#flow-bands button');
  await list.first().waitFor({ timeout: 15000 });
  assert.equal(await page.locator('#card-title').innerText(), said.split('\n')[0]);
  assert.ok(await list.count() >= 1 && await list.count() <= spot.count);
  const name = (await list.first().locator('.name').innerText()).trim();
  await list.first().click();
  await page.waitForFunction((n) => document.querySelector('#card-title')?.textContent.trim() === n, name, { timeout: 15000 });
  assert.ok(await page.locator('.steps li').count() >= 2, 'a band of a flow has two steps or more');
  assert.match(page.url(), /[?&]flows=1(&|$)/);

  // Off again: nothing drawn, the URL forgets it.
  await page.click('#flows-toggle');
  assert.equal(await page.locator('path.bm-flow').count(), 0);
  assert.doesNotMatch(page.url(), /[?&]flows=1/);

  assert.deepEqual(problems.errors, []);
  assert.deepEqual(problems.dialogs, []);
  assert.deepEqual(problems.csp, []);
}

describe('public map: flows', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  test('desktop: toggle, hover a flow, open a band from it', async (t) => {
    if (target.mock) return t.skip('the mock server has no flows');
    const page = await browser.context.newPage();
    await exercise(page, target, 'lat=54&lon=12&z=4');
    await page.close();
  });

  test('phone 390×844: the same', async (t) => {
    if (target.mock) return t.skip('the mock server has no flows');
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await exercise(page, target, 'lat=54&lon=12&z=3');
    await page.close();
  });

  test('a shared link with flows=1 draws them; the legend filters them', async (t) => {
    if (target.mock) return t.skip('the mock server has no flows');
    const page = await browser.context.newPage();
    const first = page.waitForResponse((r) => r.url().includes('/api/flows?'), { timeout: 15000 });
    await page.goto(`${target.url}/?lat=54&lon=12&z=4&flows=1`);
    const all = await (await first).json();
    assert.equal(await page.getAttribute('#flows-toggle', 'aria-pressed'), 'true');
    const fam = Object.entries(all.flows.reduce((acc, f) => {
      for (const [k, v] of Object.entries(f.families)) acc[k] = (acc[k] || 0) + v;
      return acc;
    }, {})).sort((a, b) => b[1] - a[1])[0][0];
    const filtered = page.waitForResponse((r) => r.url().includes('/api/flows?') && r.url().includes(`family=${fam}`), { timeout: 15000 });
    await page.locator(`.fam-button[data-family="${fam}"]`).click();
    const answer = await (await filtered).json();
    assert.ok(answer.total <= all.total);
    assert.ok(answer.flows.every((f) => Object.keys(f.families).every((k) => k === fam)), 'only that family moves');
    await page.waitForFunction((n) => document.querySelectorAll('path.bm-flow').length === n, answer.flows.length, { timeout: 15000 });
    await page.close();
  });

  test('the town list of a place says where its bands came from and went', async (t) => {
    if (target.mock) return t.skip('the mock server has no flows');
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await page.goto(`${target.url}/`);
    // A town with several bands (a list at zoom 17) and arrivals, from the finest cells.
    const town = await page.evaluate(async () => {
      const a = await (await fetch('/api/flows?zoom=17&limit=200')).json();
      const i = a.places.findIndex((p) => p.points > 1 && p.incoming > 0 && p.label);
      if (i < 0) return null;
      const name = (j) => a.places[j].label ?? `${a.places[j].main} et alentours`;
      return {
        ...a.places[i],
        from: a.flows.filter((f) => f.to === i).map((f) => name(f.from)),
        to: a.flows.filter((f) => f.from === i).map((f) => name(f.to)),
      };
    });
    assert.ok(town, 'the demo has a town with several bands and arrivals');
    await page.goto(`${target.url}/?lat=${town.lat}&lon=${town.lon}&z=17`);
    const stack = page.locator('.bm-marker[data-kind="stack"]');
    await stack.first().waitFor({ timeout: 15000 });
    await stack.first().click();
    await page.locator('#town-arrivals').waitFor({ timeout: 15000 });
    const arrivals = await page.locator('#town-arrivals li').allInnerTexts();
    assert.deepEqual(arrivals.map((s) => s.replace(/ \(.*\)$/, '')).sort(), [...town.from].sort());
    const departures = await page.locator('#town-departures li').allInnerTexts();
    assert.deepEqual(departures.map((s) => s.replace(/ \(.*\)$/, '')).sort(), [...town.to].sort());
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});
