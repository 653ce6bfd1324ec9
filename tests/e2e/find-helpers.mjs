// Helpers of the "Find a failure" end-to-end tests (find.test.mjs) and of the benchmark that
// times the same paths (find-timing.bench.mjs): a real mouse on the page, the panel, the status's
// data attributes, the cross-origin host, and a Chromium trace of the main thread (for the
// benchmark only: what it measures depends on the machine's load).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tid, expectText, centre, DIST } from './helpers.mjs';
/**
 * Watches the main thread from the first script on: every long task (over 50 ms, from the
 * browser's PerformanceObserver) in `__longTasks`, and `__gaps.start()` / `__gaps.stop()`, a
 * probe that posts itself a message after every task and returns the longest stretch between
 * two of its messages (the longest the page could not answer: tasks, rendering and all).
 */
export function watchMainThread() {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__longTasks.push({ start: e.startTime, ms: e.duration, by: e.attribution?.map((a) => a.containerType || a.name) });
    }
  }).observe({ type: 'longtask', buffered: true });
  let on = false;
  let last = 0;
  let gaps = [];
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    if (!on) return;
    const t = performance.now();
    gaps.push(t - last);
    last = t;
    channel.port2.postMessage(0);
  };
  window.__gaps = {
    start() {
      on = true;
      gaps = [];
      last = performance.now();
      channel.port2.postMessage(0);
    },
    stop() {
      on = false;
      const sorted = [...gaps].sort((a, b) => b - a);
      return { n: gaps.length, max: sorted[0] ?? 0, over8: gaps.filter((g) => g > 8).length, top: sorted.slice(0, 5) };
    },
  };
}

export async function boot(page, url = '/') {
  await page.goto(url);
  const bootError = page.locator(tid('boot-error'));
  await page.locator(tid('timeline')).or(bootError).first().waitFor({ timeout: 20_000 });
  if (await bootError.count()) assert.fail(await bootError.innerText());
}

/** A real click at the centre of `selector`, scrolled into view first. */
export async function click(page, selector) {
  const el = page.locator(selector).first();
  await el.scrollIntoViewIfNeeded();
  const box = await el.boundingBox();
  assert.ok(box, `${selector} is not on screen`);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

export async function loadPreset(page, id) {
  await page.selectOption(tid('preset'), id);
  await page.locator(`${tid('preset')} option[value="${id}"]:checked`).waitFor({ state: 'attached' });
}

/** Clicks A's pause with the mouse and deletes it with the Delete key. */
export async function deletePause(page) {
  await click(page, tid('pause-A-1'));
  // The click's drag has ended (the toolbar shows the scenario again) before the key goes.
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.keyboard.press('Delete');
  await page.locator(tid('pause-A-1')).waitFor({ state: 'detached' });
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'title', 'Edited from');
}

/** Opens the panel with the mouse; the finder starts loading then. */
export async function openPanel(page) {
  await click(page, `${tid('find')} > summary`);
  await page.locator(tid('find-search')).waitFor({ state: 'visible' });
}

/** The status once the search has answered (or failed): its state and texts. */
export async function answer(page, timeout = 20_000) {
  const status = page.locator(`${tid('find-status')}:not([data-state="running"]):not([data-state="idle"])`);
  await status.waitFor({ timeout });
  return status.evaluate((el) => ({ ...el.dataset, text: el.innerText }));
}

/** Presses Search and waits for the counterexample on the timeline; returns the time taken. */
export async function searchAndFind(page) {
  const box = await page.locator(tid('find-search')).boundingBox();
  const t0 = Date.now();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.locator(tid('found-mark')).first().waitFor({ timeout: 20_000 });
  return Date.now() - t0;
}

export async function expectFoundPause(page) {
  assert.equal(await page.locator(tid('found-mark')).count(), 1, 'exactly one injected fault is marked');
  const summary = await page.locator(tid('find-summary')).innerText();
  assert.match(summary, /^Found by search: 1 fault: A paused by GC for \d+ ms at \d+ ms$/);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  assert.equal(await page.locator('[data-testid^="pause-A-"][data-testid$="-end"]').count(), 1, 'one pause on A');
  const status = await answer(page);
  assert.equal(status.state, 'found');
  assert.match(status.text, /^Found a failure after \d+ schedules \(exhaustive, k ≤ 1\); shrunk to 1 fault: A paused by GC/);
  return status;
}

/** Drags the end of A's pause 100 px earlier with the mouse, in 20 moves. */
export async function dragPauseEnd(page) {
  const end = await page.locator('[data-testid^="pause-A-"][data-testid$="-end"]').first().getAttribute('data-testid');
  await page.locator(tid(end)).scrollIntoViewIfNeeded();
  const start = await centre(page, end);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) await page.mouse.move(start.x - 5 * i, start.y);
  await page.mouse.up();
}

export const longTasksSince = (page, t) => page.evaluate((t) => window.__longTasks.filter((e) => e.start >= t), t);
export const now = (page) => page.evaluate(() => performance.now());

/** Starts a search that runs for seconds and finds nothing: gc-pause-fenced (strict fencing),
 * random schedules of up to 4 faults, looking for a stale write accepted, 10 M schedules. */
export async function startLongSearch(page) {
  await loadPreset(page, 'gc-pause-fenced');
  await page.locator(tid('find-swarm')).check();
  await page.selectOption(tid('find-failure'), 'stale_write_accepted');
  await page.selectOption(tid('find-k'), '4');
  await page.locator(tid('find-budget')).fill('10000000');
  await page.locator(tid('find-budget')).blur();
  await click(page, tid('find-search'));
  await page.locator(`${tid('find-status')}[data-state="running"]`).waitFor();
}

/**
 * Runs `fn` under a Chromium trace of `page` and returns what the renderer's main thread did
 * meanwhile: how many tasks, the longest (`maxMs`, wall clock) and the most CPU time one took
 * (`maxCpuMs`), and every task longer than 50 ms with its CPU time and the longest things in
 * it. A task far longer than its CPU time waited for a core (the machine was busy: on two
 * cores, with the search's workers and other pages running); one whose CPU time is long ran
 * long (our code, a render or the collector: what is inside says which).
 */
export async function traced(browser, page, fn) {
  await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'v8.execute', 'disabled-by-default-v8.gc'] });
  let buffer;
  try {
    await fn();
  } finally {
    buffer = await browser.stopTracing();
  }
  const events = JSON.parse(buffer.toString()).traceEvents ?? [];
  const mains = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => e.ph === 'X' && mains.has(`${e.pid}:${e.tid}`) && /RunTask$/.test(e.name));
  const ms = (us) => +((us ?? 0) / 1000).toFixed(1);
  const described = (t) => {
    const inside = events
      .filter((e) => e.ph === 'X' && !/RunTask$/.test(e.name) && e.pid === t.pid && e.tid === t.tid && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + t.dur)
      .sort((a, b) => b.dur - a.dur)
      .slice(0, 3)
      .map((e) => `${e.name} ${ms(e.dur)} ms (cpu ${ms(e.tdur)})`);
    return { ms: ms(t.dur), cpuMs: ms(t.tdur), inside };
  };
  // A task that ran the page's script has a call into V8 inside it; one without (the tracing's
  // own messages from the test, which on a slow machine take several ms) is not the page's.
  const SCRIPT = new Set(['FunctionCall', 'RunMicrotasks', 'v8.callFunction', 'V8.Execute', 'v8.run', 'EventDispatch', 'TimerFire']);
  // The script events' start times per thread, sorted: a binary search per task keeps this
  // linear-logarithmic (a long search's trace holds hundreds of thousands of events).
  const starts = new Map();
  for (const e of events) {
    if (!SCRIPT.has(e.name)) continue;
    const key = `${e.pid}:${e.tid}`;
    if (!starts.has(key)) starts.set(key, []);
    starts.get(key).push(e.ts);
  }
  for (const list of starts.values()) list.sort((a, b) => a - b);
  const runsScript = (t) => {
    const list = starts.get(`${t.pid}:${t.tid}`) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid] < t.ts) lo = mid + 1;
      else hi = mid;
    }
    return lo < list.length && list[lo] <= t.ts + t.dur;
  };
  const scripted = tasks.filter(runsScript);
  return {
    tasks: tasks.length,
    maxMs: ms(Math.max(0, ...tasks.map((t) => t.dur))),
    maxCpuMs: ms(Math.max(0, ...tasks.map((t) => t.tdur ?? 0))),
    // The most CPU time a task that ran the page's script took.
    maxScriptCpuMs: ms(Math.max(0, ...scripted.map((t) => t.tdur ?? 0))),
    busiestScript: [...scripted].sort((a, b) => (b.tdur ?? 0) - (a.tdur ?? 0)).slice(0, 2).map(described),
    long: tasks.filter((t) => t.dur > 50_000).map(described),
    // The tasks that took the most CPU time.
    busiest: [...tasks].sort((a, b) => (b.tdur ?? 0) - (a.tdur ?? 0)).slice(0, 2).map(described),
  };
}

/** No task ran 50 ms of CPU; the longest tasks that waited for a core are reported, not failed. */
export function noLongTask(what, seen) {
  assert.ok(seen.maxCpuMs <= 50, `${what}: a main-thread task ran ${seen.maxCpuMs} ms of CPU: ${JSON.stringify(seen.long)}`);
  for (const t of seen.long) {
    assert.ok(t.cpuMs <= 50, `${what}: a long task of our making: ${JSON.stringify(t)}`);
  }
}

/** The host page of another origin: the playground's script from `cdn`, under the CSP
 * docs/embedding.md asks of such a host. */
export const crossOriginHost = (cdn) => ({
  csp: `default-src 'self'; script-src 'self' ${cdn.origin} 'wasm-unsafe-eval'; connect-src 'self' ${cdn.origin}; object-src 'none'`,
  html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A post on another origin</title>
<script type="module" src="${cdn.url}www/embed.js"></script></head>
<body><h1>A post</h1><fencing-playground preset="gc-pause-unfenced"></fencing-playground></body></html>`,
});

/**
 * gc-pause-unfenced without A's pause, and six more clients like B, each a few ms later: a
 * scenario whose counterexample takes a long shrink (most own events are left out one by one).
 */
export async function manyClients() {
  const glue = await import(pathToFileURL(`${DIST}pkg-search/search.js`).href);
  glue.initSync({ module: readFileSync(`${DIST}pkg-search/search_bg.wasm`) });
  const s = glue.presets().find((p) => p.id === 'gc-pause-unfenced').scenario;
  s.clients[0].events.splice(1, 1);
  for (let i = 0; i < 6; i++) {
    const c = structuredClone(s.clients[1]);
    c.name = `C${i}`;
    for (const e of c.events) e.atMs += 3 * i + 1;
    s.clients.push(c);
  }
  return s;
}

/** The status's data attributes as numbers where they are numbers. */
export const numbers = (status) => Object.fromEntries(Object.entries(status).map(([k, v]) => [k, Number.isNaN(Number(v)) ? v : Number(v)]));

/** A host of its own on 127.0.0.1, answering every path with `html` under `csp`. */
export function hostServer(csp, html) {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp });
    res.end(html);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((done) => {
      server.close(done);
      server.closeAllConnections();
    }),
  })));
}
