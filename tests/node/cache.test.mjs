// The shared target directory (scripts/cache.sh, scripts/restore-mtimes.mjs), tried with real
// git clones and real cargo builds of a one-file crate: a second clone reuses the first's build,
// a changed file is recompiled (also when the content comes back after another content was
// built), and a build made outside a run makes the next run forget what it knew.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const scripts = fileURLToPath(new URL('../../scripts/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'fp-cache-'));
const origin = join(work, 'origin');
const cacheDir = join(work, 'cache');
/** @param {string} cwd @param {...string} args */
const git = (cwd, ...args) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd }).toString();

// A repository shaped like this one as far as cache.sh cares: rust-toolchain.toml
// (the key), a lock file and scripts/ with the two files under test.
mkdirSync(join(origin, 'src'), { recursive: true });
mkdirSync(join(origin, 'scripts'));
cpSync(join(scripts, 'cache.sh'), join(origin, 'scripts/cache.sh'));
cpSync(join(scripts, 'restore-mtimes.mjs'), join(origin, 'scripts/restore-mtimes.mjs'));
writeFileSync(
  join(origin, 'Cargo.toml'),
  '[package]\nname = "probe"\nversion = "0.1.0"\nedition = "2021"\n[workspace]\n',
);
writeFileSync(join(origin, 'Cargo.lock'), 'version = 3\n\n[[package]]\nname = "probe"\nversion = "0.1.0"\n');
cpSync(fileURLToPath(new URL('../../rust-toolchain.toml', import.meta.url)), join(origin, 'rust-toolchain.toml'));
/** @param {string} text */
const setSource = (text) => writeFileSync(join(origin, 'src/main.rs'), `fn main() { println!("${text}"); }\n`);
setSource('one');
git(origin, 'init', '-q');
git(origin, 'add', '.');
git(origin, 'commit', '-q', '-m', 'one');

let clones = 0;
/** A fresh clone of the origin, built once through the shared target as the test command does. */
function run(after = '') {
  clones += 1;
  const dir = join(work, `clone-${clones}`);
  git(work, 'clone', '-q', origin, dir);
  const script = `
    set -euo pipefail
    source scripts/cache.sh
    shared_target
    cargo build 2>&1
    "$CARGO_TARGET_DIR/debug/probe"
    shared_target_end
    ${after}
  `;
  const out = execFileSync('bash', ['-c', script], {
    cwd: dir,
    env: { ...process.env, FENCING_CACHE_DIR: cacheDir, CARGO_TERM_COLOR: 'never' },
  }).toString();
  rmSync(dir, { recursive: true, force: true });
  return out;
}
/** @param {string} out */
const compiled = (out) => /Compiling probe/.test(out);

test('a second clone of the same commit compiles nothing', () => {
  const first = run();
  assert.ok(compiled(first), first);
  assert.match(first, /^one$/m);
  const second = run();
  assert.ok(!compiled(second), second);
  assert.match(second, /^one$/m);
});

test('a changed file is compiled again, and so is a content that comes back', () => {
  setSource('two');
  git(origin, 'commit', '-q', '-am', 'two');
  const changed = run();
  assert.ok(compiled(changed), changed);
  assert.match(changed, /^two$/m);
  setSource('one');
  git(origin, 'commit', '-q', '-am', 'back to one');
  const back = run();
  assert.ok(compiled(back), back);
  assert.match(back, /^one$/m);
  assert.ok(!compiled(run()));
});

test('a build outside a run makes the next run forget the manifest', () => {
  // As if someone built into the shared directory by hand after the last run ended.
  run('sleep 1; find "$CARGO_TARGET_DIR" -path "*/.fingerprint/*" -exec touch {} +');
  const next = run();
  assert.match(next, /holds a build newer than the last run's end/);
  assert.ok(compiled(next), next);
  assert.match(next, /^one$/m);
});

test('a run that never ended makes the next one forget the manifest', () => {
  run('rm -f "$CARGO_TARGET_DIR/.run-ended"');
  const next = run();
  assert.match(next, /did not end/);
  assert.ok(compiled(next), next);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
