// The fuzz harness for the JS surface of the release package (dist/pkg), under Node:
// simulate/validate/encodeLink/decodeLink with JS values a JSON file cannot hold (NaN,
// Infinity, -0, undefined, BigInt, cycles, deep nesting), damaged links and random JSON, and
// random sequences of LeaseLock/FencedAccount calls with hostile now() callbacks. It first
// replays every reproducer in tests/fuzz/corpus/, then runs for the given seconds from the
// given seed, reports inputs per second, and saves a reproducer for every failure: a thrown
// value that is not a plain Error (or is the module's own RuntimeError), a message that says
// "internal", validate() and simulate() disagreeing, two runs differing, a link that does not
// survive its round trip, or a module that stops working. A simulate() slower than 1 s (timed
// only while fuzzing, never on replay) is saved into tests/fuzz/slow/ and reported, not failed:
// no test of the project depends on a clock.
//
//   node tests/fuzz/node.mjs [seconds=10] [seed=1]
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';

const root = new URL('../../', import.meta.url);
const pkg = fileURLToPath(new URL('dist/pkg/', root));
const corpus = fileURLToPath(new URL('tests/fuzz/corpus/', root));
const slowDir = fileURLToPath(new URL('tests/fuzz/slow/', root));
let timed = false;
const api = await import(pkg + 'fencing_playground.js');
api.initSync({ module: readFileSync(pkg + 'fencing_playground_bg.wasm') });
const { simulate, validate, encodeLink, decodeLink, presets, LeaseLock, FencedAccount } = api;

const SLOW_MS = 1000;
const seconds = Number(process.argv[2] ?? 10);
const seed = BigInt(process.argv[3] ?? 1);

// SplitMix64, as the native generator: every input follows from the seed.
let state = seed;
const M = (1n << 64n) - 1n;
function next() {
  state = (state + 0x9e3779b97f4a7c15n) & M;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
  return z ^ (z >> 31n);
}
const below = (n) => Number(next() % BigInt(Math.max(1, n)));
const chance = (p) => below(100) < p;
const pick = (xs) => xs[below(xs.length)];

// Values JSON cannot hold travel in reproducers as { "$": "NaN" } and the like, inside a
// one-item list so that even a lone undefined is written.
const encode = (v) => JSON.stringify([v], function (k, x) {
  const raw = this[k];
  if (typeof raw === 'number' && !Number.isFinite(raw)) return { $: String(raw) };
  if (Object.is(raw, -0)) return { $: '-0' };
  if (raw === undefined) return { $: 'undefined' };
  if (typeof raw === 'bigint') return { $: 'bigint', v: String(raw) };
  return x;
});
const decode = (text) => JSON.parse(text, (k, x) => {
  if (x && typeof x === 'object' && !Array.isArray(x) && typeof x.$ === 'string' && Object.keys(x).length <= 2) {
    return { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0, undefined }[x.$] ?? (x.$ === 'bigint' ? BigInt(x.v) : x);
  }
  return x;
})[0];

class Finding extends Error {
  constructor(found, detail) {
    super(detail);
    this.found = found;
  }
}

/** A thrown value must be a plain Error with a message, never the module's own failure. */
function clean(e, what) {
  if (e instanceof Finding) throw e;
  const bad = !(e instanceof Error) || e instanceof WebAssembly.RuntimeError || !e.message
    || /internal|null pointer|recursive use|unreachable|memory access/.test(e.message);
  if (bad) throw new Finding('exception', `${what} threw ${e?.constructor?.name}: ${e?.message ?? e}`);
}

function attempt(f, what) {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    clean(e, what);
    return { ok: false, error: e };
  }
}

const PRESETS = presets().map((p) => p.scenario);
const LINKS = PRESETS.map((s) => encodeLink(s));

/** simulate, validate and the link agree on a scenario given as a JS value or a text. */
function checkScenario(input) {
  const v = attempt(() => validate(input), 'validate');
  if (!v.ok) throw new Finding('exception', `validate threw: ${v.error.message}`);
  const start = performance.now();
  const run = attempt(() => simulate(input), 'simulate');
  let ms = performance.now() - start;
  // A busy machine can stall any one run: only the best of three counts as slow.
  for (let i = 0; timed && ms > SLOW_MS && i < 2; i++) {
    const again = performance.now();
    attempt(() => simulate(input), 'simulate');
    ms = Math.min(ms, performance.now() - again);
  }
  if (v.value.ok !== run.ok) {
    throw new Finding('disagreement', `validate ok=${v.value.ok} but simulate ${run.ok ? 'ran' : `threw ${run.error.message}`}`);
  }
  if (!run.ok) return;
  if (timed && ms > SLOW_MS) throw new Finding('slow', `simulate took ${ms.toFixed(0)} ms`);
  if (chance(10) && JSON.stringify(simulate(input)) !== JSON.stringify(run.value)) {
    throw new Finding('nondeterminism', 'two runs gave different traces');
  }
  const link = encodeLink(input);
  // A link over the decoder's limit (2 000 000 characters, src/link.rs) is refused by design.
  if (link.length > 2_000_000) return;
  const back = attempt(() => decodeLink(link), 'decodeLink');
  if (!back.ok || encodeLink(back.value) !== link) throw new Finding('link-round-trip', 'the scenario did not survive its link');
}

function checkLink(text) {
  const d = attempt(() => decodeLink(text), 'decodeLink');
  if (d.ok) checkScenario(d.value);
}

// ---- generators -------------------------------------------------------------------------

const ODD_ATOMS = [NaN, Infinity, -Infinity, -0, 1e21, 2 ** 53 + 2, 2 ** 33, -1, 0.5, 1e300, undefined, null, '', '5', true, 10_000_001, 4294967296, 10n];
/** An odd value; lists and objects are fresh each time, so no value ever contains itself. */
const odd = () => (chance(10) ? (below(2) ? [] : {}) : pick(ODD_ATOMS));

function leaves(v, path = [], out = []) {
  if (v && typeof v === 'object') {
    out.push(path);
    for (const k of Object.keys(v)) leaves(v[k], [...path, k], out);
  }
  return out;
}

function mutate(v) {
  const path = pick(leaves(v));
  const o = path.reduce((x, k) => x[k], v);
  const keys = Object.keys(o);
  switch (below(6)) {
    case 0: case 1: if (keys.length) o[pick(keys)] = odd(); break;
    case 2: if (keys.length) o[pick(keys)] = below(2) ? below(200) : below(20000); break;
    case 3: if (keys.length) delete o[pick(keys)]; break;
    case 4: if (Array.isArray(o) && o.length) for (let i = below(30); i >= 0; i--) o.push(structuredClone(pick(o))); break;
    default: o[pick(['atMs', 'kind', 'x\u200b', 'ttlMs', 'events'])] = odd();
  }
}

function jsScenario() {
  const v = structuredClone(pick(PRESETS));
  for (let i = below(5); i >= 0; i--) mutate(v);
  return v;
}

/** A mutated preset as JSON text (a BigInt in it cannot be written: the text is then cut). */
function textScenario() {
  const v = jsScenario();
  try {
    return JSON.stringify(v);
  } catch {
    return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? undefined : x)).slice(0, -1);
  }
}

function randomJson(depth = 0) {
  if (depth === 0 && chance(3)) {
    // Nesting deeper than any reader allows.
    let deep = [];
    for (let i = below(1500); i > 0; i--) deep = [deep];
    return { version: 1, clients: deep };
  }
  switch (depth > 4 ? below(4) : below(7)) {
    case 0: return odd();
    case 1: return below(1e6) - 5e5;
    case 2: return pick(['acquire', 'clients', 'version', '']);
    case 3: return null;
    case 4: return Array.from({ length: below(4) }, () => randomJson(depth + 1));
    default: return Object.fromEntries(Array.from({ length: below(4) }, () => [pick(['version', 'clients', 'name', 'events', 'kind', 'atMs', 'lock']), randomJson(depth + 1)]));
  }
}

function damagedLink() {
  const s = [...pick(LINKS)];
  switch (below(4)) {
    case 0: s.length = below(s.length + 1); break;
    case 1: s[below(s.length)] = pick(['A', '_', '=', '#', '%', 'é', '\u200b']); break;
    case 2: s.splice(below(s.length), below(8)); break;
    default: s.splice(below(s.length), 0, pick(['s=1.', 'AAAA', '==', ' ']));
  }
  return s.join('');
}

// LeaseLock and FencedAccount: a sequence of operations, recorded so it can be replayed.
const NOWS = ['num', 'nan', 'string', 'throw', 'free', 'reenter', 'huge'];
function classOps() {
  const ops = [];
  for (let i = 0; i < 1 + below(12); i++) {
    switch (below(5)) {
      case 0: ops.push({ op: 'lock', now: pick(NOWS), opts: { ttlMs: pick([30, 1, 0, -1, NaN, 1e7, undefined, '30']), firstFence: pick([33, undefined, 2 ** 53, -5]) } }); break;
      case 1: ops.push({ op: 'account', opts: pick([undefined, null, 5, { fence: true }, { fence: 'yes' }, { rule: 'non_decreasing', balance: pick([100, NaN, 1e13, -5]) }]) }); break;
      case 2: ops.push({ op: 'free', obj: below(4) }); break;
      default: ops.push({ op: 'call', obj: below(4), method: pick(['acquire', 'isHeld', 'renew', 'release', 'debit', 'getBalance', 'getLastFence', 'writes']), args: Array.from({ length: below(4) }, () => (chance(50) ? odd() : pick(['k', 'A', 10, 33, { mode: 'bare_del' }]))) });
    }
  }
  return ops;
}

function runOps(ops) {
  const objs = [];
  let t = 0;
  for (const o of ops) {
    if (o.op === 'lock') {
      let lock;
      const now = {
        num: () => (t += 7), nan: () => NaN, string: () => '5', huge: () => 2 ** 60,
        throw: () => { throw new RangeError('clock gone'); },
        free: () => { lock?.free(); return t; },
        reenter: () => { lock?.isHeld('k', 'A'); return t; },
      }[o.now];
      const r = attempt(() => new LeaseLock({ now, ...o.opts }), 'new LeaseLock');
      if (r.ok) objs.push((lock = r.value));
    } else if (o.op === 'account') {
      const r = attempt(() => new FencedAccount(o.opts), 'new FencedAccount');
      if (r.ok) objs.push(r.value);
    } else if (o.op === 'free') {
      attempt(() => objs[o.obj]?.free(), 'free');
    } else {
      const obj = objs[o.obj];
      if (obj && typeof obj[o.method] === 'function') attempt(() => obj[o.method](...o.args), `${obj.constructor.name}.${o.method}`);
    }
  }
  for (const o of objs) attempt(() => o.free(), 'free');
  // The module must still work for everyone.
  const lock = new LeaseLock({ now: () => 0 });
  const account = new FencedAccount({ fence: true });
  const ok = lock.acquire('k', 'A').fence === 33 && account.debit(10, 34).balance === 90 && account.debit(1, 33).error === 'stale_fence';
  lock.free();
  account.free();
  if (!ok) throw new Finding('module-broken', 'a fresh lock and account no longer behave');
}

// ---- replay, then fuzz ------------------------------------------------------------------

const TARGETS = {
  scenario: (input) => checkScenario(input),
  link: (input) => checkLink(input),
  'js-scenario': (input) => checkScenario(decode(input)),
  classes: (input) => runOps(decode(input)),
};

function run(target, input) {
  try {
    TARGETS[target](input);
    return null;
  } catch (e) {
    if (e instanceof Finding) return e;
    return new Finding('harness', `${e?.stack ?? e}`);
  }
}

let failed = 0;
const files = [corpus, slowDir].flatMap((d) => (existsSync(d) ? readdirSync(d).map((f) => d + f) : []))
  .filter((f) => f.endsWith('.json')).sort();
for (const f of files) {
  const { target, input } = JSON.parse(readFileSync(f, 'utf8'));
  const finding = run(target, input);
  if (finding) {
    failed++;
    console.error(`fuzz: ${f} still fails: ${finding.found}: ${finding.message}`);
  }
}
console.log(`fuzz: node replayed ${files.length} saved inputs`);
if (failed) process.exit(1);

const found = [];
const slow = [];
timed = true;
const start = performance.now();
let inputs = 0;
while (performance.now() - start < seconds * 1000) {
  inputs++;
  const r = below(100);
  const [target, input] = r < 30 ? ['js-scenario', encode(jsScenario())]
    : r < 45 ? ['scenario', textScenario()]
    : r < 60 ? ['link', damagedLink()]
    : r < 70 ? ['js-scenario', encode(randomJson())]
    : ['classes', encode(classOps())];
  const finding = run(target, input);
  if (finding) {
    const dir = finding.found === 'slow' ? slowDir : corpus;
    mkdirSync(dir, { recursive: true });
    const name = `${dir}node-${target}-${finding.found}-${createHash('sha256').update(input).digest('hex').slice(0, 16)}.json`;
    writeFileSync(name, JSON.stringify({ target, found: finding.found, detail: finding.message, input }, null, 2) + '\n');
    (finding.found === 'slow' ? slow : found).push(name);
  }
}
const secs = (performance.now() - start) / 1000;
console.log(`fuzz: node, seed ${seed}: ${inputs} inputs in ${secs.toFixed(1)} s (${(inputs / secs).toFixed(0)} inputs/s), ${found.length} found, ${slow.length} slow`);
for (const f of [...found, ...slow]) console.log(`  saved ${f}`);
process.exit(found.length ? 1 : 0);
