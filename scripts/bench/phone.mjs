// @ts-check
// First interactive on a phone: the release page in dist/, served compressed the way a static
// host serves it (scripts/serve.mjs with the build's .br / .gz files), opened in headless
// Chromium under a mid-range phone profile: 390 × 844 CSS px at 3 device pixels per px, touch,
// the CPU throttled 4× (CDP Emulation.setCPUThrottlingRate) and the network at 1.6 Mbit/s down,
// 750 kbit/s up, 150 ms round trip (CDP Network.emulateNetworkConditions).
//
// First interactive: from navigation start until a scripted finger drag of A's pause end handle
// (to 20 ms, started the moment the handle is in the page) changes the verdict's text. Each run
// is a fresh browser context (cold caches). Beside it, per run: when the timeline first appeared,
// every request (URL, start, end, bytes on the wire), the bytes downloaded until interactive, and
// when the full playground was on the page (a first visit is drawn by the first stage, which
// the full page replaces once loaded and no finger is down: src/first/, www/first.js).
// Then, with brotli, two more kinds of visit, each until the same drag changes the verdict:
// - a link to the same scenario (`#s=1.…`, as a reader arriving from a blog post opens it),
//   which the first stage draws too (a single lock service), in a fresh context;
// - a returning visit: in one context, a first visit with no throttling that waits for the full
//   playground, then the default scenario put in localStorage as the page's autosave keeps a
//   reader's last scenario, then the bare URL again under the phone profile, with the browser's
//   cache as the first visit left it (serve.mjs sends `Cache-Control: no-cache` and an ETag, so
//   every file is revalidated and comes back 304, as from a static host that revalidates).
//
//   node scripts/bench/phone.mjs [runs=5] [encodings=br,gzip]    prints JSON
//   FP_DIST=/some/dist node scripts/bench/phone.mjs                 another build (comparisons)
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import { startServer } from '../serve.mjs';

const RUNS = Number(process.argv[2] ?? 5);
const ENCODINGS = (process.argv[3] ?? 'br,gzip').split(',').filter(Boolean);
const dist = process.env.FP_DIST
  ? process.env.FP_DIST.replace(/\/?$/, '/')
  : fileURLToPath(new URL('../../dist/', import.meta.url));
const TIMEOUT_MS = 60_000;

export const PROFILE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  cpuThrottle: 4,
  downKbps: 1600,
  upKbps: 750,
  rttMs: 150,
  dragToMs: 20,
};

if (!existsSync(dist + 'index.html')) throw new Error('dist/index.html is missing: run scripts/build.sh first');
for (const enc of ENCODINGS.filter((e) => e !== 'none')) {
  const suffix = enc === 'br' ? '.br' : enc === 'gzip' ? '.gz' : `.${enc}`;
  if (!existsSync(dist + 'pkg/fencing_playground_bg.wasm' + suffix)) {
    throw new Error(`dist/ has no precompressed ${suffix} files: run scripts/build.sh (scripts/precompress.mjs)`);
  }
}

// Runs in the page before any of its own scripts. Tells the bench (binding __fpReady) the moment
// A's pause end handle is in the page, with where to put the finger; then, from the finger's
// pointerdown on, watches the verdict and reports (binding __fpDone) when its text changes.
/**
 * Where the finger goes: `from` the handle's centre to `toX`, planned `at` (ms).
 * @typedef {{ at: number, from: { x: number, y: number }, toX: number }} Plan
 * The verdict's text before the drag and after it changed, `at` (ms).
 * @typedef {{ at: number, before: string, after: string }} Changed
 * The bindings `run` exposes to the page.
 * @typedef {Window & { __fpReady(p: Plan): void, __fpFull(at: number): void, __fpDone(c: Changed): void }} Probed
 */
/** @param {number} dragToMs */
const probe = (dragToMs) => {
  const w = /** @type {Probed} */ (/** @type {unknown} */ (window));
  /** @param {string} id */
  const q = (id) => document.querySelector(`[data-testid="${id}"]`);
  /** @type {{ planned: boolean, before: string | null, done: boolean, full: boolean }} */
  const state = { planned: false, before: null, done: false, full: false };
  const plan = () => {
    const handle = q('pause-A-1-end');
    if (!handle || !q('verdict')) return null;
    handle.scrollIntoView({ block: 'center', inline: 'center' });
    const hit = handle.querySelector(':scope > .hit') ?? handle;
    const box = hit.getBoundingClientRect();
    const lines = [...document.querySelectorAll('[data-testid^="grid-"]')]
      .map((e) => [Number((e.getAttribute('data-testid') ?? '').slice(5)), e.getBoundingClientRect().x]);
    if (lines.length < 2) return null;
    const [[t0, x0], [t1, x1]] = [lines[0], lines[lines.length - 1]];
    return {
      at: performance.now(),
      from: { x: box.x + box.width / 2, y: box.y + box.height / 2 },
      toX: x0 + ((x1 - x0) * (dragToMs - t0)) / (t1 - t0),
    };
  };
  const observer = new MutationObserver(() => {
    if (!state.planned) {
      const p = plan();
      if (p) {
        state.planned = true;
        w.__fpReady(p);
      }
    }
    if (!state.full && q('playground')) {
      state.full = true;
      w.__fpFull(performance.now());
    }
    if (state.planned && state.before !== null && !state.done) {
      const text = q('verdict')?.textContent ?? '';
      if (text !== state.before) {
        state.done = true;
        w.__fpDone({ at: performance.now(), before: state.before, after: text });
      }
    }
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  addEventListener('pointerdown', () => {
    if (state.before === null) state.before = q('verdict')?.textContent ?? '';
  }, true);
};

/** The page's autosave key (persist::STORAGE_KEY; tests/node/shared.test.mjs keeps them equal). */
const STORAGE_KEY = 'fencing-playground:v1';

/**
 * One load: returns { interactiveMs, timelineMs, bytes, requests, waterfall }. Cold (a fresh
 * context), or, with `returning`, after a first visit in the same context that leaves its
 * cache and `returning.saved` as the autosaved scenario.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {string} enc
 * @param {{ saved: string }} [returning]
 */
async function run(browser, url, enc, returning) {
  const context = await browser.newContext({
    viewport: PROFILE.viewport,
    deviceScaleFactor: PROFILE.deviceScaleFactor,
    hasTouch: true,
    isMobile: true,
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    if (returning) {
      // The earlier visit: unthrottled, until the full playground is on the page, then the
      // scenario the reader left there.
      await page.goto(url, { waitUntil: 'load', timeout: TIMEOUT_MS });
      await page.locator('[data-testid="playground"]').waitFor({ timeout: TIMEOUT_MS });
      await page.evaluate(([key, json]) => localStorage.setItem(key, json), [STORAGE_KEY, returning.saved]);
      await page.goto('about:blank');
    }
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: PROFILE.rttMs,
      downloadThroughput: (PROFILE.downKbps * 1000) / 8,
      uploadThroughput: (PROFILE.upKbps * 1000) / 8,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: PROFILE.cpuThrottle });

    /**
     * @type {Map<string, { url: string, start: number, end: number | null, bytes: number,
     *   chunks: [number, number][], encoding: string | null, status: number | null }>}
     */
    const reqs = new Map();
    /** The document's request (the first), whose times tie CDP's clock to the page's. */
    /** @type {{ timestamp: number, wallTime: number }[]} */
    const docs = [];
    cdp.on('Network.requestWillBeSent', (e) => {
      const r = { url: e.request.url, start: e.timestamp, end: null, bytes: 0, chunks: [], encoding: null, status: null };
      reqs.set(e.requestId, r);
      if (e.type === 'Document') docs.push(e);
    });
    cdp.on('Network.responseReceived', (e) => {
      const r = reqs.get(e.requestId);
      if (!r) return;
      r.status = e.response.status;
      const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      r.encoding = h['content-encoding'] ?? null;
    });
    cdp.on('Network.dataReceived', (e) => reqs.get(e.requestId)?.chunks.push([e.timestamp, e.encodedDataLength]));
    cdp.on('Network.loadingFinished', (e) => {
      const r = reqs.get(e.requestId);
      if (r) Object.assign(r, { end: e.timestamp, bytes: e.encodedDataLength });
    });

    /** @type {(p: Plan) => void} */
    let ready = () => {};
    /** @type {(c: Changed) => void} */
    let done = () => {};
    /** @type {Promise<Plan>} */
    const readyP = new Promise((ok) => { ready = ok; });
    /** @type {Promise<Changed>} */
    const doneP = new Promise((ok) => { done = ok; });
    /** @type {(at: number) => void} */
    let full = () => {};
    /** @type {Promise<number>} */
    const fullP = new Promise((ok) => { full = ok; });
    await page.exposeBinding('__fpFull', (_, /** @type {number} */ at) => full(at));
    await page.exposeBinding('__fpReady', (_, /** @type {Plan} */ p) => ready(p));
    await page.exposeBinding('__fpDone', (_, /** @type {Changed} */ p) => done(p));
    await page.addInitScript(probe, PROFILE.dragToMs);

    /** @param {string} what @returns {Promise<never>} */
    const timeout = (what) => new Promise((_, fail) => setTimeout(() => fail(new Error(`${what}: no answer in ${TIMEOUT_MS} ms`)), TIMEOUT_MS));
    const nav = page.goto(url, { waitUntil: 'commit', timeout: TIMEOUT_MS });
    const plan = await Promise.race([readyP, timeout('A\'s pause handle')]);
    await nav;

    // The finger: down on the handle, three moves to the instant, up (one event each, at once).
    /** @param {'touchStart' | 'touchMove' | 'touchEnd'} type @param {number} [x] @param {number} [y] */
    const touch = (type, x = 0, y = 0) => cdp.send('Input.dispatchTouchEvent', {
      type,
      touchPoints: type === 'touchEnd' ? [] : [{ x, y, id: 1, radiusX: 4, radiusY: 4, force: 1 }],
    });
    const { from, toX } = plan;
    await touch('touchStart', from.x, from.y);
    for (let i = 1; i <= 3; i++) await touch('touchMove', from.x + ((toX - from.x) * i) / 3, from.y);
    await touch('touchEnd');
    const changed = await Promise.race([doneP, timeout('the verdict after the drag')]);
    const fullAt = await Promise.race([fullP, timeout('the full playground')]);

    // CDP times are monotonic seconds; the page's are ms from navigation start. The document
    // request's wall time ties the two together.
    const origin = await page.evaluate(() => performance.timeOrigin);
    const doc = docs[0];
    if (!doc) throw new Error('no document request was seen');
    const base = doc.timestamp - (doc.wallTime * 1000 - origin) / 1000;
    /** @param {number} t */
    const ms = (t) => (t - base) * 1000;
    const until = changed.at;
    let bytes = 0;
    const waterfall = [...reqs.values()]
      .filter((r) => !r.url.startsWith('data:'))
      .sort((a, b) => a.start - b.start)
      .map((r) => {
        const upTo = r.end !== null && ms(r.end) <= until
          ? r.bytes
          : r.chunks.filter(([t]) => ms(t) <= until).reduce((s, [, b]) => s + b, 0);
        bytes += upTo;
        return {
          url: new URL(r.url).pathname,
          status: r.status,
          encoding: r.encoding,
          startMs: Math.round(ms(r.start)),
          endMs: r.end === null ? null : Math.round(ms(r.end)),
          bytes: r.bytes,
        };
      });
    for (const w of waterfall) {
      const compressible = /\.(wasm|js|css|html|svg)$|\/$/.test(w.url);
      if (compressible && enc !== 'none' && w.status === 200 && w.encoding !== enc) {
        console.error(JSON.stringify(waterfall));
        throw new Error(`${w.url} came with Content-Encoding ${w.encoding}, not ${enc}`);
      }
    }
    return {
      interactiveMs: Math.round(changed.at),
      timelineMs: Math.round(plan.at),
      fullMs: Math.round(fullAt),
      verdict: { before: changed.before, after: changed.after },
      bytes,
      requests: waterfall.length,
      waterfall,
    };
  } finally {
    await context.close();
  }
}

/** The default preset's scenario, by the build's own wasm. */
async function defaultScenario() {
  /** @type {typeof import('../../dist/pkg/fencing_playground.js')} */
  const glue = await import(new URL('pkg/fencing_playground.js', `file://${dist}`).href);
  glue.initSync({ module: readFileSync(dist + 'pkg/fencing_playground_bg.wasm') });
  // presets() lists the default (sim::presets::DEFAULT_PRESET) first.
  const [preset] = glue.presets();
  if (!preset) throw new Error('this build has no presets');
  return { glue, scenario: preset.scenario };
}

/** `#s=1.…` for the default preset, written by the build's own wasm (its link encoder). */
async function defaultLink() {
  const { glue, scenario } = await defaultScenario();
  return '#' + glue.encodeLink(scenario);
}

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  headless: true,
});
/**
 * One cold load's figures (`run`), and the medians of several.
 * @typedef {Awaited<ReturnType<typeof run>>} Run
 * @typedef {{ interactiveMs: number, timelineMs: number, fullMs?: number, bytes: number, runs: Run[] }} Medians
 * What this script prints (scripts/bench/phone-report.mjs reads it).
 * @typedef {{ profile: typeof PROFILE, load: number[] | null, encodings: Record<string, Medians>, link?: Medians, returning?: Medians }} PhoneBench
 */
/** @type {PhoneBench} */
const result = { profile: PROFILE, load: null, encodings: {} };
try {
  for (const enc of ENCODINGS) {
    const server = await startServer({ root: dist, port: 0, encodings: enc === 'none' ? [] : [enc] });
    try {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await run(browser, server.url, enc));
      result.encodings[enc] = {
        interactiveMs: median(runs.map((r) => r.interactiveMs)),
        timelineMs: median(runs.map((r) => r.timelineMs)),
        fullMs: median(runs.map((r) => r.fullMs)),
        bytes: median(runs.map((r) => r.bytes)),
        runs,
      };
    } finally {
      await server.close();
    }
  }
  // A link to the default scenario: drawn by the first stage, as a first visit is.
  const server = await startServer({ root: dist, port: 0, encodings: ['br'] });
  try {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await run(browser, server.url + await defaultLink(), 'br'));
    result.link = {
      interactiveMs: median(runs.map((r) => r.interactiveMs)),
      timelineMs: median(runs.map((r) => r.timelineMs)),
      fullMs: median(runs.map((r) => r.fullMs)),
      bytes: median(runs.map((r) => r.bytes)),
      runs,
    };
    // A returning reader: the default scenario saved, the cache as a first visit left it.
    const saved = JSON.stringify((await defaultScenario()).scenario);
    const back = [];
    for (let i = 0; i < RUNS; i++) back.push(await run(browser, server.url, 'br', { saved }));
    result.returning = {
      interactiveMs: median(back.map((r) => r.interactiveMs)),
      timelineMs: median(back.map((r) => r.timelineMs)),
      fullMs: median(back.map((r) => r.fullMs)),
      bytes: median(back.map((r) => r.bytes)),
      runs: back,
    };
  } finally {
    await server.close();
  }
} finally {
  await browser.close();
}
// Times on a shared machine are noisy: the load average is printed beside them.
const { loadavg } = await import('node:os');
result.load = loadavg().map((x) => Number(x.toFixed(1)));
console.log(JSON.stringify(result));
