// @ts-check
// Minifies JavaScript files in place (the release page's glue and boot script), keeping every
// export and every string, so the wasm imports and the public API keep their names.
//
//   node scripts/minify.mjs FILE...
import { readFileSync, writeFileSync } from 'node:fs';
import { minify } from 'terser';

for (const file of process.argv.slice(2)) {
  const source = readFileSync(file, 'utf8');
  const out = await minify(source, { module: true, compress: true, mangle: true, format: { comments: false } });
  if (typeof out.code !== 'string') throw new Error(`${file}: terser returned no code`);
  writeFileSync(file, out.code);
  console.log(`  ${file}: ${source.length} -> ${out.code.length} bytes`);
}
