// @ts-check
// Time from navigation to the first rendered timeline, in headless Chromium: the served release
// page and the single file from file://. Each load is a fresh page in a fresh context (cold
// caches). Prints JSON: { served: {median, p95, runs}, file: {...} } in milliseconds.
import { chromium } from 'playwright-core';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '../serve.mjs';

const RUNS = Number(process.argv[2] ?? 12);
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

// Runs in the page before any of its scripts: note when the timeline first appears, measured
// from the navigation's time origin.
const probe = () => {
  const w = /** @type {Window & { __firstRenderMs?: number }} */ (window);
  const seen = () => document.querySelector('[data-testid="timeline"]');
  new MutationObserver((_, obs) => {
    if (seen() && !w.__firstRenderMs) {
      w.__firstRenderMs = performance.now();
      obs.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
};

/** The page's `__firstRenderMs`, set by `probe`. */
const firstRenderMs = () => /** @type {Window & { __firstRenderMs?: number }} */ (window).__firstRenderMs;

/**
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 */
async function loads(browser, url) {
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.addInitScript(probe);
    await page.goto(url);
    const ms = await page.waitForFunction(firstRenderMs, null, { timeout: 20_000 });
    times.push(Number(await ms.jsonValue()));
    await context.close();
  }
  const sorted = [...times].sort((a, b) => a - b);
  /** @param {number} p */
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return { median: at(0.5), p95: at(0.95), min: sorted[0], runs: times.length };
}

const server = await startServer({ root: dist, port: 0 });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  headless: true,
});
try {
  const served = await loads(browser, server.url);
  const file = await loads(browser, pathToFileURL(dist + 'fencing-playground.html').href);
  console.log(JSON.stringify({ served, file }));
} finally {
  await browser.close();
  await server.close();
}
