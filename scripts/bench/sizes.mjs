// Sizes of everything a first visit to dist/index.html downloads: raw, gzip -9, brotli -q 11.
// `--check` fails when the brotli total is more than 15% over the 60 KB budget; sizes are
// deterministic, so this guard runs in the test command. `--json` prints machine-readable rows.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants as z } from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const BUDGET_BYTES = 60_000;
export const GUARD_BYTES = Math.round(BUDGET_BYTES * 1.15);
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

/** The files index.html pulls in on a first visit, in the order the page requests them. */
export const FIRST_VISIT = [
  'index.html',
  'www/style.css',
  'www/main.js',
  'www/favicon.svg',
  'pkg/fencing_playground.js',
  'pkg/fencing_playground_bg.wasm',
];

export function measure(files = FIRST_VISIT) {
  const rows = files.map((f) => {
    const path = dist + f;
    if (!existsSync(path)) throw new Error(`missing ${path}: run scripts/build.sh first`);
    const b = readFileSync(path);
    return {
      file: f,
      raw: b.length,
      gzip: gzipSync(b, { level: 9 }).length,
      brotli: brotliCompressSync(b, {
        params: { [z.BROTLI_PARAM_QUALITY]: 11, [z.BROTLI_PARAM_SIZE_HINT]: b.length },
      }).length,
    };
  });
  const total = rows.reduce(
    (t, r) => ({ file: 'total', raw: t.raw + r.raw, gzip: t.gzip + r.gzip, brotli: t.brotli + r.brotli }),
    { file: 'total', raw: 0, gzip: 0, brotli: 0 },
  );
  return { rows, total };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, total } = measure();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ rows, total, budget: BUDGET_BYTES, guard: GUARD_BYTES }));
  } else {
    for (const r of [...rows, total]) {
      console.log(`${r.file.padEnd(34)} ${String(r.raw).padStart(9)} ${String(r.gzip).padStart(8)} ${String(r.brotli).padStart(8)}`);
    }
  }
  if (process.argv.includes('--check')) {
    if (total.brotli > GUARD_BYTES) {
      console.error(`size guard: first visit is ${total.brotli} B brotli, over ${GUARD_BYTES} B (budget ${BUDGET_BYTES} B + 15%)`);
      process.exit(1);
    }
    console.log(`size guard: ${total.brotli} B brotli ≤ ${GUARD_BYTES} B (budget ${BUDGET_BYTES} B + 15%)`);
  }
}
