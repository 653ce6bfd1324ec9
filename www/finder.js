// @ts-check
// "Find a failure" off the main thread. The page's wasm has no search in it: this module, the
// search wasm (dist/pkg-search/, the core and the search API without the front end) and the
// workers are loaded only when the reader opens the panel or presses Search.
//
// Three ways to run, tried in this order:
//   - served page: one module worker per core (up to navigator.hardwareConcurrency, at most
//     MAX_WORKERS) from the same-origin file www/search-worker.js (the CSP's `script-src 'self'`
//     covers it; blob workers it would refuse), each given the wasm module compiled once here;
//   - single file from file:// (scripts/build-single.sh): classic blob workers made of the
//     no-modules glue and makeHandler's source, with the wasm bytes posted in (Chromium refuses
//     module workers and wasm fetches there);
//   - no worker can start (a cross-origin embed, workers blocked): the same handler on the
//     main thread, every step in slices of about SLICE_MS (the 8 ms the issue allows, halved):
//     the plan (the scenario's first run, which also compiles the wasm code it reaches),
//     the scan, the shrink and the report, each message a task of its own.
//
// The schedules are numbered (sim::search::Plan). Blocks of numbers are handed out in
// increasing order to whichever runner is free; a block reports its first failing number.
// Once a failure is known no block starting after it is handed out, and the answer is the
// lowest failing number of all blocks: the same whatever the number of workers. One runner
// then shrinks it and writes the report (SearchPlan.finish).

/**
 * The search package's API, as this module calls it.
 * @typedef {import('../pkg-search/search.js').SearchPlan} SearchPlan
 * @typedef {import('../pkg-search/search.js').SearchPlanning} SearchPlanning
 * @typedef {import('../pkg-search/search.js').SearchSpec} SearchSpec
 * @typedef {WebAssembly.Module | BufferSource | undefined} WasmSource what `init` instantiates
 *   (undefined: the package's own URL)
 * @typedef {object} HandlerApi what a handler needs: the search package, initialised by `init`
 * @property {(wasm: WasmSource) => Promise<unknown>} init
 * @property {typeof import('../pkg-search/search.js').SearchPlan} SearchPlan
 * @property {typeof import('../pkg-search/search.js').SearchPlanning} [SearchPlanning] on the
 *   main thread only
 *
 * The messages a runner handles, and the reply each one gets (every reply to a message with an
 * `id` carries it, and `ms`, the time the message took).
 * @typedef {{ type: 'init', wasm: WasmSource, id?: undefined }
 *   | { type: 'plan' | 'plan-start', id: number, scenario: string, spec: string }
 *   | { type: 'plan-step', id: number, steps: number }
 *   | { type: 'plan-end' | 'report' | 'drop', id: number }
 *   | { type: 'scan', id: number, from: number, to: number }
 *   | { type: 'finish' | 'finish-start', id: number, found: number | null, schedules: number }
 *   | { type: 'shrink', id: number, runs: number }} Message
 * @typedef {{ id: number, ms: number }} Timed
 * @typedef {Timed & { type: 'planned', total: number, failsAsIs: boolean }} Planned
 * @typedef {Timed & { type: 'report', report: string }} Reported
 * @typedef {{
 *   init: { type: 'ready' },
 *   plan: Planned,
 *   'plan-start': Timed & { type: 'plan-started' },
 *   'plan-step': Timed & { type: 'plan-stepped', done: boolean },
 *   'plan-end': Planned,
 *   scan: Timed & { type: 'scanned', found: number | null },
 *   finish: Reported,
 *   'finish-start': Timed & { type: 'started' },
 *   shrink: Timed & { type: 'shrunk', done: boolean },
 *   report: Reported,
 *   drop: never,
 * }} ReplyTo
 * @typedef {ReplyTo[keyof ReplyTo] | { type: 'error', id?: number, message: string }} Reply
 */

/** The most workers, whatever the core count says. */
export const MAX_WORKERS = 8;
/** A block's target length in a worker, and on the main thread (slices stay under 8 ms). */
const WORKER_BLOCK_MS = 20;
const SLICE_MS = 4;
/** How often progress is reported, at most. */
const PROGRESS_MS = 100;
/**
 * On the main thread, the most of each unit one task is given, whatever the last task's time
 * says: the scenario's first run and the grid a number of steps at a time, the scan a block of
 * schedules, the shrink a number of runs. The sizes fitted to SLICE_MS never go past them, so a
 * task's work is bounded by its units as well as by the time the last one took. Measured with
 * the release search package under Node on every preset (exhaustive k = 1, swarm k = 2 and 4,
 * the unsafe ones without their pauses) and on tests/node/finder.test.mjs's eight-client search,
 * on the 2-core build machine on 2026-12-01, wall time, once the code is compiled: the worst
 * task at these caps took 0.5 ms (plan), 3.5 ms (scan: 64 schedules of a Redlock preset, up to
 * about 50 µs each) and 2.1 ms (shrink: 32 runs of that eight-client scenario), against the
 * 8 ms a task may take. The first tasks to reach a part of the wasm take up to about 9 ms
 * whatever their units (one unit as long as a full cap): that is V8 compiling the code.
 */
export const MAIN_MAX_PLAN_STEPS = 128;
export const MAIN_MAX_SCAN_BLOCK = 64;
export const MAIN_MAX_SHRINK_RUNS = 32;

/**
 * The message handler a runner uses, for workers and for the main thread alike. `api` gives
 * `init(wasm)` (a promise), `SearchPlan` and (on the main thread) `SearchPlanning`; `post` sends a reply. Self-contained (no free
 * variables), because the file:// blob worker is built from its source text.
 * @param {HandlerApi} api
 * @param {(reply: Reply) => void} post
 * @returns {(message: Message) => void}
 */
export function makeHandler(api, post) {
  /** @type {Map<number, SearchPlan>} */
  const plans = new Map();
  /** @type {Map<number, SearchPlanning>} */
  const plannings = new Map();
  /**
   * @template T
   * @param {Map<number, T>} map
   * @param {number} id
   */
  const get = (map, id) => {
    const found = map.get(id);
    if (found === undefined) throw new Error(`the finder sent a message about search ${id}, which this runner does not have`);
    return found;
  };
  // The spec goes in as the JSON text the page wrote, which the package reads as it reads a
  // spec object (`json_text`, src/api/args.rs), though its declaration (src/api/search.rs)
  // names only `SearchSpec | undefined`.
  const specOf = (/** @type {{ spec: string }} */ m) => /** @type {SearchSpec} */ (/** @type {unknown} */ (m.spec));
  let queue = Promise.resolve();
  const run = async (/** @type {Message} */ m) => {
    const t0 = performance.now();
    // Every reply says how long its message took (`ms`): the main thread keeps its slices short.
    const timed = (/** @type {number} */ id) => ({ id, ms: performance.now() - t0 });
    try {
      if (m.type === 'init') {
        await api.init(m.wasm);
        post({ type: 'ready' });
      } else if (m.type === 'plan') {
        const plan = new api.SearchPlan(m.scenario, specOf(m));
        plans.set(m.id, plan);
        post({ type: 'planned', total: plan.total(), failsAsIs: plan.failsAsIs(), ...timed(m.id) });
      } else if (m.type === 'plan-start') {
        // The same plan in steps (the main thread's way): the scenario and spec read, ...
        if (!api.SearchPlanning) throw new Error('this runner cannot plan in steps (no SearchPlanning)');
        plannings.set(m.id, new api.SearchPlanning(m.scenario, specOf(m)));
        post({ type: 'plan-started', ...timed(m.id) });
      } else if (m.type === 'plan-step') {
        // ... the scenario run at most `steps` actions at a time, then judged, its instants
        // found, and the grid built about `steps` faults at a time, ...
        post({ type: 'plan-stepped', done: get(plannings, m.id).advance(m.steps), ...timed(m.id) });
      } else if (m.type === 'plan-end') {
        // ... and the plan put together (which uses the planning up).
        const plan = get(plannings, m.id).plan();
        plannings.delete(m.id);
        plans.set(m.id, plan);
        post({ type: 'planned', total: plan.total(), failsAsIs: plan.failsAsIs(), ...timed(m.id) });
      } else if (m.type === 'scan') {
        const found = get(plans, m.id).scan(m.from, m.to);
        post({ type: 'scanned', found: found ?? null, ...timed(m.id) });
      } else if (m.type === 'finish') {
        const report = get(plans, m.id).finish(m.found ?? undefined, m.schedules);
        post({ type: 'report', report: JSON.stringify(report), ...timed(m.id) });
      } else if (m.type === 'finish-start') {
        // The same report in steps: a check of the failure found (one run), ...
        get(plans, m.id).startFinish(m.found ?? undefined, m.schedules);
        post({ type: 'started', ...timed(m.id) });
      } else if (m.type === 'shrink') {
        // ... shrinking, at most `runs` runs at a time, ...
        post({ type: 'shrunk', done: get(plans, m.id).shrink(m.runs), ...timed(m.id) });
      } else if (m.type === 'report') {
        // ... and the replay and the words (three runs).
        post({ type: 'report', report: JSON.stringify(get(plans, m.id).report()), ...timed(m.id) });
      } else if (m.type === 'drop') {
        for (const map of [plans, plannings]) {
          map.get(m.id)?.free();
          map.delete(m.id);
        }
      }
    } catch (err) {
      post({ type: 'error', id: m.id, message: err instanceof Error ? err.message : String(err) });
    }
  };
  // One message at a time, in order, even while init() awaits.
  return (m) => {
    queue = queue.then(() => run(m));
  };
}

/**
 * A runner: `request(message)` resolves with its reply, in order.
 * @typedef {import('../pkg/fencing_playground.js').FinderProgress['mode']} Mode where a search
 *   runs, in the words src/ui/finder.rs reads (declared once, in src/api/mod.rs)
 * @typedef {object} Runner
 * @property {Mode} kind
 * @property {(reply: Reply) => void} receive
 * @property {(err: Error) => void} fail
 * @property {<M extends Message>(message: M) => Promise<ReplyTo[M['type']]>} request
 * @property {(message: Message) => void} post a message that gets no reply (drop)
 * @property {() => void} terminate
 * @property {number} slowestTaskMs on the main thread, the longest task of the search
 * @property {(id: number) => Work} work what the main thread did for search `id` (nothing, in a
 *   worker runner)
 *
 * The main thread's work for one search: `tasks`, how many of its tasks ran search work (one
 * per message handled: all but `init` and `drop`), and `maxUnits`, the most of each unit one of
 * them was given (plan steps, schedules scanned, shrink runs).
 * @typedef {import('../pkg/fencing_playground.js').FinderProgress['maxUnits']} Units
 * @typedef {{ tasks: number, maxUnits: Units }} Work
 */

/** @returns {Work} */
const noWork = () => ({ tasks: 0, maxUnits: { planSteps: 0, scanSchedules: 0, shrinkRuns: 0 } });

/**
 * @param {(message: Message) => void} send
 * @param {Mode} kind
 * @param {() => void} terminate
 * @returns {Runner}
 */
function runner(send, kind, terminate) {
  /** @type {{ resolve: (reply: any) => void, reject: (err: Error) => void }[]} */
  const waiting = [];
  return {
    kind,
    receive(reply) {
      const next = waiting.shift();
      if (!next) {
        // Only `drop` is sent without waiting for a reply, and it has none unless it failed.
        if (reply.type === 'error') console.warn(`fencing playground: the search runner failed on a message no one waits for: ${reply.message}`);
        return;
      }
      if (reply.type === 'error') next.reject(new Error(reply.message));
      else next.resolve(reply);
    },
    fail(err) {
      for (const w of waiting.splice(0)) w.reject(err);
    },
    request(message) {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        send(message);
      });
    },
    post(message) {
      send(message);
    },
    terminate,
    slowestTaskMs: 0,
    work: noWork,
  };
}

/**
 * A worker runner. `make` throws when the worker cannot be made (a script of another origin,
 * a policy that refuses workers): that error is the caller's.
 * @param {() => Worker} make
 */
function workerRunner(make) {
  const worker = make();
  const r = runner((m) => worker.postMessage(m), 'workers', () => worker.terminate());
  worker.onmessage = (e) => r.receive(e.data);
  worker.onerror = (e) => {
    e.preventDefault?.();
    r.fail(new Error(e.message || 'the search worker failed to start'));
  };
  return r;
}

/**
 * The main-thread runner: the handler between tasks, so the page keeps answering. Each message
 * is handled in a task of its own (a MessageChannel task, not a 4 ms timer); `slowestTaskMs`
 * is the longest of them, from the task's start to the next message sent (the handler's work
 * and what the search did with its reply: progress, the next block). `work(id)` counts the
 * tasks of search `id` and the most units one was given.
 * @param {HandlerApi} api
 */
function mainRunner(api) {
  const handle = makeHandler(api, (reply) => r.receive(reply));
  const channel = new MessageChannel();
  /** @type {Message[]} */
  const pending = [];
  /** @type {number | null} */
  let taskStart = null;
  /** @type {Map<number, Work>} */
  const works = new Map();
  /** @param {Message} m */
  const count = (m) => {
    if (m.type === 'init') return;
    if (m.type === 'drop') {
      works.delete(m.id);
      return;
    }
    const w = works.get(m.id) ?? noWork();
    works.set(m.id, w);
    w.tasks++;
    const units = w.maxUnits;
    if (m.type === 'plan-step') units.planSteps = Math.max(units.planSteps, m.steps);
    else if (m.type === 'scan') units.scanSchedules = Math.max(units.scanSchedules, m.to - m.from);
    else if (m.type === 'shrink') units.shrinkRuns = Math.max(units.shrinkRuns, m.runs);
  };
  channel.port1.onmessage = () => {
    const m = pending.shift();
    if (!m) return;
    // Timed from here to the next message sent: every message but init (which awaits the wasm's
    // instantiation) and drop (which sends nothing after it) sends the next within its task.
    taskStart = m.type === 'init' || m.type === 'drop' ? null : performance.now();
    count(m);
    handle(m);
  };
  const r = runner((m) => {
    if (taskStart !== null) r.slowestTaskMs = Math.max(r.slowestTaskMs, performance.now() - taskStart);
    taskStart = null;
    pending.push(m);
    channel.port2.postMessage(0);
  }, 'main thread', () => channel.port1.close());
  r.work = (id) => works.get(id) ?? noWork();
  return r;
}

/**
 * An error in words, with its name when that says more than "Error" (a DOMException's
 * "SecurityError", say).
 * @param {unknown} err
 */
const described = (err) => {
  if (!(err instanceof Error)) return String(err);
  return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
};

/**
 * A number of steps fitted to SLICE_MS from the last slice's `ms`, growing by half at most, and
 * never past `cap`.
 * @param {number} n
 * @param {number} ms
 * @param {number} cap
 */
const fitted = (n, ms, cap) => Math.max(1, Math.min(Math.ceil(n * 1.5), Math.floor((n * SLICE_MS) / Math.max(ms, 0.25)), cap));

/**
 * Plans on the main thread in slices: the scenario read, its run a few actions at a time (its
 * first calls also compile the wasm code they reach), its judgement, the grid's instants, the
 * grid a few faults at a time. `onReply` sees every reply.
 * @param {Runner} r
 * @param {number} id
 * @param {string} scenario
 * @param {string} spec
 * @param {(reply: Timed) => void} onReply
 */
async function planInSlices(r, id, scenario, spec, onReply) {
  onReply(await r.request({ type: 'plan-start', id, scenario, spec }));
  let steps = 4;
  for (;;) {
    const reply = await r.request({ type: 'plan-step', id, steps });
    onReply(reply);
    if (reply.done) break;
    steps = fitted(steps, reply.ms, MAIN_MAX_PLAN_STEPS);
  }
  return r.request({ type: 'plan-end', id });
}

/**
 * Shrinks and reports on the main thread in slices of about SLICE_MS: `finish-start`, then
 * `shrink` with a number of runs fitted to the time the last slice took, then `report`. The
 * report is the one `finish` gives in one call (tests/search.rs). Null when cancelled.
 * @param {Runner} r
 * @param {number} id
 * @param {number | null} found
 * @param {number} schedules
 * @param {{ cancelled: boolean }} job
 * @param {(reply: Timed) => void} onReply
 */
async function finishInSlices(r, id, found, schedules, job, onReply) {
  onReply(await r.request({ type: 'finish-start', id, found, schedules }));
  let runs = 4;
  for (;;) {
    if (job.cancelled) return null;
    const reply = await r.request({ type: 'shrink', id, runs });
    onReply(reply);
    if (reply.done) break;
    runs = fitted(runs, reply.ms, MAIN_MAX_SHRINK_RUNS);
  }
  const reply = await r.request({ type: 'report', id });
  onReply(reply);
  return reply.report;
}

/**
 * `source` says where the code is: `{ worker, glue, wasm }` URLs (the served page), or
 * `{ inline: { glue, wasm, api } }` (the single file: the no-modules glue's text, a function
 * returning the wasm bytes, and the glue's API on the main thread). `options.workers` caps the
 * number of workers (0: the main thread only).
 * @typedef {{ worker: string, glue: string, wasm: string, inline?: undefined }
 *   | { inline: { glue: string, wasm: () => WasmSource, api: () => Promise<HandlerApi> } }} Source
 * @typedef {import('../pkg/fencing_playground.js').Finder & { close(): void }} SearchFinder
 * @param {Source} source
 * @param {{ workers?: number }} [options]
 * @returns {SearchFinder}
 */
export function createFinder(source, options = {}) {
  /**
   * The runners: the workers, or the main thread, and then `fallback`, why not the workers.
   * @type {Promise<{ runners: Runner[], fallback: string | null }> | undefined}
   */
  let pool;
  let ids = 0;
  const wanted = () => {
    const cores = Math.floor(Number(navigator.hardwareConcurrency)) || 1;
    const cap = options.workers ?? MAX_WORKERS;
    return Math.max(0, Math.min(cores, cap, MAX_WORKERS));
  };

  /** @returns {Promise<HandlerApi>} */
  async function mainApi() {
    if (source.inline) return source.inline.api();
    /** @type {typeof import('../pkg-search/search.js')} */
    const glue = await import(source.glue);
    return {
      init: (wasm) => glue.default({ module_or_path: wasm }),
      SearchPlan: glue.SearchPlan,
      SearchPlanning: glue.SearchPlanning,
    };
  }

  async function startPool() {
    const n = wanted();
    /** @type {WasmSource} */
    let wasm;
    /** @type {(() => Worker)[]} */
    let makers = [];
    if (source.inline) {
      wasm = source.inline.wasm();
      const text = `${source.inline.glue}
const handle = (${makeHandler.toString()})(
  { init: (wasm) => fpSearch({ module_or_path: wasm }), get SearchPlan() { return fpSearch.SearchPlan; } },
  (m) => postMessage(m));
onmessage = (e) => handle(e.data);
`;
      /** @type {string | undefined} */
      let url;
      makers = Array.from({ length: n }, () => () => {
        url ??= URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
        return new Worker(url);
      });
    } else {
      const urls = source;
      const response = fetch(urls.wasm);
      wasm = await WebAssembly.compileStreaming(response).catch(async (err) => {
        // A host that sends the wasm without `Content-Type: application/wasm` refuses streaming
        // compilation; the bytes compile all the same.
        console.warn(`fencing playground: the search's wasm did not compile as it downloaded (${described(err)}); compiling it from its bytes`);
        return WebAssembly.compile(await (await fetch(urls.wasm)).arrayBuffer());
      });
      makers = Array.from({ length: n }, () => () => new Worker(urls.worker, { type: 'module' }));
    }
    /** @type {Runner[]} */
    const runners = [];
    let fallback = 'no workers were asked for';
    if (makers.length) {
      try {
        for (const make of makers) runners.push(workerRunner(make));
        // The bytes are copied to each worker (never transferred: every worker needs them).
        await Promise.all(runners.map((r) => r.request({ type: 'init', wasm })));
        return { runners, fallback: null };
      } catch (err) {
        // A worker that cannot start (a script of another origin, a policy that refuses
        // workers): the search runs on the main thread instead, and says why, in the console
        // and in every event it sends (`fallback`).
        fallback = `no search worker could start (${described(err)})`;
        console.warn(`fencing playground: "Find a failure" runs on the main thread: ${fallback}`);
      }
    }
    for (const r of runners) r.terminate();
    const main = mainRunner(await mainApi());
    await main.request({ type: 'init', wasm });
    return { runners: [main], fallback };
  }

  const getPool = () => {
    pool ??= startPool().catch((err) => {
      pool = undefined;
      throw err;
    });
    return pool;
  };

  return {
    /**
     * Starts the workers (and compiles the wasm) ahead of the first search. Should that fail,
     * the console says so, and the next search starts them again and reports its own failure.
     */
    prepare() {
      getPool().catch((err) => console.warn(`fencing playground: the search could not start ahead of time: ${described(err)}`));
    },

    /** Stops the workers (or the main thread's channel); a later search starts them again. */
    close() {
      const closing = pool;
      pool = undefined;
      closing?.then(
        ({ runners }) => runners.forEach((r) => r.terminate()),
        // Nothing started, so nothing to stop; the failure went to the search or prepare()
        // that was waiting for it.
        () => {},
      );
    },

    /**
     * Searches `scenario` (JSON text) with `spec` (JSON text). `onEvent` gets
     * `{ type: 'progress', done, total, elapsedMs, best, mode, workers, slowestMs,
     * slowestTaskMs, fallback, tasks, maxUnits }` (the longest block or step; on the main
     * thread, the longest task, why the search is not in workers, how many tasks ran search
     * work and the most units one was given; none in workers), then one of `{ type: 'done', report,
     * firstMs, … }`, `{ type: 'cancelled' }`, `{ type: 'error', message }` (FinderEvent in
     * src/api/mod.rs).
     */
    search(scenario, spec, onEvent) {
      const id = ++ids;
      const job = { cancelled: false };
      const t0 = performance.now();
      /** @param {Parameters<typeof onEvent>[0]} e */
      const emit = (e) => {
        try {
          onEvent(e);
        } catch (err) {
          if (job.cancelled) {
            // A page that cancels may stop listening at once (src/ui/controls/find.rs drops its
            // listener when another search starts or the panel goes away), so the events that
            // follow a cancel can find no one: expected, and said only at the debug level.
            console.debug(`fencing playground: search ${id} was cancelled and its listener is gone (${described(err)})`);
          } else {
            // Nobody can hear this search any more: stop it, and say why.
            job.cancelled = true;
            console.error(`fencing playground: search ${id} stopped: its listener threw on a ${e.type} event`, err);
          }
        }
      };
      (async () => {
        const { runners, fallback } = await getPool();
        const mode = runners[0].kind;
        if (mode !== 'workers') runners[0].slowestTaskMs = 0;
        const workers = mode === 'workers' ? runners.length : 0;
        let slowestMs = 0;
        const seen = (/** @type {Timed} */ reply) => {
          slowestMs = Math.max(slowestMs, reply.ms);
        };
        const planned = mode === 'workers'
          ? await Promise.all(runners.map((r) => r.request({ type: 'plan', id, scenario, spec })))
          : [await planInSlices(runners[0], id, scenario, spec, seen)];
        planned.forEach(seen);
        const { total, failsAsIs } = planned[0];
        let next = 0;
        /** @type {number | null} */
        let best = null;
        let done = 0;
        /** @type {number | null} */
        let firstMs = null;
        let lastProgress = 0;
        const progress = () => ({
          type: /** @type {const} */ ('progress'), done, total, elapsedMs: performance.now() - t0, best, mode, workers, slowestMs,
          // On the main thread: the longest task of this search, the finder's own work included.
          slowestTaskMs: mode === 'workers' ? null : runners[0].slowestTaskMs,
          // On the main thread: why not in workers.
          fallback,
          // What the main thread did for this search: its tasks, and the most units in one.
          ...runners[0].work(id),
        });
        const target = mode === 'workers' ? WORKER_BLOCK_MS : SLICE_MS;
        const scan = async (/** @type {Runner} */ r) => {
          // Small first blocks, so that an early failure is seen at once; then blocks of
          // about `target` milliseconds each.
          let size = mode === 'workers' ? 64 : 16;
          while (!job.cancelled && next < total && (best === null || next < best)) {
            const from = next;
            const to = Math.min(total, from + size);
            next = to;
            const reply = await r.request({ type: 'scan', id, from, to });
            slowestMs = Math.max(slowestMs, reply.ms);
            if (reply.found !== null) {
              best = best === null ? reply.found : Math.min(best, reply.found);
              firstMs ??= performance.now() - t0;
              done += reply.found - from + 1;
            } else {
              done += to - from;
            }
            // Grow slowly on the main thread, where a slice must stay short.
            const scale = target / Math.max(reply.ms, 0.25);
            const growth = mode === 'workers' ? 4 : 1.5;
            const cap = mode === 'workers' ? 1 << 20 : MAIN_MAX_SCAN_BLOCK;
            size = Math.max(1, Math.min(Math.ceil(size * growth), Math.floor(size * scale), cap));
            if (performance.now() - lastProgress >= PROGRESS_MS) {
              lastProgress = performance.now();
              emit(progress());
            }
          }
        };
        if (!failsAsIs) await Promise.all(runners.map(scan));
        const cancelled = () => {
          for (const r of runners) r.post({ type: 'drop', id });
          emit({ type: 'cancelled' });
        };
        if (job.cancelled) return cancelled();
        emit(progress());
        const schedules = best === null ? total : best + 1;
        let report;
        if (mode === 'workers') {
          ({ report } = await runners[0].request({ type: 'finish', id, found: best, schedules }));
        } else {
          // One call could take hundreds of runs (tens of ms): the main thread shrinks in slices.
          report = await finishInSlices(runners[0], id, best, schedules, job, seen);
          if (report === null) return cancelled();
        }
        for (const r of runners) r.post({ type: 'drop', id });
        emit({ ...progress(), type: 'done', report, firstMs });
      })().catch((err) => emit({ type: 'error', message: described(err) }));
      return {
        cancel() {
          job.cancelled = true;
        },
      };
    },
  };
}
