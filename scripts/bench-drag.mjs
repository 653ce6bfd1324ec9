#!/usr/bin/env node
// Script time per pointer move while dragging, in headless Chromium against the release build.
//
//   bash scripts/build.sh && node scripts/bench-drag.mjs [moves]
//
// Mounts a 40-event scenario (four clients, ten events each), grabs the end of a pause and sends
// pointer moves across the axis, each one to a new millisecond so every move edits the scenario,
// re-runs the simulation twice (the run and its unfenced ghost) and re-renders. The playground
// applies at most one move per animation frame, so each move is timed in two parts: its handler
// (which only records the position) and the script work of the frame that applies it (the
// runs, the render and its microtasks; not style, layout or paint). One move per frame is the
// worst case; faster pointers share a frame's work.
// The verdict banner, the playhead's reading and the narration are live mid-drag too (issue
// 10), so their renders are part of each frame's work.
// Budget (issue 10): p95 ≤ 3.0 ms, the median of 5 runs (the first target, issue 3, was 1 ms).
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { startServer } from './serve.mjs';

const MOVES = Number(process.argv[2] ?? 400);
const dist = process.env.DIST ?? fileURLToPath(new URL('../dist/', import.meta.url));

function scenario() {
  const clients = ['A', 'B', 'C', 'D'].map((name, c) => {
    const events = [];
    for (let k = 0; k < 2; k++) {
      const base = c * 7 + k * 90;
      events.push({ kind: 'acquire', atMs: base });
      events.push({ kind: 'pause', atMs: base + 2, durationMs: 30 + c * 4, cause: 'gc' });
      events.push({ kind: 'debit', atMs: base + 4, amount: 5 });
      events.push({ kind: 'renew', atMs: base + 20 });
      events.push({ kind: 'debit', atMs: base + 40, amount: 3, delayMs: 10 });
    }
    return { name, events };
  });
  return { version: 1, name: 'Bench: 40 events', endMs: 200, clients };
}

// Served cross-origin isolated, so performance.now() is precise to 5 µs rather than 100 µs.
const server = await startServer({ root: dist, port: 0, isolated: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  headless: true,
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.url);
  await page.locator('[data-testid="timeline"]').first().waitFor({ timeout: 20_000 });
  const result = await page.evaluate(async ({ scenario, moves }) => {
    const { mount } = await import(new URL('pkg/fencing_playground.js', document.baseURI).href);
    const host = document.createElement('div');
    document.body.replaceChildren(host);
    mount(host, { scenario });
    const nextTask = () => new Promise((r) => { const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); });
    await nextTask();
    const svg = host.querySelector('[data-testid="timeline"]');
    const count = svg.querySelectorAll('[data-ev]').length;
    const handle = host.querySelector('[data-testid="pause-A-1-end"]');
    const h = handle.getBoundingClientRect();
    const y = h.top + h.height / 2;
    const ev = (type, x) => new PointerEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y, pointerId: 9, isPrimary: true, button: 0 });
    handle.dispatchEvent(ev('pointerdown', h.left + h.width / 2));
    await nextTask();
    const r = svg.getBoundingClientRect();
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
    const handler = [];
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
    const label = host.querySelector('[data-testid="pause-A-1"]').getAttribute('aria-label');
    const times = handler.map((h, i) => h + work[i]);
    return { times, handler, work, count, label, isolated: self.crossOriginIsolated };
  }, { scenario: scenario(), moves: MOVES });
  const stats = (xs) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return { mean, median: q(0.5), p95: q(0.95), max: sorted[sorted.length - 1] };
  };
  const show = (name, s) =>
    console.log(`  ${name.padEnd(34)} mean ${s.mean.toFixed(2)} ms   median ${s.median.toFixed(2)} ms   p95 ${s.p95.toFixed(2)} ms   max ${s.max.toFixed(2)} ms`);
  console.log(`drag bench: ${result.times.length} pointer moves, one per frame, over ${result.count} draggable parts (40 events); timer ${result.isolated ? '5 µs (cross-origin isolated)' : '100 µs'}`);
  show('pointermove handler', stats(result.handler));
  show('frame work (2 runs + render)', stats(result.work));
  const total = stats(result.times);
  show('script time per move (sum)', total);
  console.log(`  after the drag: ${result.label.split('.')[0]}`);
  console.log(total.p95 <= 3 ? '  p95 is within the 3.0 ms budget' : '  p95 is above the 3.0 ms budget');
} finally {
  await browser.close();
  await server.close();
}
