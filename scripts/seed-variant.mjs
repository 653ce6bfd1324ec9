// @ts-check
// Gives a release variant's target directory the dependencies the page's release build compiled,
// as hard links: `node scripts/seed-variant.mjs FROM TO` links every file under FROM's
// wasm32-unknown-unknown/release and release (the build scripts and proc macros) into the same
// place under TO, where TO has no such file yet, except this crate's own files. The variants
// (scripts/build.sh: the search workers' and the first stage's) compile the same dependencies
// with the same features and profile, so cargo finds them fresh and compiles only the crate
// itself; on a bare machine that is two release builds of Yew, web-sys, serde and the rest
// (about 70 cpu-s each) not done. The crate's own library is never linked: cargo keeps one
// build of it per directory whatever its features (its cdylib and rlib names carry no hash), so
// each variant keeps its own.
// Files already in TO are left alone (a variant's own build of a dependency stays), and a file
// is linked, never copied: a dependency cargo rebuilds is written as a new file, not into the
// shared one.
import { existsSync, linkSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  console.error('usage: node scripts/seed-variant.mjs FROM_TARGET_DIR TO_TARGET_DIR');
  process.exit(2);
}

/** This crate's own outputs and fingerprints, which each directory keeps for itself. */
const own = (/** @type {string} */ name) =>
  name.includes('fencing_playground') || name.startsWith('fencing-playground-');

let linked = 0;
/** @param {string} src @param {string} dst */
function walk(src, dst) {
  mkdirSync(dst, { recursive: true });
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    if (own(entry.name)) continue;
    const s = join(src, entry.name);
    const d = join(dst, entry.name);
    if (entry.isDirectory()) {
      walk(s, d);
    } else if (entry.isFile() && !existsSync(d)) {
      linkSync(s, d);
      linked += 1;
    }
  }
}

for (const profile of ['wasm32-unknown-unknown/release', 'release']) {
  for (const part of ['deps', 'build', '.fingerprint']) {
    const src = join(from, profile, part);
    if (existsSync(src)) walk(src, join(to, profile, part));
  }
}
console.log(`[build] ${to}: ${linked} files of the page's release dependencies linked in`);
