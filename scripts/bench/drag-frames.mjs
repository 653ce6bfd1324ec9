#!/usr/bin/env node
// @ts-check
// Which drag frames are slow, and what they wrote: the 40-event drag of scripts/bench-drag.mjs
// (400 moves, one per frame), each frame's script time beside the DOM changes it made (counted
// with a MutationObserver: attribute writes, nodes put in or taken out) and the garbage
// collection that ran in it (read from a Chromium trace). Prints the slowest 5 % (the frames a
// run's p95 stands on), the frames that changed the drawing's structure against the others,
// and, with SHOW=n, what the n slowest wrote.
//
//   bash scripts/build.sh && node scripts/bench/drag-frames.mjs [--throttle N]
//
// DIST=dir/ measures another build. Figures go to scripts/bench/drag-notes.md.
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { startServer } from '../serve.mjs';
import { dragScenario } from './drag-scenario.mjs';

const argv = process.argv.slice(2);
const t = argv.indexOf('--throttle');
const THROTTLE = t >= 0 ? Number(argv[t + 1]) : 1;
if (!(THROTTLE >= 1)) {
  console.error('usage: node scripts/bench/drag-frames.mjs [--throttle N ≥ 1]');
  process.exit(2);
}
const SHOW = Number(process.env.SHOW ?? 0);
const dist = process.env.DIST ?? fileURLToPath(new URL('../../dist/', import.meta.url));
const server = await startServer({ root: dist, port: 0, isolated: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  headless: true,
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(server.url);
  await page.locator('[data-testid="timeline"]').first().waitFor({ timeout: 60_000 });
  const cdp = await page.context().newCDPSession(page);
  if (THROTTLE > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  await page.evaluate(async ({ scenario }) => {
    const { mount } = await import(new URL('pkg/fencing_playground.js', document.baseURI).href);
    const host = document.createElement('div');
    document.body.replaceChildren(host);
    mount(host, { scenario });
    /** @type {Window & { __host?: HTMLElement }} */ (window).__host = host;
  }, { scenario: dragScenario() });
  await page.waitForTimeout(500);
  /** @type {{ name: string, cat: string, ph: string, ts: number, dur?: number }[]} */
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(.../** @type {any[]} */ (d.value)));
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,v8,disabled-by-default-v8.gc,blink.user_timing', transferMode: 'ReportEvents' });
  const rows = await page.evaluate(async ({ moves }) => {
    const host = /** @type {Window & { __host?: HTMLElement }} */ (window).__host;
    if (!host) throw new Error('no mounted playground');
    /** @param {string} id */
    const find = (id) => {
      const e = host.querySelector(`[data-testid="${id}"]`);
      if (!e) throw new Error(`no ${id} in the page`);
      return e;
    };
    const nextTask = () => new Promise((r) => { const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); });
    const svg = find('timeline');
    const handle = find('pause-A-1-end');
    const h = handle.getBoundingClientRect();
    const y = h.top + h.height / 2;
    /** @param {string} type @param {number} x */
    const ev = (type, x) => new PointerEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y, pointerId: 9, isPrimary: true, button: 0 });
    handle.dispatchEvent(ev('pointerdown', h.left + h.width / 2));
    await nextTask();
    const r = svg.getBoundingClientRect();
    const frame = () => new Promise((res) => requestAnimationFrame(() => res(performance.now())));
    /** @type {MutationRecord[]} */
    let records = [];
    const mo = new MutationObserver((l) => { records.push(...l); });
    mo.observe(host, { subtree: true, childList: true, attributes: true, characterData: true });
    /** @param {Node} n */
    const where = (n) => {
      let e = n.nodeType === 1 ? /** @type {Element} */ (n) : n.parentElement;
      const parts = [];
      while (e && e !== host && parts.length < 3) {
        parts.push((e.getAttribute('data-testid') || e.getAttribute('class') || e.tagName).slice(0, 30));
        e = e.parentElement;
      }
      return parts.join(' < ');
    };
    const out = [];
    for (let i = 0; i < moves; i++) {
      const f = (i % 100) / 100;
      const x = r.left + r.width * (0.1 + 0.5 * (Math.floor(i / 100) % 2 ? 1 - f : f));
      const before = frame();
      performance.mark(`fp-move-${i}`);
      svg.dispatchEvent(ev('pointermove', x));
      const after = frame();
      const work = /** @type {number} */ (await after) - /** @type {number} */ (await before);
      const recs = records.concat(mo.takeRecords());
      records = [];
      const attrs = recs.filter((m) => m.type === 'attributes').length;
      const nodes = recs.reduce((s, m) => s + m.addedNodes.length + m.removedNodes.length, 0);
      const text = recs.filter((m) => m.type === 'characterData').length;
      const what = recs.map((m) => m.type === 'attributes'
        ? `${where(m.target)} @${m.attributeName}`
        : m.type === 'characterData' ? `${where(m.target)} text` : `${where(m.target)} +${m.addedNodes.length} −${m.removedNodes.length}`);
      out.push({ i, work, attrs, nodes, text, what, gc: 0 });
    }
    mo.disconnect();
    svg.dispatchEvent(ev('pointerup', r.left));
    return out;
  }, { moves: 400 });
  await cdp.send('Tracing.end');
  await complete;
  // Each frame's GC: the collections between its move's mark and the next move's.
  const marks = new Map(events.filter((e) => e.name.startsWith('fp-move-')).map((e) => [e.name, e.ts]));
  const gcs = events.filter((e) => e.ph === 'X' && /^(MinorGC|MajorGC)$/.test(e.name));
  for (const row of rows) {
    const from = marks.get(`fp-move-${row.i}`);
    if (from === undefined) continue;
    const to = marks.get(`fp-move-${row.i + 1}`) ?? Infinity;
    row.gc = gcs.filter((e) => e.ts >= from && e.ts < to).reduce((s, e) => s + (e.dur ?? 0), 0) / 1000;
  }
  const sorted = [...rows].sort((a, b) => b.work - a.work);
  /** @param {number[]} xs @param {number} p */
  const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  const slow = sorted.slice(0, Math.ceil(rows.length * 0.05));
  console.log(`drag frames: ${rows.length} moves, CPU ${THROTTLE === 1 ? 'unthrottled' : `throttled ${THROTTLE}×`}; frame work median ${q(rows.map((r) => r.work), 0.5).toFixed(2)} ms, p95 ${q(rows.map((r) => r.work), 0.95).toFixed(2)} ms`);
  console.log(`the slowest 5 % (move: ms, attribute writes, nodes in and out, GC ms): ${slow.map((r) => `${r.i}: ${r.work.toFixed(2)}, ${r.attrs}, ${r.nodes}, ${r.gc.toFixed(2)}`).join(' · ')}`);
  const structural = rows.filter((r) => r.nodes > 4);
  const plain = rows.filter((r) => r.nodes <= 4);
  for (const [name, set] of /** @type {const} */ ([['frames that change the structure (> 4 nodes in or out)', structural], ['the others', plain]])) {
    if (set.length === 0) continue;
    const w = set.map((r) => r.work);
    const a = set.map((r) => r.attrs);
    console.log(`${name}: ${set.length}, median ${q(w, 0.5).toFixed(2)} ms, p90 ${q(w, 0.9).toFixed(2)} ms, max ${q(w, 1).toFixed(2)} ms; attribute writes median ${q(a, 0.5)}`);
  }
  console.log(`GC ran in ${rows.filter((r) => r.gc > 0).length} frames, ${slow.filter((r) => r.gc > 0).length} of them among the slowest 5 %`);
  for (const r of sorted.slice(0, SHOW)) {
    console.log(`move ${r.i}: ${r.work.toFixed(2)} ms`);
    for (const w of r.what) console.log(`    ${w}`);
  }
} finally {
  await browser.close();
  await server.close();
}
