// @ts-check
// Brotli (quality 11) and gzip (-9) of a file's bytes, the compression a static host serves and
// the size guard counts, for scripts/precompress.mjs and scripts/bench/sizes.mjs alike.
//
// Both are deterministic, and brotli 11 is slow (about 9 s for the whole dist/ on one core of
// the 2-core machine), so each result is kept under the SHA-256 of the bytes and the settings in
// ${FENCING_CACHE_DIR:-~/.cache/fencing-playground}/compressed/: a build where a file did not
// change compresses it again only if the cache was emptied. The cache keeps its newest 3 000
// files (a build writes about 70).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants as z } from 'node:zlib';

const SETTINGS = 'brotli-q11-size-hint/gzip-9';
const KEEP = 3000;

function cacheDir() {
  const root =
    process.env.FENCING_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'fencing-playground');
  return join(root, 'compressed');
}

/**
 * @param {string} dir
 * @param {string} key
 * @param {() => Buffer} make
 */
function cached(dir, key, make) {
  const path = join(dir, key);
  try {
    const hit = readFileSync(path);
    const now = new Date();
    utimesSync(path, now, now); // in use: the trim keeps the newest
    return hit;
  } catch {
    const out = make();
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, out);
      renameSync(tmp, path);
    } catch {
      // A cache that cannot be written only costs time.
    }
    return out;
  }
}

/**
 * The brotli and gzip forms of `raw`.
 * @param {Buffer} raw
 * @returns {{ br: Buffer, gz: Buffer }}
 */
export function compress(raw) {
  const dir = cacheDir();
  const hash = createHash('sha256').update(SETTINGS).update(raw).digest('hex');
  const br = cached(dir, `${hash}.br`, () =>
    brotliCompressSync(raw, { params: { [z.BROTLI_PARAM_QUALITY]: 11, [z.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
  );
  const gz = cached(dir, `${hash}.gz`, () => gzipSync(raw, { level: 9 }));
  return { br, gz };
}

/** Drops the oldest files of the cache past its newest KEEP. */
export function trimCache() {
  const dir = cacheDir();
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.length <= KEEP) return;
  const aged = names
    .map((n) => {
      try {
        return { n, t: statSync(join(dir, n)).mtimeMs };
      } catch {
        return { n, t: 0 };
      }
    })
    .sort((a, b) => b.t - a.t);
  for (const { n } of aged.slice(KEEP)) {
    try {
      unlinkSync(join(dir, n));
    } catch {
      // Another build may have removed it.
    }
  }
}
