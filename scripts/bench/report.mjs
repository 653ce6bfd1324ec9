// @ts-check
// Turns the benchmark outputs in a folder into BENCHMARKS.md (printed to stdout), with the
// date, the machine and each budget met or missed.
import { readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import os from 'node:os';
import { dragBudgetRows, dragSection } from './drag-report.mjs';

/**
 * The outputs read here, as the scripts that write them print them (the native ones come from
 * the Rust examples `scripts/bench.sh` runs).
 * @typedef {{ file: string, raw: number, gzip: number, brotli: number }} SizeRow
 * @typedef {{ rows: SizeRow[], total: SizeRow, full: { rows: SizeRow[], total: SizeRow },
 *   budget: number, ceiling: number, fullCeiling: number }} Sizes
 * @typedef {{ median: number, p95: number, min: number, runs: number }} Loads
 * @typedef {{ events: number, seconds: number, eventsPerSecond: number }} Throughput
 * @typedef {Throughput & { parseSeconds: number, jsParseSeconds: number, traceChars: number }} WasmThroughput
 * @typedef {{ id: string, what: string, accepted: boolean, seconds: number, error?: string, traceBytes: number }} WorstCase
 * @typedef {{ size: number, cases: WorstCase[], doubling: { n: number, seconds: number }[] }} WorstNative
 * @typedef {{ cases: { id: string, seconds: number }[] }} WorstWasm
 */

const dir = process.argv[2];
/** @param {string} f */
const json = (f) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
/** @type {Sizes} */
const sizes = json('sizes.json');
/** @type {{ served: Loads, file: Loads }} */
const render = json('render.json');
/** @type {Throughput} */
const native = json('native.json');
/** @type {WasmThroughput} */
const wasm = json('wasm.json');
/** @type {import('./drag-report.mjs').DragBench} */
const drag = json('drag.json');
/** @type {import('./drag-report.mjs').DragBench} */
const drag4x = json('drag-4x.json');
const phases = readFileSync(`${dir}/phases.txt`, 'utf8').trim();
/** @param {string} cmd */
const sh = (cmd) => { try { return execSync(cmd, { encoding: 'utf8' }).trim(); } catch { return 'unknown'; } };

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
/** @param {number} b */
const kb = (b) => (b / 1000).toFixed(1);
/** @param {number} x */
const ms = (x) => x.toFixed(1);
/** @param {boolean} ok */
const verdict = (ok) => (ok ? 'met' : '**missed**');
const ratio = native.eventsPerSecond / wasm.eventsPerSecond;
/** @type {WorstNative} */
const worst = json('worst-native.json');
/** @type {WorstWasm} */
const worstWasmRuns = json('worst-wasm.json');
const worstWasm = Object.fromEntries(worstWasmRuns.cases.map((c) => [c.id, c]));
const worstRows = worst.cases.map((c) => ({ ...c, wasm: worstWasm[c.id] ?? { seconds: -1 } }));
/** @param {(typeof worstRows)[number]} c */
const worstMet = (c) => c.accepted && c.seconds >= 0 && c.seconds <= 0.25 && c.wasm.seconds >= 0 && c.wasm.seconds <= 1 && c.traceBytes <= 10_000_000;
const doublings = worst.doubling.slice(1).map((d, i) => d.seconds / worst.doubling[i].seconds);

const lines = [];
lines.push('# Benchmarks', '');
lines.push(`Measured ${new Date().toISOString().slice(0, 10)} by \`bash scripts/bench.sh\` on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${sh('uname -sr')}, ${sh('rustc --version')}, ${sh('/usr/bin/chromium --version 2>/dev/null')}, Node ${process.version}.`, '');
// The same machine type is not always as fast: a fixed workload (the native run of the 10 000-event
// scenario below, whose code has not changed since) says how this day's machine compares with
// the one most budgets were checked on.
const REFERENCE_NATIVE_S = 0.032; // 2026-11-30
const speed = native.seconds / REFERENCE_NATIVE_S;
lines.push(`**Machine speed:** the native \`simulate()\` run of the 10 000-event scenario (below) took ${native.seconds.toFixed(3)} s; on 2026-11-30, when most time budgets were last checked, the same code took ${REFERENCE_NATIVE_S.toFixed(3)} s (${speed.toFixed(1)}×).${speed > 1.3 ? ' Every time on this page comes from a machine that much slower; the figures of 2026-11-30 for nearly the same code were: first render 166 ms served (met), drag p95 2.2 ms unthrottled (met) and 9.5 ms at 4× (missed); see the history of this file. Times here compare with each other only; sizes do not depend on the machine.' : ''}`, '');
lines.push('## Budgets', '');
lines.push('| budget | measured | |', '|---|---|---|');
lines.push(`| first visit ≤ ${kb(sizes.budget)} KB brotli | ${kb(sizes.total.brotli)} KB | ${verdict(sizes.total.brotli <= sizes.budget)} |`);
lines.push(`| first render served ≤ 200 ms (median) | ${ms(render.served.median)} ms | ${verdict(render.served.median <= 200)} |`);
lines.push(`| first render from file:// ≤ 250 ms (median) | ${ms(render.file.median)} ms | ${verdict(render.file.median <= 250)} |`);
lines.push(...dragBudgetRows(drag, drag4x));
lines.push(`| wasm simulate() within 2× native | ${ratio.toFixed(2)}× | ${verdict(ratio <= 2)} |`);
lines.push(`| every worst case ≤ 250 ms native, ≤ 1 s wasm, trace ≤ 10 MB | ${worstRows.filter(worstMet).length} of ${worstRows.length} | ${verdict(worstRows.every(worstMet))} |`);
lines.push(`| checker + narration ≤ 2.3× per doubling of debits | ${Math.max(...doublings).toFixed(2)}× at most | ${verdict(Math.max(...doublings) <= 2.3)} |`, '');
lines.push('## First visit: what index.html downloads before it answers a drag', '');
lines.push('A first visit (no link, nothing saved) is drawn and dragged by the first stage (a small wasm without Yew); the full page comes after it. A link or a later visit starts with the full page.', '');
lines.push('| file | raw (B) | gzip -9 (B) | brotli -q 11 (B) |', '|---|---:|---:|---:|');
for (const r of [...sizes.rows, sizes.total]) lines.push(`| ${r.file} | ${r.raw} | ${r.gzip} | ${r.brotli} |`);
lines.push('', 'What the full page adds:', '', '| file | raw (B) | gzip -9 (B) | brotli -q 11 (B) |', '|---|---:|---:|---:|');
for (const r of [...sizes.full.rows, sizes.full.total]) lines.push(`| ${r.file} | ${r.raw} | ${r.gzip} | ${r.brotli} |`);
lines.push('', `The test command's size guard (\`node scripts/bench/sizes.mjs --check\`) fails when the first visit is over the budget or over its regression ceiling of ${sizes.ceiling} B brotli, or the full page's glue and wasm over theirs, ${sizes.fullCeiling} B (each the size measured when the guard was set, plus 2%).`, '');
lines.push('## First render', '', 'Navigation start to the first `<svg data-testid="timeline">` in the DOM, fresh context per load.', '');
lines.push('| page | loads | median (ms) | p95 (ms) | min (ms) |', '|---|---:|---:|---:|---:|');
for (const [name, r] of /** @type {const} */ ([['served (127.0.0.1)', render.served], ['single file (file://)', render.file]])) {
  lines.push(`| ${name} | ${r.runs} | ${ms(r.median)} | ${ms(r.p95)} | ${ms(r.min)} |`);
}
lines.push('', ...dragSection(drag, drag4x));
lines.push('## simulate() throughput', '', `A generated scenario of ${native.events} events (10 clients taking turns, with pauses, renewals, releases and delayed debits): parse, run, serialize the trace; best of 5.`, '');
lines.push('| where | seconds | events per second |', '|---|---:|---:|');
lines.push(`| native (release) | ${native.seconds.toFixed(3)} | ${native.eventsPerSecond} |`);
lines.push(`| wasm in Node (release, opt-level z) | ${wasm.seconds.toFixed(3)} | ${wasm.eventsPerSecond} |`);
lines.push('', `wasm / native time ratio: ${ratio.toFixed(2)}×.`, '');
lines.push(`Native phases (last of 3): ${phases}.`, '');
lines.push(`In wasm, parsing and validating alone take ${(wasm.parseSeconds * 1000).toFixed(1)} ms, and the JS side's \`JSON.parse\` of the ${(wasm.traceChars / 1e6).toFixed(1)} MB trace text takes ${(wasm.jsParseSeconds * 1000).toFixed(1)} ms of the ${(wasm.seconds * 1000).toFixed(1)} ms.`, '');
lines.push('## Worst cases', '', `The scenarios of \`tests/worst/cases.rs\` at size ${worst.size} (entries in all lists together; the caps' size), each parsed, run and serialized: best of 3, natively (\`examples/worst.rs\`) and in wasm under Node through \`dist/pkg/\` (\`scripts/bench/worst-wasm.mjs\`).`, '');
lines.push('| case | what | native (ms) | wasm (ms) | trace (MB) | |', '|---|---|---:|---:|---:|---|');
for (const c of worstRows) {
  lines.push(`| ${c.id} | ${c.what} | ${c.accepted ? (c.seconds * 1000).toFixed(1) : 'refused: ' + c.error} | ${c.wasm.seconds >= 0 ? (c.wasm.seconds * 1000).toFixed(1) : '–'} | ${(c.traceBytes / 1e6).toFixed(2)} | ${verdict(worstMet(c))} |`);
}
lines.push('', 'The checker and the narration alone on one lease with n accepted debits (`debits-in-one-lease`), best of 7:', '');
lines.push('| n | ms | × previous |', '|---:|---:|---:|');
worst.doubling.forEach((d, i) => lines.push(`| ${d.n} | ${(d.seconds * 1000).toFixed(2)} | ${i ? doublings[i - 1].toFixed(2) + '×' : ''} |`));
lines.push('');
lines.push('## Gaps and their causes', '');
if (sizes.total.brotli > sizes.budget) {
  lines.push('- **Size.** The wasm is the whole of the gap; the JS glue, HTML, CSS and icon together are about 7 KB brotli. A build with symbol names, after `wasm-opt -Oz`, has about 700 KB of code (224 KB brotli) and 107 KB of data (the CSS, preset captions, narration and error text; 36 KB brotli). By function name, the code is roughly 250 KB the playground\'s own components and model (Yew\'s `html!` expands every element into construction code; the root view is 32 KB, the Commands view 23 KB), 120 KB Yew\'s runtime (virtual DOM, diff, scheduler, event delegation), 130 KB the simulation core, 120 KB `core`/`alloc`/`std` (collections, iterator adapters, formatting, three std sorts, the drop and clone code of all of the above), 58 KB wasm-bindgen glue and 19 KB serde. Yew and the components alone compress to well over 60 KB, so the budget cannot be met with a Yew front end of this size; no single dependency is the cause.');
  lines.push('  - Done: the scenario reader is written by hand instead of derived by serde (with `serde_path_to_error` for field paths), which took 117 KB raw and 30 KB brotli off the wasm and made parsing about 20% faster. The glue and boot script are minified (terser), 2.9 KB brotli less. Float formatting was already gone from the wasm side.');
  lines.push('  - Done (issue 14): the core\'s sorts share one merge sort (−14.2 KB brotli), lookups-only maps are hash-based (−4.9 KB); the wasm\'s imports get one- or two-letter names in the wasm and its glue together (`scripts/short-imports.mjs`: −3.2 KB brotli wasm, −2.4 KB glue), the CSS ships minified by a `const fn` (−0.6 KB), and release builds compile out Yew\'s `tracing` call sites with `tracing`\'s `release_max_level_off` (nothing subscribes; −41 KB raw, −9.4 KB brotli).');
  lines.push('  - A two-stage page (a small wasm for the first drag, the full app loaded after it) was measured and not built: the same app built with only the verdict and the timeline (every lane, the same runs and `apply`, the hash reader, the CSS and presets; no controls, inspectors, narration, Commands, exports or JS API) is 608 851 B raw, 203.6 KB brotli, 54 KB over the target on its own. Yew\'s runtime (112 KB raw), the core (111 KB), std (113 KB), the glue (30 KB) and serde (14 KB) are about 380 KB raw, roughly 127 KB brotli, before any view or text; the lanes\' views are about 35 KB brotli more. Reaching 150 KB needs a first stage drawn without Yew. Figures in scripts/bench/phone-notes.md.');
  lines.push('  - Measured and not kept: rebuilding `std` with `-Zbuild-std` and immediate-abort panics saves a further 27 KB brotli, but needs unstable features on the stable toolchain (`RUSTC_BOOTSTRAP`) and made parsing about 50% slower (its `std` is built for size). Extra `wasm-opt` passes (`--converge`, `--gufa`) save under 2 KB. Stripping the producers and target-features sections: −213 B raw, +24 B brotli. A page wasm without the JavaScript API (`simulate`, the classes, the link functions: the release package would need a wasm of its own): −26.8 KB raw, −7.1 KB brotli.');
}
if (ratio > 2) {
  lines.push('- **wasm vs native.** The same opt-level `z` code runs slower in wasm: many small calls that native code makes cheaply (byte writes of the JSON serializer, allocation through dlmalloc) cost more, and the wasm side also decodes the 7.8 MB trace text into a JS string and `JSON.parse`s it, work the native run does not have. Building the dependencies at opt-level 3 moved the ratio by about 0.1× for 9 KB more brotli; opt-level 3 for everything gives about 2.5× at +40% size. Neither was kept, as size is the budget a reader pays for.');
}
for (const c of worstRows.filter((c) => !worstMet(c))) {
  const why = c.id === 'overlapping-slews'
    ? 'every reading of a clock adds up each slew still running (the floor of each slew\'s share, kept exact so that one slew reads as it always did), so thousands of slews running at once make every reading cost thousands of terms; the caps bound how many jumps a clock has, not how many run at once.'
    : 'see the table above.';
  lines.push(`- **Worst case ${c.id}.** ${why}`);
}
lines.push('');
process.stdout.write(lines.join('\n'));
