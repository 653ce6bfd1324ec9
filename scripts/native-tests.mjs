// @ts-check
// Runs the workspace's native test binaries (the libraries', the binaries', tests/suite and
// tests/fuzz, the lab's tests/replay and tests/shim) for some packages only, without building
// anything `cargo test --workspace` has not:
//
//   node scripts/native-tests.mjs --only fencing-lab [--parallel]   the lab's unit and
//                                                                   integration tests
//   node scripts/native-tests.mjs --except fencing-lab              every other package's
//
// --parallel runs the binaries all at once (each one's output is shown whole when it ends):
// the lab's mostly wait on sockets, servers and sleeps.
//
// Why not `cargo test -p …`: cargo unifies the dependencies' features over the packages a command
// names, and the lab's turn on features the playground's alone do not, so a command for part of
// the workspace builds the playground's library again, differently (scripts/test.sh says more).
// Here cargo is asked, for the whole workspace, where its test binaries are (it builds what is
// missing, which after the test command's build is nothing), and each binary of the chosen
// packages is run as `cargo test` runs it: from its package's folder, with CARGO_MANIFEST_DIR set.
// The test command splits the two because the lab's unit tests time real sockets and sleeps: they
// run in the lab's step, the rest beside it on a core of their own.
//
//   node scripts/native-tests.mjs --save FILE    asks cargo once and keeps its answer in FILE;
//   with FENCING_NATIVE_TESTS=FILE set, the two runs above read it instead of asking cargo.
//
// The test command saves the list right after its native build: asking cargo takes the build
// directory's lock, which the wasm32 test build beside the lab holds for minutes from cold, and
// the lab's first step (its own tests) waited for it (about 330 s on a bare machine, 2026-12-07).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const [mode, pkg, ...rest] = process.argv.slice(2);
const parallel = rest.includes('--parallel');
if ((mode !== '--only' && mode !== '--except' && mode !== '--save') || !pkg || rest.some((a) => a !== '--parallel')) {
  console.error('usage: node scripts/native-tests.mjs --only|--except PACKAGE [--parallel] | --save FILE');
  process.exit(2);
}

/** cargo's JSON messages for the test binaries (building what is missing). */
function askCargo() {
  const cargo = spawnSync(
    'cargo',
    ['test', '--workspace', '--lib', '--bins', ...['suite', 'fuzz', 'replay', 'shim'].flatMap((t) => ['--test', t]), '--no-run', '--message-format=json'],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (cargo.status !== 0) {
    console.error(`[native-tests] cargo test --no-run failed (exit ${cargo.status})`);
    process.exit(cargo.status ?? 1);
  }
  return cargo.stdout;
}

if (mode === '--save') {
  writeFileSync(pkg, askCargo());
  process.exit(0);
}
const saved = process.env.FENCING_NATIVE_TESTS;
const messages = saved && existsSync(saved) ? readFileSync(saved, 'utf8') : askCargo();

/** @type {{ name: string, target: string, exe: string, dir: string }[]} */
const binaries = [];
for (const line of messages.split('\n')) {
  if (!line.startsWith('{')) continue;
  const m = JSON.parse(line);
  if (m.reason !== 'compiler-artifact' || !m.executable || !m.profile?.test) continue;
  // package_id: "path+file:///…/lab#fencing-lab@0.1.0" or "…#0.1.0" when the folder is the name.
  const name = m.manifest_path && m.package_id ? packageName(m.package_id, m.manifest_path) : '';
  const chosen = mode === '--only' ? name === pkg : name !== pkg;
  if (chosen) binaries.push({ name, target: m.target.name, exe: m.executable, dir: dirname(m.manifest_path) });
}
if (mode === '--only' && binaries.length === 0) {
  console.error(`[native-tests] no test binary of package ${pkg}`);
  process.exit(1);
}

/** @param {{ name: string, target: string, exe: string, dir: string }} b */
const envOf = (b) => ({ ...process.env, CARGO_MANIFEST_DIR: b.dir, CARGO_PKG_NAME: b.name });
/** @param {{ name: string, target: string }} b @param {number | null} status @param {string | null} signal */
const report = (b, status, signal) => {
  if (status === 0) return 0;
  console.error(`[native-tests] ${b.name}: ${b.target} failed (exit ${status ?? signal})`);
  return 1;
};

let failed = 0;
if (parallel) {
  const runs = binaries.map(
    (b) =>
      /** @type {Promise<number>} */ (
        new Promise((resolve) => {
          const child = spawn(b.exe, [], { cwd: b.dir, env: envOf(b), stdio: ['ignore', 'pipe', 'pipe'] });
          /** @type {Buffer[]} */
          const out = [];
          child.stdout.on('data', (d) => out.push(d));
          child.stderr.on('data', (d) => out.push(d));
          child.on('error', (e) => {
            console.error(`[native-tests] ${b.name}: ${b.target} could not start: ${e.message}`);
            resolve(1);
          });
          child.on('close', (status, signal) => {
            console.log(`\n[native-tests] ${b.name}: ${b.target} (${b.exe})`);
            process.stdout.write(Buffer.concat(out));
            resolve(report(b, status, signal));
          });
        })
      ),
  );
  failed = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
} else {
  for (const b of binaries) {
    console.log(`\n[native-tests] ${b.name}: ${b.target} (${b.exe})`);
    const run = spawnSync(b.exe, [], { cwd: b.dir, stdio: 'inherit', env: envOf(b) });
    failed += report(b, run.status, run.signal);
  }
}
process.exit(failed ? 1 : 0);

/**
 * The package's name from cargo's package id: after '#' comes `name@version`, or the version
 * alone when the name is the folder's.
 * @param {string} id
 * @param {string} manifest
 */
function packageName(id, manifest) {
  const tail = id.slice(id.lastIndexOf('#') + 1);
  const at = tail.indexOf('@');
  if (at > 0) return tail.slice(0, at);
  return dirname(manifest).split('/').at(-1) ?? '';
}
