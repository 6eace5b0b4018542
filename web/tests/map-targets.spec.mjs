// Issue 28, the map's touch targets (WCAG 2.5.8; Lighthouse's target-size audit, axe-core's
// `target-size` rule): at the landing view, on a desktop and on a phone, every marker is a
// whole 24 px target — inside the map, under no button or link, overlapping no other
// marker — and axe-core's target-size rule finds nothing; no serious or critical axe
// finding either. The placement rule itself (web/map/placement.js) on made-up markers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { useTargetAndBrowser, watchPage } from './helpers.mjs';
import { placeTargets, GAP } from '../map/placement.js';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** What the page draws and where: the markers' boxes, the map's box, the controls (every
 *  focusable thing outside the markers) and, for each marker, what a tap at five points
 *  inside its round target would reach. */
const layout = (page) => page.evaluate(() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height };
  };
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
  const markers = [...document.querySelectorAll('.leaflet-marker-icon.bm-marker[data-kind]')].map((el) => {
    const b = box(el);
    const cx = (b.l + b.r) / 2;
    const cy = (b.t + b.b) / 2;
    const k = (Math.min(b.w, b.h) / 2 - 3) * Math.SQRT1_2;
    const taps = [[cx, cy], [cx - k, cy - k], [cx + k, cy - k], [cx - k, cy + k], [cx + k, cy + k]].map(([x, y]) => {
      const hit = document.elementFromPoint(x, y);
      return hit && (hit === el || el.contains(hit)) ? null : (hit ? name(hit) : 'nothing');
    }).filter(Boolean);
    return { ...b, label: el.getAttribute('aria-label'), kind: el.dataset.kind, shift: el.dataset.shift ?? null, taps };
  });
  const focusable = 'a[href], button, input, select, textarea, summary, [role="button"], [tabindex]:not([tabindex="-1"])';
  const controls = [...document.querySelectorAll(focusable)]
    .filter((el) => !el.closest('.leaflet-marker-icon') && !el.classList.contains('leaflet-container'))
    .filter((el) => {
      const r = el.getBoundingClientRect();
      // (the content of a folded <details> keeps a box but is not shown)
      return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    })
    .map((el) => ({ ...box(el), what: name(el) }));
  return { map: box(document.getElementById('map')), markers, controls, unplaced: document.getElementById('map-status').dataset.unplaced };
});

const overlap = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 0.5 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 0.5;

async function axeRun(page, options) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  return page.evaluate(async (o) => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, o);
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  }, options);
}

/** The landing view, once its markers are drawn and the map is still. */
async function landing(page, url) {
  await page.goto(`${url}/`);
  await page.locator('.bm-marker[data-kind]').first().waitFor({ timeout: 15000 });
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.querySelector('#map-status').hasAttribute('aria-busy'), null, { timeout: 15000 });
  await page.waitForTimeout(300);
}

function checkTargets(where, { map, markers, controls }) {
  assert.ok(markers.length >= 2, `${where}: markers at the landing view (${markers.length})`);
  for (const m of markers) {
    const what = `${where}: marker « ${m.label} »`;
    assert.ok(m.w >= 24 - 0.05 && m.h >= 24 - 0.05, `${what} is ${m.w}×${m.h}`);
    assert.ok(m.l >= map.l - 0.5 && m.r <= map.r + 0.5 && m.t >= map.t - 0.5 && m.b <= map.b + 0.5,
      `${what} lies whole inside the map: ${JSON.stringify([m, map])}`);
    const control = controls.find((c) => overlap(c, m));
    assert.equal(control, undefined, `${what} is under no control (${control?.what})`);
    assert.deepEqual(m.taps, [], `${what}: a tap on it reaches it`);
  }
  for (let i = 0; i < markers.length; i++) {
    for (let j = i + 1; j < markers.length; j++) {
      assert.ok(!overlap(markers[i], markers[j]),
        `${where}: « ${markers[i].label} » and « ${markers[j].label} » overlap: ${JSON.stringify([markers[i], markers[j]])}`);
    }
  }
}

describe('issue 28: the map\'s touch targets', () => {
  let target;
  let browser;
  useTargetAndBrowser((t, b) => { target = t; browser = b; });

  // The tests' desktop and phone, and Lighthouse's (desktop 1350×940, phone 412×823).
  for (const [w, h] of [[1400, 900], [1350, 940], [390, 844], [412, 823]]) {
    test(`${w}×${h}: every marker is a whole target; axe's target-size finds nothing`, async () => {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: w, height: h });
      const problems = watchPage(page);
      await landing(page, target.url);
      const seen = await layout(page);
      checkTargets(`${w}×${h}`, seen);
      assert.equal(seen.unplaced, '0', 'every marker found a free spot');
      const sizes = await axeRun(page, { runOnly: { type: 'rule', values: ['target-size'] }, resultTypes: ['violations'] });
      assert.deepEqual(sizes, [], 'axe-core\'s target-size rule');
      const serious = (await axeRun(page, { resultTypes: ['violations'] })).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious, [], 'no serious or critical axe finding');
      assert.deepEqual(problems.errors, []);
      assert.deepEqual(problems.csp, []);
      await page.close();
    });
  }

  test('a marker drawn off its place is tied to it, and still opens what it opened', async (t) => {
    const page = await browser.context.newPage();
    const problems = watchPage(page);
    await landing(page, target.url);
    const moved = page.locator('.bm-marker[data-kind][data-shift]');
    if (!(await moved.count())) {
      await page.close();
      return t.skip('no marker had to move at this view');
    }
    const tie = await moved.first().evaluate((el) => {
      const [dx, dy] = el.dataset.shift.split(',').map(Number);
      const line = el.querySelector('.bm-tether');
      return { dx, dy, line: Boolean(line), len: line ? parseFloat(line.style.getPropertyValue('--len')) : null };
    });
    const far = Math.hypot(tie.dx, tie.dy);
    if (far > 14) {
      assert.ok(tie.line, 'a line ties it to its place');
      assert.ok(Math.abs(tie.len - far) < 0.2, `the line reaches the place (${tie.len} vs ${far})`);
    }
    // Still a button: Enter does what a click does (a cluster zooms in or lists its town,
    // a point opens its card, a stack its list).
    const kind = await moved.first().getAttribute('data-kind');
    const zoom = () => Number(new URL(page.url()).searchParams.get('z'));
    const before = zoom();
    await moved.first().press('Enter');
    await page.waitForFunction((z) => !document.querySelector('#card').hidden || Number(new URL(location.href).searchParams.get('z')) > z, before, { timeout: 15000 });
    assert.ok(kind === 'cluster' || !(await page.locator('#card').isHidden()), `the ${kind} acted`);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});

describe('issue 28: placement.js (pure)', () => {
  const boxes = (items, shifts) => items.map((it, i) => {
    const x = it.x + shifts[i].dx;
    const y = it.y + shifts[i].dy;
    return { l: x - it.size / 2, r: x + it.size / 2, t: y - it.size / 2, b: y + it.size / 2 };
  });

  test('a point on a cluster moves off it; a free marker stays; the biggest keeps its place', () => {
    const items = [{ x: 100, y: 100, size: 24 }, { x: 105, y: 102, size: 40 }, { x: 300, y: 200, size: 24 }];
    const { shifts, unplaced } = placeTargets(items, 600, 400);
    assert.equal(unplaced, 0);
    assert.deepEqual(shifts[1], { dx: 0, dy: 0 }, 'the cluster stays');
    assert.deepEqual(shifts[2], { dx: 0, dy: 0 }, 'the lone point stays');
    const [p, c] = boxes(items, shifts);
    assert.ok(p.r + GAP <= c.l || p.l >= c.r + GAP || p.b + GAP <= c.t || p.t >= c.b + GAP, `apart: ${JSON.stringify([p, c])}`);
    const far = Math.hypot(shifts[0].dx, shifts[0].dy);
    assert.ok(far <= 40, `moved only as far as needed (${far} px)`);
    assert.ok(shifts[0].dx < 0, 'away from the cluster');
  });

  test('at the map\'s edge a marker comes inside', () => {
    const items = [{ x: 3, y: 200, size: 24 }, { x: 599, y: 399, size: 50 }];
    const { shifts } = placeTargets(items, 600, 400);
    const [a, b] = boxes(items, shifts);
    for (const r of [a, b]) assert.ok(r.l >= 1 && r.t >= 1 && r.r <= 599 && r.b <= 399, JSON.stringify(r));
  });

  test('a crowd: no two boxes overlap, none crosses the edge', () => {
    let seed = 7;
    const rand = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
    const items = Array.from({ length: 60 }, () => ({ x: 150 + rand() * 500, y: 100 + rand() * 300, size: rand() < 0.3 ? 26 + Math.round(rand() * 38) : 24 }));
    const { shifts, unplaced } = placeTargets(items, 800, 500);
    assert.equal(unplaced, 0);
    const b = boxes(items, shifts);
    for (let i = 0; i < b.length; i++) {
      assert.ok(b[i].l >= 1 && b[i].t >= 1 && b[i].r <= 799 && b[i].b <= 499);
      for (let j = i + 1; j < b.length; j++) {
        const ox = Math.min(b[i].r, b[j].r) - Math.max(b[i].l, b[j].l);
        const oy = Math.min(b[i].b, b[j].b) - Math.max(b[i].t, b[j].t);
        assert.ok(ox <= -GAP + 1e-9 || oy <= -GAP + 1e-9, `${i} and ${j} keep ${GAP} px apart`);
      }
    }
  });
});
