// @ts-check
// The worst cases in wasm under Node, through the release package (dist/pkg/): each file of a
// folder written by `cargo run --release --example worst -- --write DIR` is parsed, run and
// serialized by simulate(), best of REPEATS. Prints one JSON object: per case the seconds and
// the length of the trace JSON text.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [dir, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg ?? 3);
const pkg = fileURLToPath(new URL('../../dist/pkg/', import.meta.url));
/** @type {typeof import('../../dist/pkg/fencing_playground.js')} */
const api = await import(pkg + 'fencing_playground.js');
api.initSync({ module: readFileSync(pkg + 'fencing_playground_bg.wasm') });
const cases = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const text = readFileSync(`${dir}/${file}`, 'utf8');
  let best = Infinity;
  let traceChars = 0;
  let error = null;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    try {
      const trace = api.simulate(text);
      best = Math.min(best, (performance.now() - t0) / 1000);
      if (i === 0) traceChars = JSON.stringify(trace).length;
    } catch (e) {
      error = String(e instanceof Error ? e.message : e);
      break;
    }
  }
  const id = file.replace(/\.json$/, '');
  console.error(`[worst-wasm] ${id.padEnd(22)} ${(best * 1000).toFixed(1).padStart(8)} ms`);
  cases.push({ id, seconds: Number.isFinite(best) ? best : -1, traceChars, error });
}
console.log(JSON.stringify({ cases }));
