// @ts-check
// www/finder.js on the main thread, as a cross-origin embed runs it (no worker can start),
// under Node with the release search package (dist/pkg-search/, built by scripts/build.sh), on
// a search whose shrink takes about 220 runs: the finder never calls the one-call methods (new
// SearchPlan, finish) there; it plans through SearchPlanning, scans in blocks and shrinks in
// slices fitted to about 4 ms each, and the report is the one search() gives in one call. The
// time of each call is printed, not asserted: process.cpuUsage counts V8's background threads
// too (tier-up compiling, the collector), and wall-clock time counts a busy machine; the
// browser test (tests/e2e/find.test.mjs) reads each task's own CPU time from a trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../dist/pkg-search/', import.meta.url));
assert.ok(existsSync(`${pkg}search.js`), 'dist/pkg-search/ is missing: run scripts/build.sh first');
/** @type {typeof import('../../dist/pkg-search/search.js')} */
const glue = await import(`${pkg}search.js`);
glue.initSync({ module: readFileSync(`${pkg}search_bg.wasm`) });
// Node 20 has no navigator: the finder reads only its core count.
globalThis.navigator ??= /** @type {Navigator} */ ({ hardwareConcurrency: 2 });
const { createFinder, makeHandler, MAIN_MAX_PLAN_STEPS, MAIN_MAX_SCAN_BLOCK, MAIN_MAX_SHRINK_RUNS } = await import('../../www/finder.js');

/** Every call into the search package, with its arguments, its CPU time and its wall time. */
/** @type {{ name: string, args: unknown[], cpuMs: number, ms: number }[]} */
const calls = [];
/**
 * @param {string} name
 * @param {Function} f
 */
function timed(name, f) {
  /** @this {unknown} @param {unknown[]} args */
  return function (...args) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    try {
      return f.apply(this, args);
    } finally {
      const d = process.cpuUsage(cpu);
      calls.push({ name, args, cpuMs: (d.user + d.system) / 1000, ms: performance.now() - t0 });
    }
  };
}
for (const cls of [glue.SearchPlan, glue.SearchPlanning]) {
  for (const name of Object.getOwnPropertyNames(cls.prototype)) {
    const d = Object.getOwnPropertyDescriptor(cls.prototype, name);
    // The package's own methods, not the glue's bookkeeping (`__destroy_into_raw`).
    if (name !== 'constructor' && name !== 'free' && !name.startsWith('__') && typeof d?.value === 'function') {
      Object.defineProperty(cls.prototype, name, { ...d, value: timed(`${cls.name}.${name}`, d.value) });
    }
  }
}
/**
 * Constructors too: a function that returns an object can be called with `new`, so it stands
 * in for the class.
 * @template {new (...args: any[]) => object} C
 * @param {C} cls
 * @returns {C}
 */
function made(cls) {
  const make = timed(`new ${cls.name}`, (/** @type {unknown[]} */ ...args) => new cls(...args));
  return /** @type {C} */ (/** @type {unknown} */ (make));
}
/** @type {import('../../www/finder.js').HandlerApi} */
const api = { init: async () => {}, SearchPlan: made(glue.SearchPlan), SearchPlanning: made(glue.SearchPlanning) };

/**
 * gc-pause-unfenced without A's pause, and six more clients like B, each with its acquire and
 * debit three times over: the first failing schedule (seed 0, k ≤ 4) shrinks in about 220 runs,
 * most of them leaving out one of 36 own events.
 */
function manyClients() {
  const s = glue.presets().find((p) => p.id === 'gc-pause-unfenced')?.scenario;
  assert.ok(s, 'the preset gc-pause-unfenced');
  s.clients[0].events?.splice(1, 1);
  const b = s.clients[1];
  for (let i = 0; i < 6; i++) {
    const events = [];
    for (let r = 0; r < 3; r++) for (const e of b.events ?? []) events.push({ ...e, atMs: e.atMs + 3 * i + 1 + 40 * r });
    s.clients.push({ ...structuredClone(b), name: `C${i}`, events });
  }
  return s;
}

test('main thread: the plan and the shrink in slices, and the report is search()\'s', async () => {
  const scenario = manyClients();
  /** @type {import('../../dist/pkg-search/search.js').SearchSpec} */
  const spec = { strategy: 'swarm', maxFaults: 4, seed: 0, budget: 100000 };
  const cpu = process.cpuUsage();
  const whole = glue.search(scenario, spec);
  const wholeCpu = process.cpuUsage(cpu);
  calls.length = 0;
  const finder = createFinder({ inline: { glue: '', wasm: () => undefined, api: async () => api } }, { workers: 0 });
  /** @type {import('../../dist/pkg/fencing_playground.js').FinderEvent & { type: 'done' }} */
  const done = await new Promise((resolve, reject) => finder.search(JSON.stringify(scenario), JSON.stringify(spec), (e) => {
    if (e.type === 'done') resolve(e);
    else if (e.type === 'error') reject(new Error(e.message));
    else if (e.type === 'cancelled') reject(new Error('cancelled'));
  }));
  finder.close?.();
  assert.equal(done.mode, 'main thread');
  const report = JSON.parse(done.report);
  assert.equal(report.outcome, 'found', report.statement);
  assert.ok(report.stats.shrinkRuns >= 100, `a long shrink: ${report.stats.shrinkRuns} runs`);
  assert.deepEqual(report, whole, 'the report in slices is the report in one call');

  const grid = calls.filter((c) => c.name === 'SearchPlanning.plan');
  const sliced = calls.filter((c) => c.name !== 'SearchPlanning.plan');
  const worst = [...sliced].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 4)
    .map((c) => ({ name: c.name, cpuMs: c.cpuMs, ...(c.name.startsWith('new ') ? {} : { args: c.args }) }));
  const shrinks = calls.filter((c) => c.name === 'SearchPlan.shrink').length;
  console.log(`search() in one call: ${((wholeCpu.user + wholeCpu.system) / 1000).toFixed(1)} ms of CPU; ` +
    `in slices: ${calls.length} calls (${shrinks} shrink slices), the most CPU: ${JSON.stringify(worst)}; ` +
    `the grid (${report.stats.grid.singleFaults} single faults): ${JSON.stringify(grid)}; the finder's longest task ${done.slowestTaskMs?.toFixed(1)} ms`);
  const names = new Set(calls.map((c) => c.name));
  assert.ok(!names.has('new SearchPlan') && !names.has('SearchPlan.finish'), `one-call methods used: ${[...names]}`);
  assert.ok(names.has('new SearchPlanning') && names.has('SearchPlanning.advance'), `planned in slices: ${[...names]}`);
  assert.ok(shrinks > 1, `the shrink was taken in ${shrinks} slices`);
  // The slices are fitted to the time they take: none runs the whole shrink.
  assert.ok(calls.filter((c) => c.name === 'SearchPlan.shrink').length >= 3, `shrink slices: ${shrinks}`);

  // The structure, for tests that cannot trust a clock: no task was given more than the caps,
  // and the counters say what the main thread did.
  const units = (/** @type {string} */ name, /** @type {(args: unknown[]) => number} */ of) =>
    calls.filter((c) => c.name === name).map((c) => of(c.args));
  const steps = units('SearchPlanning.advance', ([n]) => Number(n));
  const blocks = units('SearchPlan.scan', ([from, to]) => Number(to) - Number(from));
  const runs = units('SearchPlan.shrink', ([n]) => Number(n));
  assert.ok(Math.max(...steps) <= MAIN_MAX_PLAN_STEPS, `plan steps: ${steps}`);
  assert.ok(Math.max(...blocks) <= MAIN_MAX_SCAN_BLOCK, `scan blocks: ${blocks}`);
  assert.ok(Math.max(...runs) <= MAIN_MAX_SHRINK_RUNS, `shrink runs: ${runs}`);
  assert.deepEqual(done.maxUnits, { planSteps: Math.max(...steps), scanSchedules: Math.max(...blocks), shrinkRuns: Math.max(...runs) });
  // One task per message: every call but those planned inside one (plan-end also asks the plan
  // for its size and whether it fails as is).
  const messages = calls.filter((c) => c.name !== 'SearchPlan.total' && c.name !== 'SearchPlan.failsAsIs').length;
  assert.equal(done.tasks, messages, `tasks: ${done.tasks}, messages handled: ${messages}`);
  // The time of the calls given a whole cap, printed (not asserted: a busy machine slows them):
  // wall time, and CPU time, which counts V8's background threads too.
  const atCap = (/** @type {string} */ name, /** @type {number} */ cap, /** @type {(args: unknown[]) => number} */ of) => {
    const full = calls.filter((c) => c.name === name && of(c.args) === cap);
    if (!full.length) return `none at ${cap}`;
    const most = (/** @type {number[]} */ xs) => Math.max(...xs).toFixed(2);
    return `${full.length} at ${cap}, the most ${most(full.map((c) => c.ms))} ms (CPU ${most(full.map((c) => c.cpuMs))} ms)`;
  };
  console.log(`capped tasks: plan steps ${atCap('SearchPlanning.advance', MAIN_MAX_PLAN_STEPS, ([n]) => Number(n))}; ` +
    `scan ${atCap('SearchPlan.scan', MAIN_MAX_SCAN_BLOCK, ([from, to]) => Number(to) - Number(from))}; ` +
    `shrink ${atCap('SearchPlan.shrink', MAIN_MAX_SHRINK_RUNS, ([n]) => Number(n))}`);
});

test('in workers, the main thread does no search work, and the counters say so', async () => {
  // A stand-in for the browser's Worker: the same handler a worker runs, answering in turns of
  // Node's event loop, with its messages cloned as postMessage clones them.
  class FakeWorker {
    /** @type {((e: { data: unknown }) => void) | null} */
    onmessage = null;
    /** @type {((e: ErrorEvent) => void) | null} */
    onerror = null;
    constructor() {
      this.handle = makeHandler(api, (reply) => setImmediate(() => this.onmessage?.({ data: structuredClone(reply) })));
    }
    /** @param {import('../../www/finder.js').Message} m */
    postMessage(m) {
      setImmediate(() => this.handle(structuredClone(m)));
    }
    terminate() {}
  }
  const scenario = glue.presets().find((p) => p.id === 'gc-pause-unfenced')?.scenario;
  assert.ok(scenario, 'the preset gc-pause-unfenced');
  scenario.clients[0].events?.splice(1, 1);
  /** @type {import('../../dist/pkg/fencing_playground.js').FinderEvent[]} */
  const events = [];
  globalThis.Worker = /** @type {typeof Worker} */ (/** @type {unknown} */ (FakeWorker));
  const finder = createFinder({ inline: { glue: '', wasm: () => undefined, api: async () => api } }, { workers: 2 });
  try {
    await new Promise((resolve, reject) => finder.search(JSON.stringify(scenario), JSON.stringify({ maxFaults: 1 }), (e) => {
      events.push(e);
      if (e.type === 'done') resolve(e);
      else if (e.type === 'error') reject(new Error(e.message));
    }));
  } finally {
    finder.close();
    // @ts-expect-error: Node 20 has no Worker of its own, and the other tests count on that.
    delete globalThis.Worker;
  }
  const progress = events.filter((e) => e.type === 'progress' || e.type === 'done');
  assert.equal(progress.at(-1)?.type, 'done');
  for (const e of progress) {
    assert.equal(e.mode, 'workers');
    assert.equal(e.workers, 2);
    assert.equal(e.fallback, null);
    assert.equal(e.tasks, 0);
    assert.deepEqual(e.maxUnits, { planSteps: 0, scanSchedules: 0, shrinkRuns: 0 });
  }
});

test('a worker that cannot start: the search runs on the main thread and every event says why', async () => {
  // Node has no Worker: making one throws, as a script of another origin does in a browser.
  const finder = createFinder({ inline: { glue: '', wasm: () => undefined, api: async () => api } }, { workers: 2 });
  const scenario = glue.presets().find((p) => p.id === 'gc-pause-fenced')?.scenario;
  assert.ok(scenario, 'the preset gc-pause-fenced');
  /** @type {import('../../dist/pkg/fencing_playground.js').FinderEvent[]} */
  const events = [];
  /** @type {string[]} */
  const warned = [];
  const warn = console.warn;
  console.warn = (...args) => warned.push(args.join(' '));
  try {
    await new Promise((resolve, reject) => finder.search(JSON.stringify(scenario), JSON.stringify({ maxFaults: 1, budget: 50 }), (e) => {
      events.push(e);
      if (e.type === 'done') resolve(e);
      else if (e.type === 'error') reject(new Error(e.message));
    }));
  } finally {
    console.warn = warn;
    finder.close();
  }
  const progress = events.filter((e) => e.type === 'progress' || e.type === 'done');
  assert.ok(progress.length > 0);
  for (const e of progress) {
    assert.equal(e.mode, 'main thread');
    assert.match(String(e.fallback), /^no search worker could start \(ReferenceError: Worker is not defined\)$/);
  }
  assert.equal(warned.filter((w) => w.includes('runs on the main thread: no search worker could start')).length, 1, warned.join('\n'));
});

test('a listener that throws stops its search, and the console says so', async () => {
  const finder = createFinder({ inline: { glue: '', wasm: () => undefined, api: async () => api } }, { workers: 0 });
  const scenario = manyClients();
  /** @type {unknown[][]} */
  const errors = [];
  const error = console.error;
  console.error = (...args) => errors.push(args);
  /** @type {string[]} */
  const seen = [];
  let stopped = /** @type {(value?: unknown) => void} */ (() => {});
  const done = new Promise((resolve) => { stopped = resolve; });
  try {
    finder.search(JSON.stringify(scenario), JSON.stringify({ strategy: 'swarm', maxFaults: 4, seed: 0, budget: 100000 }), (e) => {
      seen.push(e.type);
      setTimeout(stopped, 300);
      throw new Error('the listener broke');
    });
    await done;
  } finally {
    console.error = error;
    finder.close();
  }
  // The first progress event throws; the search stops there (it would have run on for many
  // more) and says it was cancelled, which finds no one either.
  assert.deepEqual(seen, ['progress', 'cancelled']);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0][0]), /^fencing playground: search \d+ stopped: its listener threw on a progress event$/);
});
