#!/usr/bin/env node
// @ts-check
// Script time per pointer move while dragging, in headless Chromium against the release build.
//
//   bash scripts/build.sh && node scripts/bench-drag.mjs [moves] [--throttle N] [--runs R] [--json]
//
// --throttle N slows the CPU N× through the DevTools protocol (`Emulation.setCPUThrottlingRate`,
// as a mid-range phone; issues 14 and 25 measure at 4×; also THROTTLE=N). --runs R repeats the bench in
// R fresh pages and reports each run and the median of their p95s, the figure the budgets are
// set on, and beside it a host reference (one simulate() of the scenario, timed in each page after
// the drag): the host's speed swings, and figures taken at different times compare only with it.
// --json prints the figures as JSON instead of text (for scripts/bench/report.mjs).
//
// Mounts a 40-event scenario (four clients, ten events each), grabs the end of a pause and sends
// pointer moves across the axis, each one to a new millisecond so every move edits the scenario,
// re-runs the simulation twice (the run and its unfenced ghost) and re-renders. The playground
// applies at most one move per animation frame, so each move is timed in two parts: its handler
// (which only records the position) and the script work of the frame that applies it (the
// runs, the render and its microtasks; not style, layout or paint). One move per frame is the
// worst case; faster pointers share a frame's work.
// The verdict banner and the playhead's reading are live mid-drag too (issue 10), so their
// drawing is part of each frame's work; the narration and the commands catch up on the drop.
// Since issue 25 a client event's move is applied by the live drag path (src/ui/live.rs): the
// runs and the DOM writes of the lanes, arrows, banner and reading, with no Yew render.
// Budgets, each the median of 5 runs' p95: 2 ms unthrottled and 6 ms under 4× CPU throttling
// (issue 25; issues 10 and 14 had set 3 and 8 ms, issue 3 first 1 ms). What 6 ms at 4× asks of a
// frame's unthrottled time on this host, scripts/bench/throttle.mjs measures (BENCHMARKS.md).
// The host reference is this build's own simulate(): it compares hosts for the same build, not
// builds on one host.
// The machine's load average is printed with the figures: on a busy machine they are worse.
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { startServer } from './serve.mjs';
import { dragScenario } from './bench/drag-scenario.mjs';

const argv = process.argv.slice(2);
/**
 * @param {string} name
 * @param {string | number} fallback
 */
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const [value] = argv.splice(i, 2).slice(1);
  return value;
};
const THROTTLE = Number(option('--throttle', process.env.THROTTLE ?? 1));
const RUNS = Number(option('--runs', 1));
const JSON_OUT = argv.includes('--json') && argv.splice(argv.indexOf('--json'), 1).length > 0;
const MOVES = Number(argv[0] ?? 400);
if (!(THROTTLE >= 1) || !(RUNS >= 1) || !(MOVES >= 1)) {
  console.error('usage: node scripts/bench-drag.mjs [moves] [--throttle N ≥ 1] [--runs R ≥ 1] [--json]');
  process.exit(2);
}
// Issue 25's targets (issue 14 had set 8 and 3 ms).
const BUDGET = THROTTLE >= 4 ? 6 : 2;
const dist = process.env.DIST ?? fileURLToPath(new URL('../dist/', import.meta.url));


// Served cross-origin isolated, so performance.now() is precise to 5 µs rather than 100 µs.
const server = await startServer({ root: dist, port: 0, isolated: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  headless: true,
});
async function once() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.url);
  await page.locator('[data-testid="timeline"]').first().waitFor({ timeout: 20_000 });
  if (THROTTLE !== 1) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  }
  const result = await page.evaluate(async ({ scenario, moves }) => {
    const { mount, simulate } = await import(new URL('pkg/fencing_playground.js', document.baseURI).href);
    const host = document.createElement('div');
    document.body.replaceChildren(host);
    mount(host, { scenario });
    const nextTask = () => new Promise((r) => { const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); });
    await nextTask();
    /** @param {string} testid */
    const find = (testid) => {
      const e = host.querySelector(`[data-testid="${testid}"]`);
      if (!e) throw new Error(`no ${testid} in the page`);
      return e;
    };
    const svg = find('timeline');
    const count = svg.querySelectorAll('[data-ev]').length;
    const handle = find('pause-A-1-end');
    const h = handle.getBoundingClientRect();
    const y = h.top + h.height / 2;
    /** @param {string} type @param {number} x */
    const ev = (type, x) => new PointerEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y, pointerId: 9, isPrimary: true, button: 0 });
    handle.dispatchEvent(ev('pointerdown', h.left + h.width / 2));
    await nextTask();
    const r = svg.getBoundingClientRect();
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
    /** @type {number[]} */
    const handler = [];
    /** @type {number[]} */
    const work = [];
    for (let i = 0; i < moves; i++) {
      // Sweep between 10% and 60% of the width, one new millisecond per move or so.
      const f = (i % 100) / 100;
      const x = r.left + r.width * (0.1 + 0.5 * (Math.floor(i / 100) % 2 ? 1 - f : f));
      // Frame callbacks run in the order they were requested: `before` runs just ahead of the
      // playground's own callback (requested by the move), `after` just behind it, so their
      // difference is the frame's script time: one simulation pair and one render.
      const before = frame();
      const t0 = performance.now();
      svg.dispatchEvent(ev('pointermove', x));
      handler.push(performance.now() - t0);
      const after = frame();
      work.push((await after) - (await before));
    }
    svg.dispatchEvent(ev('pointerup', r.left));
    const label = find('pause-A-1').getAttribute('aria-label') ?? '';
    const times = handler.map((h, i) => h + work[i]);
    // The host's speed, measured the same way in every run: the median of 30 `simulate()` calls
    // of this scenario, a fixed piece of work, under the same throttling. The machine is a VM on
    // a shared host whose speed swings within an hour; a drag figure is comparable with another
    // session's only beside this one.
    await nextTask();
    // The first ten calls warm the code up (the wasm's functions are compiled on first call);
    // the next 30 are timed together, as throttling pauses a task at its own rhythm and a
    // single short call is either paused or not.
    for (let i = 0; i < 10; i++) simulate(scenario);
    const t0 = performance.now();
    for (let i = 0; i < 30; i++) simulate(scenario);
    const reference = (performance.now() - t0) / 30;
    return { times, handler, work, count, label, isolated: self.crossOriginIsolated, reference };
  }, { scenario: dragScenario(), moves: MOVES });
  await page.close();
  return result;
}

/** @param {number[]} xs */
const stats = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  /** @param {number} p */
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean, median: q(0.5), p95: q(0.95), max: sorted[sorted.length - 1] };
};

try {
  const load = os.loadavg();
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const result = await once();
    runs.push({ result, handler: stats(result.handler), work: stats(result.work), total: stats(result.times) });
  }
  const loadAfter = os.loadavg();
  const p95s = runs.map((r) => r.total.p95);
  const medianP95 = [...p95s].sort((a, b) => a - b)[Math.floor((p95s.length - 1) / 2)];
  const refs = runs.map((r) => r.result.reference);
  const medianRef = [...refs].sort((a, b) => a - b)[Math.floor((refs.length - 1) / 2)];
  /** @param {number[]} xs */
  const fmt = (xs) => xs.map((x) => x.toFixed(2)).join(' / ');
  if (JSON_OUT) {
    console.log(JSON.stringify({
      moves: MOVES, throttle: THROTTLE, budgetMs: BUDGET, cores: os.cpus().length,
      load: { before: load, after: loadAfter }, medianP95, referenceMs: medianRef,
      runs: runs.map((r) => ({ handler: r.handler, work: r.work, total: r.total })),
      label: runs[0].result.label.split('.')[0],
    }));
  } else {
    const first = runs[0].result;
    console.log(`drag bench: ${first.times.length} pointer moves, one per frame, over ${first.count} draggable parts (40 events); CPU ${THROTTLE === 1 ? 'unthrottled' : `throttled ${THROTTLE}×`}; timer ${first.isolated ? '5 µs (cross-origin isolated)' : '100 µs'}; load average ${fmt(load)} (1/5/15 min) on ${os.cpus().length} cores`);
    runs.forEach((r, i) => {
      if (RUNS > 1) console.log(`run ${i + 1}:`);
      show('pointermove handler', r.handler);
      show('frame work (2 runs + render)', r.work);
      show('script time per move (sum)', r.total);
    });
    console.log(`  after the drag: ${first.label.split('.')[0]}`);
    if (RUNS > 1) console.log(`  p95 of each run: ${fmt(p95s)} ms; median ${medianP95.toFixed(2)} ms; load average after ${fmt(loadAfter)}`);
    console.log(`  host reference (one simulate() of this scenario, the mean of 30 after 10 to warm up, each run): ${fmt(refs)} ms; median ${medianRef.toFixed(2)} ms`);
    console.log(medianP95 <= BUDGET ? `  p95 is within the ${BUDGET.toFixed(1)} ms budget` : `  p95 is above the ${BUDGET.toFixed(1)} ms budget`);
  }
} finally {
  await browser.close();
  await server.close();
}

/**
 * @param {string} name
 * @param {ReturnType<typeof stats>} s
 */
function show(name, s) {
  console.log(`  ${name.padEnd(34)} mean ${s.mean.toFixed(2)} ms   median ${s.median.toFixed(2)} ms   p95 ${s.p95.toFixed(2)} ms   max ${s.max.toFixed(2)} ms`);
}
