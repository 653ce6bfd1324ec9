#!/usr/bin/env node
// @ts-check
// What CPU throttling does to a fixed piece of script, on this machine: the yardstick for the
// drag bench's 4× figures (scripts/bench-drag.mjs).
//
//   node scripts/bench/throttle.mjs [--throttle N] [--tasks K]
//
// A synthetic task (arithmetic in a loop, no DOM, no allocation) is sized to take 0.25, 0.5,
// 0.75, 1, 1.25, 1.5 and 2 ms unthrottled on this host, then run once per animation frame, K
// times (300), timed as the drag bench times a frame's work, first unthrottled and then with the
// CPU throttled N× (4) through the DevTools protocol. The table gives each size's median and
// p95 both ways and the p95's ratio to the unthrottled median. A drag frame's p95 at N× can be
// read against it: a frame whose unthrottled p95 is w ms lands about where this task of w ms does.
// Measured, never asserted; the figures go to BENCHMARKS.md.
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { startServer } from '../serve.mjs';

const argv = process.argv.slice(2);
/** @param {string} name @param {number} fallback */
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : Number(argv[i + 1]);
};
const THROTTLE = option('--throttle', 4);
const TASKS = option('--tasks', 300);
if (!(THROTTLE > 1) || !(TASKS >= 20)) {
  console.error('usage: node scripts/bench/throttle.mjs [--throttle N > 1] [--tasks K ≥ 20]');
  process.exit(2);
}
const SIZES_MS = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2];
const dist = process.env.DIST ?? fileURLToPath(new URL('../../dist/', import.meta.url));

// Served cross-origin isolated, so performance.now() is precise to 5 µs.
const server = await startServer({ root: dist, port: 0, isolated: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  headless: true,
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.url);
  const load = os.loadavg();
  /**
   * Runs `tasks` tasks of `rounds` loop rounds, one per animation frame; their times, sorted.
   * @param {number} rounds @param {number} tasks
   */
  const run = (rounds, tasks) => page.evaluate(async ({ rounds, tasks }) => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    /** @type {number[]} */
    const times = [];
    let sink = 0;
    for (let k = 0; k < tasks; k++) {
      await frame();
      const t0 = performance.now();
      for (let j = 0; j < rounds; j++) for (let i = 0; i < 1000; i++) sink += Math.sqrt(i + j);
      times.push(performance.now() - t0);
    }
    // Keeps the loop's result alive, so it is not optimised away.
    /** @type {Window & { __sink?: number }} */ (window).__sink = sink;
    return times.sort((a, b) => a - b);
  }, { rounds, tasks });
  /** @param {number[]} xs @param {number} p */
  const q = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  // Rounds per millisecond, unthrottled: the median of 40 tasks of 200 rounds, after a warm-up.
  await run(200, 20);
  const perMs = 200 / q(await run(200, 40), 0.5);
  /** @type {{ ms: number, rounds: number, plain: number[], throttled?: number[] }[]} */
  const rows = [];
  for (const ms of SIZES_MS) {
    const rounds = Math.max(1, Math.round(perMs * ms));
    rows.push({ ms, rounds, plain: await run(rounds, TASKS) });
  }
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  for (const row of rows) row.throttled = await run(row.rounds, TASKS);
  console.log(`throttling yardstick: a synthetic task, ${TASKS} runs per size, one per frame; CPU ${THROTTLE}×; load average ${load.map((x) => x.toFixed(2)).join(' / ')} (1/5/15 min) on ${os.cpus().length} cores`);
  console.log('  size   unthrottled median  p95    throttled median  p95     p95 / unthrottled median');
  for (const { ms, plain, throttled } of rows) {
    if (!throttled) continue;
    const m = q(plain, 0.5);
    console.log(`  ${ms.toFixed(2).padStart(4)} ms  ${m.toFixed(2).padStart(8)} ms ${q(plain, 0.95).toFixed(2).padStart(7)} ms  ${q(throttled, 0.5).toFixed(2).padStart(9)} ms ${q(throttled, 0.95).toFixed(2).padStart(7)} ms   ${(q(throttled, 0.95) / m).toFixed(2)}×`);
  }
} finally {
  await browser.close();
  await server.close();
}
