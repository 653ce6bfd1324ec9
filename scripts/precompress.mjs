#!/usr/bin/env node
// @ts-check
// Writes `FILE.br` (brotli quality 11) and `FILE.gz` (gzip -9) beside every compressible file
// under a folder, as static hosts precompress (nginx `brotli_static` / `gzip_static`, Netlify,
// Cloudflare Pages): the compression a first visit gets, with the same settings as the size
// guard (scripts/bench/sizes.mjs), through scripts/compress.mjs, which keeps what it compressed
// for the next build. scripts/serve.mjs sends them to browsers that accept them.
//
//   node scripts/precompress.mjs dist
import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { compress, trimCache } from './compress.mjs';
import { COMPRESSIBLE } from './serve.mjs';

const root = process.argv[2];
if (!root) {
  console.error('usage: node scripts/precompress.mjs DIR');
  process.exit(2);
}

/**
 * @param {string} dir
 * @returns {Generator<string>}
 */
function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile() && COMPRESSIBLE.has(extname(entry.name).toLowerCase())) yield path;
  }
}

let count = 0;
for (const path of [...files(root)]) {
  const raw = readFileSync(path);
  const { br, gz } = compress(raw);
  writeFileSync(path + '.br', br);
  writeFileSync(path + '.gz', gz);
  count++;
  if (statSync(path).mtimeMs > statSync(path + '.br').mtimeMs) throw new Error(`clock skew writing ${path}.br`);
}
trimCache();
console.log(`[precompress] ${count} files under ${root}: .br (brotli 11) and .gz (gzip -9) beside each`);
