// Shared harness for the browser tests (run with `node --test tests/e2e/`).
// Uses playwright-core with Debian's Chromium (no browser download), serves dist/ in-process on a
// free port, and records everything a test should assert on: requests, console errors, page errors.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox', // CI runs as root, where Chromium's sandbox cannot start
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Starts the static server for dist/ and a headless Chromium. Call once per file, in before(). */
export async function startEnv() {
  if (!existsSync(`${DIST}index.html`)) throw new Error('dist/index.html is missing: run scripts/build.sh first');
  const server = await startServer({ root: DIST, port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    url: server.url,
    origin: new URL(server.url).origin,
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Opens a fresh page for test context `t`. Everything is recorded on the returned object; when the
 * test ends (pass or fail) a screenshot goes to artifacts/screenshots/<test name>.png and the page closes.
 * Requests to anything but the local server are recorded and aborted, so a stray CDN/font/analytics
 * fetch fails the outside-request check instead of hanging the test.
 */
export async function openPage(env, t, { viewport = { width: 1280, height: 800 } } = {}) {
  const context = await env.browser.newContext({ viewport, serviceWorkers: 'block' });
  const page = await context.newPage();
  const rec = { page, context, requests: [], consoleErrors: [], pageErrors: [], failedResponses: [] };

  await context.route('**/*', (route) => (isLocal(env, route.request().url()) ? route.continue() : route.abort()));
  context.on('request', (req) => rec.requests.push(req.url()));
  page.on('console', (msg) => {
    if (msg.type() === 'error') rec.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => rec.pageErrors.push(String(err?.stack ?? err)));
  page.on('response', (res) => {
    if (res.status() >= 400) rec.failedResponses.push(`${res.status()} ${res.url()}`);
  });

  rec.outsideRequests = () => rec.requests.filter((u) => !isLocal(env, u));
  rec.screenshot = (name = t.name) =>
    page.screenshot({ path: `${SCREENSHOTS}${slug(name)}.png`, fullPage: true });

  t.after(async () => {
    await rec.screenshot().catch((e) => console.error(`screenshot for "${t.name}" failed: ${e.message}`));
    await context.close();
  });
  return rec;
}

/** Asserts-style helper: throws with every problem listed if the page misbehaved. */
export function assertClean(rec) {
  const problems = [
    ...rec.pageErrors.map((e) => `page error: ${e}`),
    ...rec.consoleErrors.map((e) => `console error: ${e}`),
    ...rec.failedResponses.map((e) => `HTTP ${e}`),
    ...rec.outsideRequests().map((u) => `request left 127.0.0.1: ${u}`),
  ];
  if (problems.length) throw new Error(`page was not clean:\n  ${problems.join('\n  ')}`);
}

function isLocal(env, url) {
  // data: and blob: URLs never touch the network.
  return url.startsWith(env.origin + '/') || url.startsWith('data:') || url.startsWith('blob:');
}

function slug(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'test';
}

/** The selector of the element with `data-testid="id"`. */
export const tid = (id) => `[data-testid="${id}"]`;

/** Polls until the element's text contains `want` (renders are asynchronous). */
export async function expectText(page, id, want) {
  const deadline = Date.now() + 5_000;
  let got;
  while (Date.now() < deadline) {
    got = await page.locator(tid(id)).textContent().catch(() => null);
    if (got?.includes(want)) return got;
    await page.waitForTimeout(20);
  }
  assert.fail(`${id}: expected text containing ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
}

/** The centre of what a person grabs: the marker's hit area if it has one (not its label). */
export async function centre(page, id) {
  const el = page.locator(tid(id));
  const hit = el.locator(':scope > .hit');
  const box = await ((await hit.count()) ? hit.first() : el).boundingBox();
  assert.ok(box, `${id} is not on screen`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The page x of instant `ms`, read off the axis grid lines (data-testid grid-<ms>). */
export async function xOf(page, ms) {
  const lines = await page.locator('[data-testid^="grid-"]').evaluateAll((els) =>
    els.map((e) => [Number(e.dataset.testid.slice(5)), e.getBoundingClientRect().x]));
  assert.ok(lines.length >= 2, 'the axis has fewer than two grid lines');
  const [[t0, x0], [t1, x1]] = [lines[0], lines[lines.length - 1]];
  return x0 + ((x1 - x0) * (ms - t0)) / (t1 - t0);
}

/** A client name that would run script if it were ever treated as markup. */
export const XSS = '<img src=x onerror=alert(1)>';

/** A scenario whose every text field is markup that must stay text. */
export const markupScenario = () => ({
  version: 1,
  name: '<script>alert(2)</script>',
  caption: '<svg onload=alert(3)><b>not bold</b>',
  clients: [
    { name: XSS, events: [{ kind: 'acquire', atMs: 0 }, { kind: 'debit', atMs: 5, amount: 10 }] },
    { name: 'B', events: [{ kind: 'acquire', atMs: 40 }] },
  ],
});

/** Dismisses every dialog the page opens and returns the list of their messages. */
export function collectDialogs(page) {
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  return dialogs;
}

