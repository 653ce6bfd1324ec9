// @ts-check
// "Find a failure" throughput in wasm under Node, beside the native figures: the two searches
// the benchmark names (k = 2 over pauses, debit delays and client crashes; they find nothing,
// so they run their whole budget) in one thread, then split between two worker threads, and
// the time to find and shrink the paused-holder double write. Usage:
//   node scripts/bench/search.mjs <native.json> [budget]
// where native.json is what `cargo run --release --example search_bench` printed. Prints a
// Markdown section for BENCHMARKS.md, with the date and commit measured.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import os from 'node:os';
import { measuredCommit } from './measured-commit.mjs';

// The search workers' package (feature search-worker), as the page's finder loads it.
const pkg = fileURLToPath(new URL('../../dist/pkg-search/', import.meta.url));
/** @type {typeof import('../../dist/pkg-search/search.js')} */
const api = await import(pkg + 'search.js');
api.initSync({ module: readFileSync(pkg + 'search_bg.wasm') });

/**
 * @param {number} budget
 * @returns {import('../../dist/pkg-search/search.js').SearchSpec}
 */
const spec = (budget) => ({
  faults: ['pause', 'delay', 'client_crash'], maxFaults: 2, failure: 'stale_write_accepted', budget, strategy: 'exhaustive',
});


if (!isMainThread) {
  // A worker: scan its half of the numbers and say how long it took.
  const { scenario, budget, from, to } = workerData;
  const plan = new api.SearchPlan(scenario, spec(budget));
  const t0 = performance.now();
  const found = plan.scan(from, to);
  if (!parentPort) throw new Error('a worker without its parent port');
  parentPort.postMessage({ found, seconds: (performance.now() - t0) / 1000 });
} else {
  const [nativeFile, budgetArg] = process.argv.slice(2);
  const budget = Number(budgetArg ?? 200000);
  /** @type {{ throughput: { name: string, perSecond: number }[], findAndShrinkSeconds: number }} */
  const native = JSON.parse(readFileSync(nativeFile, 'utf8'));
  /** @param {string} id */
  const preset = (id) => {
    const found = api.presets().find((p) => p.id === id);
    if (!found) throw new Error(`no preset ${id} in this build`);
    return structuredClone(found.scenario);
  };
  /** @param {string} id */
  const withoutPause = (id) => {
    const s = preset(id);
    const events = s.clients[0].events ?? [];
    const i = events.findIndex((e) => e.kind === 'pause');
    if (i >= 0) events.splice(i, 1);
    return s;
  };
  /** @type {[string, import('../../dist/pkg-search/search.js').Scenario][]} */
  const cases = [
    ['two-client GC, strict fencing', withoutPause('gc-pause-fenced')],
    ['five-instance Redlock, non-standard fence', withoutPause('redlock-order-fenced')],
  ];
  /**
   * @param {import('../../dist/pkg-search/search.js').Scenario} scenario
   * @param {number} total
   */
  const halves = (scenario, total) => Promise.all([[0, Math.floor(total / 2)], [Math.floor(total / 2), total]].map(
    ([from, to]) => new Promise((resolve, reject) => {
      const w = new Worker(new URL(import.meta.url), { workerData: { scenario, budget, from, to } });
      w.once('message', (m) => { resolve(m); w.terminate(); });
      w.once('error', reject);
    })));
  const rows = [];
  for (const [name, scenario] of cases) {
    const plan = new api.SearchPlan(scenario, spec(budget));
    const total = plan.total();
    let t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const found = plan.scan(0, total);
    const one = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const oneCpu = (cpu.user + cpu.system) / 1e6;
    plan.free();
    t0 = performance.now();
    await halves(scenario, total);
    const two = (performance.now() - t0) / 1000;
    const n = native.throughput.find((r) => r.name === name);
    rows.push({ name, total, found: found !== undefined, native: n, one, oneCpu, two });
  }
  const story = withoutPause('gc-pause-unfenced');
  let best = Infinity;
  let summary = '';
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = api.search(story, undefined);
    best = Math.min(best, performance.now() - t0);
    summary = r.counterexample?.summary ?? '';
  }
  /** @param {number} n @param {number} s */
  const rate = (n, s) => Math.round(n / s).toLocaleString('en-US');
  const out = [];
  out.push('## Find a failure (search)', '');
  out.push(`Measured ${new Date().toISOString().slice(0, 10)}, at ${measuredCommit()}, by this run of the benchmark command.`, '');
  out.push(`Searches that find nothing, so they run their whole budget: k = 2 over pauses, debit delays and client crashes, failure = stale write accepted, exhaustive over the grid of instants that matter (cut at ${budget} schedules). Machine load while measuring: ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min) on ${os.cpus().length} cores; every figure is wall time except the column per CPU second (the process's own CPU time), which a busy machine distorts least.`, '');
  out.push('| search | schedules | native (schedules/s) | wasm, 1 thread (schedules/s) | wasm, 1 thread per CPU second | wasm, 2 workers (schedules/s) | 2 workers / 1 |');
  out.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    out.push(`| ${r.name} | ${r.total} | ${r.native ? Number(r.native.perSecond).toLocaleString('en-US') : '—'} | ${rate(r.total, r.one)} | ${rate(r.total, r.oneCpu)} | ${rate(r.total, r.two)} | ${(r.one / r.two).toFixed(2)}× |`);
  }
  out.push('');
  out.push(`Find and shrink, gc-pause-unfenced without its pause (default spec: k = 1, exhaustive), best of 5: native ${(native.findAndShrinkSeconds * 1000).toFixed(2)} ms, wasm in Node ${best.toFixed(2)} ms; result: "${summary}".`);
  out.push('');
  const target = rows[0] ? rows[0].total / rows[0].one : 0;
  out.push(`Target ≥ 100 000 schedules/s per worker in wasm on the two-client search: ${target >= 100000 ? 'met' : '**missed**'} (${rate(rows[0].total, rows[0].one)}). Target two workers ≥ 1.8× one: ${rows[0].one / rows[0].two >= 1.8 ? 'met' : '**missed**'}. Found and shrunk ≤ 100 ms: ${best <= 100 ? 'met' : '**missed**'} (in Node; the page's own figures follow).`, '');
  console.log(out.join('\n'));
}
