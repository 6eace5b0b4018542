#!/usr/bin/env node
// Dev tool: screenshot a page with the system Chromium.
//   node web/dev/screenshot.mjs URL out.png [width] [height]
// Env: LOGIN=user:password logs into /admin/ first; CHROMIUM overrides /usr/bin/chromium.
import { launch } from '../tests/helpers.mjs';

const [url, out = '/tmp/shot.png', w = '1400', hgt = '900'] = process.argv.slice(2);
if (!url) {
  console.error('usage: node web/dev/screenshot.mjs URL out.png [width] [height]');
  process.exit(2);
}
const browser = await launch();
const page = await browser.context.newPage();
await page.setViewportSize({ width: Number(w), height: Number(hgt) });
page.on('console', (m) => console.log(`[console.${m.type()}] ${m.text()}`));
page.on('pageerror', (e) => console.log(`[pageerror] ${e}`));
if (process.env.LOGIN) {
  const [user, pass] = process.env.LOGIN.split(':');
  const origin = new URL(url).origin;
  await page.goto(`${origin}/admin/`);
  await page.fill('#login-username', user);
  await page.fill('#login-password', pass);
  await page.click('#login-form button[type=submit]');
  await page.locator('#app').waitFor({ state: 'visible' });
}
await page.goto(url);
await page.waitForTimeout(Number(process.env.WAIT_MS || 1500));
await page.screenshot({ path: out, fullPage: process.env.FULL === '1' });
console.log(`saved ${out}`);
await browser.close();
