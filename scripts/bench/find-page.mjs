// @ts-check
// "Find a failure" in the page, in headless Chromium, on the served release build: the time
// from pressing Search to the first failing schedule and to the shrunk counterexample on
// gc-pause-unfenced without its pause (the panel open and its workers started first), and the
// search's throughput through the page's own finder (www/finder.js) with one worker and with
// two, on a search that finds nothing (strict fencing, k = 2 over pauses, debit delays and
// client crashes, failure = stale write accepted). Usage:
//   node scripts/bench/find-page.mjs [runs] [budget]
// Prints a Markdown section for BENCHMARKS.md.
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { startServer } from '../serve.mjs';

const RUNS = Number(process.argv[2] ?? 10);
const BUDGET = Number(process.argv[3] ?? 400_000);
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
/** @param {string} id */
const tid = (id) => `[data-testid="${id}"]`;

const server = await startServer({ root: dist, port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  headless: true,
});
/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), 'gc-pause-unfenced');
  await page.locator(tid('pause-A-1')).click();
  await page.keyboard.press('Delete');
  await page.locator(tid('pause-A-1')).waitFor({ state: 'detached' });
  await page.locator(`${tid('find')} > summary`).click();
  // The workers are started: one search to the end, then back to the scenario.
  const once = async () => {
    const t = await page.evaluate(() => new Promise((resolve) => {
      const button = document.querySelector('[data-testid="find-search"]');
      if (!(button instanceof HTMLElement)) throw new Error('no Search button in the page');
      const t0 = performance.now();
      new MutationObserver((_, obs) => {
        if (document.querySelector('[data-testid="found-mark"]')) {
          obs.disconnect();
          resolve(performance.now() - t0);
        }
      }).observe(document, { childList: true, subtree: true, attributes: true });
      button.click();
    }));
    const status = await page.locator(`${tid('find-status')}[data-state="found"]`)
      .evaluate((/** @type {HTMLElement} */ el) => ({ first: Number(el.dataset.firstMs), done: Number(el.dataset.doneMs), mode: el.dataset.mode }));
    await page.locator(tid('undo')).click();
    await page.locator(tid('found-mark')).waitFor({ state: 'detached' });
    return { ...status, shown: t };
  };
  await once();
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once());

  // Throughput through the finder itself, one worker then two.
  /** @param {number} workers */
  const rate = async (workers) => page.evaluate(async ({ workers, budget }) => {
    // The page's own files, relative to the page (dist/), typed as the sources they are built from.
    /** @param {string} p */
    const at = (p) => new URL(p, location.href).href;
    /** @type {typeof import('../../www/finder.js')} */
    const { createFinder } = await import(at('www/finder.js'));
    const finder = createFinder({ worker: at('www/search-worker.js'), glue: at('pkg-search/search.js'), wasm: at('pkg-search/search_bg.wasm') }, { workers });
    /** @type {typeof import('../../dist/pkg-search/search.js')} */
    const presets = await import(at('pkg-search/search.js'));
    await presets.default({ module_or_path: at('pkg-search/search_bg.wasm') });
    const scenario = presets.presets().find((p) => p.id === 'gc-pause-fenced')?.scenario;
    if (!scenario) throw new Error('no preset gc-pause-fenced in this build');
    scenario.clients[0].events = scenario.clients[0].events?.filter((e) => e.kind !== 'pause');
    const spec = JSON.stringify({ faults: ['pause', 'delay', 'client_crash'], maxFaults: 2, failure: 'stale_write_accepted', budget, strategy: 'exhaustive' });
    /** @type {() => Promise<import('../../dist/pkg/fencing_playground.js').FinderEvent & { type: 'done' }>} */
    const search = () => new Promise((resolve, reject) => finder.search(JSON.stringify(scenario), spec, (e) => {
      if (e.type === 'done') resolve(e);
      else if (e.type === 'error') reject(new Error(e.message));
    }));
    await search(); // starts the workers
    const t0 = performance.now();
    const e = await search();
    const seconds = (performance.now() - t0) / 1000;
    return { workers: e.workers, schedules: e.done, seconds, outcome: JSON.parse(e.report).outcome };
  }, { workers, budget: BUDGET });
  const one = await rate(1);
  const two = await rate(2);
  await context.close();

  /** @param {number} x */
  const ms = (x) => `${x.toFixed(1)} ms`;
  /** @param {{ schedules: number, seconds: number }} r */
  const perSecond = (r) => Math.round(r.schedules / r.seconds);
  const out = [];
  out.push('## Find a failure in the page (headless Chromium, served release build)', '');
  out.push(`Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), load ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min) at the end of the run: shared with other builds, so these are wall-clock figures on a busy machine.`, '');
  out.push(`gc-pause-unfenced without its pause, the panel's default spec (pauses, debit delays, client crashes; k = 1; exhaustive), ${runs[0].mode === 'workers' ? 'in the page\'s workers' : `on the ${runs[0].mode}`}, started beforehand; median of ${RUNS} (min–max):`, '');
  out.push('| from pressing Search to | median | min | max |', '|---|---:|---:|---:|');
  for (const [name, key] of /** @type {const} */ ([['the first failing schedule', 'first'], ['the shrunk report', 'done'], ['the counterexample on the timeline', 'shown']])) {
    const xs = runs.map((r) => r[key]);
    out.push(`| ${name} | ${ms(median(xs))} | ${ms(Math.min(...xs))} | ${ms(Math.max(...xs))} |`);
  }
  out.push('');
  const target = median(runs.map((r) => r.shown));
  out.push(`Target found and shrunk ≤ 100 ms: ${target <= 100 ? 'met' : '**missed**'} (${ms(target)} to the timeline).`, '');
  out.push(`Throughput through the page's finder, strict fencing, k = 2, ${BUDGET} schedules, none found (${one.outcome}): one worker (${one.workers} started) ${perSecond(one).toLocaleString('en-US')} schedules/s, two workers (${two.workers} started) ${perSecond(two).toLocaleString('en-US')} schedules/s (${(perSecond(two) / perSecond(one)).toFixed(2)}×). Targets: ≥ 100 000/s per worker: ${perSecond(one) >= 100000 ? 'met' : '**missed**'}; two ≥ 1.8× one: ${perSecond(two) / perSecond(one) >= 1.8 ? 'met' : '**missed**'}.`);
  console.log(out.join('\n'));
} finally {
  await browser.close();
  await server.close();
}
