#!/usr/bin/env node
// @ts-check
// Where a drag frame's script time goes: a CPU profile of the 40-event drag of
// scripts/bench-drag.mjs (200 moves, CPU throttled 4×), self time by function and by kind.
// It needs a page whose wasm keeps its function names (the release build strips them):
//
//   cargo build --release --target wasm32-unknown-unknown --lib \
//     --config 'profile.release.strip=false' --target-dir target/prof
//   rm -rf /tmp/dist-names && cp -r dist /tmp/dist-names && rm -rf /tmp/dist-names/pkg
//   wasm-bindgen --target web --out-dir /tmp/dist-names/pkg \
//     target/prof/wasm32-unknown-unknown/release/fencing_playground.wasm
//   cat scripts/dom-patch.js >> /tmp/dist-names/pkg/fencing_playground.js   # as scripts/build.sh does
//   node scripts/bench/drag-profile.mjs /tmp/dist-names/ [top N functions]
//
// The wasm is not run through wasm-opt here, so absolute times are a little higher than the
// release page's; the shares are what it is for. Figures go to scripts/bench/drag-notes.md.
import { chromium } from 'playwright-core';
import { startServer } from '../serve.mjs';
import { dragScenario } from './drag-scenario.mjs';
const dist = process.argv[2] ?? '/tmp/dist-names/';
const server = await startServer({ root: dist, port: 0, isolated: true });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'], headless: true });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(server.url);
await page.locator('[data-testid="timeline"]').first().waitFor({ timeout: 60_000 });
const cdp = await page.context().newCDPSession(page);
await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
await page.evaluate(async ({ scenario }) => {
  const { mount } = await import(new URL('pkg/fencing_playground.js', document.baseURI).href);
  const host = document.createElement('div');
  document.body.replaceChildren(host);
  mount(host, { scenario });
  /** @type {Window & { __host?: HTMLElement }} */ (window).__host = host;
}, { scenario: dragScenario() });
await page.waitForTimeout(500);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
await cdp.send('Profiler.start');
const res = await page.evaluate(async ({ moves }) => {
  const host = /** @type {Window & { __host?: HTMLElement }} */ (window).__host;
  /** @param {string} testid */
  const find = (testid) => {
    const e = host?.querySelector(`[data-testid="${testid}"]`);
    if (!e) throw new Error(`no ${testid} in the page`);
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
  const frame = () => new Promise((r) => requestAnimationFrame(() => r(performance.now())));
  /** @type {number[]} */
  const work = [];
  for (let i = 0; i < moves; i++) {
    const f = (i % 100) / 100;
    const x = r.left + r.width * (0.1 + 0.5 * (Math.floor(i / 100) % 2 ? 1 - f : f));
    const before = frame();
    svg.dispatchEvent(ev('pointermove', x));
    const after = frame();
    work.push((await after) - (await before));
  }
  svg.dispatchEvent(ev('pointerup', r.left));
  work.sort((a, b) => a - b);
  return { median: work[Math.floor(work.length / 2)], p95: work[Math.floor(work.length * 0.95)] };
}, { moves: 200 });
const { profile } = await cdp.send('Profiler.stop');
console.log(`frame script time over the profiled moves (ms): median ${res.median.toFixed(2)}, p95 ${res.p95.toFixed(2)}`);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = profile.timeDeltas ?? [];
(profile.samples ?? []).forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0)));
const fnSelf = new Map();
let total = 0;
for (const [id, t] of self) {
  const n = byId.get(id);
  if (!n) throw new Error(`the profile has a sample of node ${id}, which it does not list`);
  const name = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop()})`;
  if (name === '(idle)' || name === '(program)') continue;
  total += t;
  fnSelf.set(name, (fnSelf.get(name) ?? 0) + t);
}
const top = [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 25));
for (const [n, t] of top) console.log((100 * t / total).toFixed(1).padStart(5), '%', n.slice(0, 140));
/** @type {[string, RegExp][]} */
const buckets = [
  ['DOM writes', /^(setAttribute|removeAttribute|__wbg_set_|insertBefore|appendChild|removeChild|focus|__wbg_setAttribute|__wbg_removeAttribute)/],
  ['strings and calls across the boundary', /^(decode|decodeText|getStringFromWasm0|wasm-to-js|js-to-wasm|passStringToWasm0|encodeInto|__wbg_|__wbindgen|getObject|addHeapObject|takeObject|dropObject|wasm_bindgen::|<wasm_bindgen::|js_sys::)/],
  ['allocation', /(dlmalloc|__rdl_|__rust_alloc|__rust_dealloc|__rust_realloc|RawVec|box_new|drop_slow|drop_in_place|unwrap_or_clone|Vec<T,A> as core::clone)/],
  ['Yew', /yew::/],
  ['simulation (sim)', /fencing_playground::sim::/],
  ['page views (ui)', /fencing_playground::/],
  ['formatting', /(core.*fmt|alloc.*fmt|to_string|format)/],
  ['frames and pointer (browser)', /^(requestAnimationFrame|getBoundingClientRect|dispatchEvent|composedPath|now|__wbg_now|setTimeout|queueMicrotask|\(garbage collector\))/],
];
/** @type {Map<string, number>} */
const sums = new Map(buckets.map(([b]) => [b, 0]));
let other = 0;
for (const [n, t] of fnSelf) {
  const b = buckets.find(([, re]) => re.test(n));
  if (b) sums.set(b[0], (sums.get(b[0]) ?? 0) + t); else other += t;
}
console.log('--- self time by kind');
for (const [b, t] of sums) console.log((100 * t / total).toFixed(1).padStart(5), '%', b);
console.log((100 * other / total).toFixed(1).padStart(5), '%', 'the rest: the bench script and a long tail (see below)');
console.log('--- the rest, top');
for (const [n, t] of [...fnSelf].filter(([n]) => !buckets.some(([, re]) => re.test(n))).sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((100 * t / total).toFixed(1).padStart(5), '%', n.slice(0, 120));
await browser.close();
await server.close();
