// @ts-check
// simulate() throughput in wasm under Node, on the same scenario file as the native example:
// parse, run and serialize the trace. Prints the same JSON shape as examples/throughput.rs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [file, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 5);
const pkg = fileURLToPath(new URL('../../dist/pkg/', import.meta.url));
/** @type {typeof import('../../dist/pkg/fencing_playground.js')} */
const api = await import(pkg + 'fencing_playground.js');
api.initSync({ module: readFileSync(pkg + 'fencing_playground_bg.wasm') });
const text = readFileSync(file, 'utf8');
/** @type {import('../../dist/pkg/fencing_playground.js').Scenario} */
const scenario = JSON.parse(text);
const events = scenario.clients.reduce((n, c) => n + (c.events?.length ?? 0), 0);
let best = Infinity;
let traceBytes = 0;
for (let i = 0; i < repeats; i++) {
  const t0 = performance.now();
  const trace = api.simulate(text);
  best = Math.min(best, (performance.now() - t0) / 1000);
  traceBytes = trace.steps.length;
}
// Where the wasm time goes: parsing and validating alone, and the JS side's JSON.parse of the
// trace text (the same size as the trace the native example serializes).
let parseOnly = Infinity;
for (let i = 0; i < repeats; i++) {
  const t0 = performance.now();
  api.validate(text);
  parseOnly = Math.min(parseOnly, (performance.now() - t0) / 1000);
}
const traceText = JSON.stringify(api.simulate(text));
let jsParse = Infinity;
for (let i = 0; i < repeats; i++) {
  const t0 = performance.now();
  JSON.parse(traceText);
  jsParse = Math.min(jsParse, (performance.now() - t0) / 1000);
}
console.log(JSON.stringify({
  events,
  seconds: best,
  eventsPerSecond: Math.round(events / best),
  steps: traceBytes,
  parseSeconds: parseOnly,
  jsParseSeconds: jsParse,
  traceChars: traceText.length,
}));
