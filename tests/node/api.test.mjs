// Loads the release package under Node (no browser, no UI mounted) and replays the seeds' six
// contracts through LeaseLock and FencedAccount, then drives simulate/check/validate/presets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../dist/pkg/', import.meta.url));
const api = await import(pkg + 'fencing_playground.js');
api.initSync({ module: readFileSync(pkg + 'fencing_playground_bg.wasm') });
const { LeaseLock, FencedAccount, simulate, presets, validate } = api;

const clock = { t: 0 };
const KEY = 'acct:1';

test('contract 1: while the lease is live, B cannot acquire', () => {
  clock.t = 0;
  const lock = new LeaseLock({ now: () => clock.t, ttlMs: 30 });
  const a = lock.acquire(KEY, 'A');
  const b = lock.acquire(KEY, 'B');
  assert.deepEqual(a, { ok: true, fence: 33 });
  assert.deepEqual(b, { ok: false, error: 'lock_held', holder: 'A' });
});

test('contract 2: after the TTL, A no longer holds it and B gets fence 34', () => {
  clock.t = 0;
  const lock = new LeaseLock({ now: () => clock.t, ttlMs: 30 });
  lock.acquire(KEY, 'A');
  clock.t = 31;
  const b2 = lock.acquire(KEY, 'B');
  assert.equal(lock.isHeld(KEY, 'A'), false);
  assert.equal(b2.fence, 34);
});

test('contract 3: unfenced storage accepts both debits, balance 80', () => {
  const unfenced = new FencedAccount({ fence: false });
  unfenced.debit(10, 34);
  assert.equal(unfenced.debit(10, 33).ok, true);
  assert.equal(unfenced.getBalance(), 80);
  assert.equal(unfenced.writes().at(-1).token, 33);
});

test('contract 4: fenced storage rejects the stale debit, balance 90', () => {
  const fenced = new FencedAccount({ fence: true });
  const lock = new LeaseLock({ now: () => clock.t, ttlMs: 30 });
  clock.t = 0;
  const aLease = lock.acquire(KEY, 'A');
  clock.t = 31;
  const bLease = lock.acquire(KEY, 'B');
  assert.equal(fenced.debit(10, bLease.fence).ok, true);
  assert.deepEqual(fenced.debit(10, aLease.fence), { ok: false, error: 'stale_fence', lastFence: 34, token: 33 });
  assert.equal(fenced.getBalance(), 90);
  assert.equal(fenced.getLastFence(), 34);
});

test('contract 5: an equal token is stale', () => {
  const fenced = new FencedAccount({ fence: true });
  assert.equal(fenced.debit(5, 40).ok, true);
  assert.equal(fenced.debit(5, 40).error, 'stale_fence');
  const lenient = new FencedAccount({ rule: 'non_decreasing' });
  lenient.debit(5, 40);
  assert.equal(lenient.debit(5, 40).ok, true);
});

test('contract 6: isHeld before the write is theater', () => {
  clock.t = 0;
  const lock = new LeaseLock({ now: () => clock.t, ttlMs: 30 });
  const fenced = new FencedAccount({ fence: true });
  const a = lock.acquire(KEY, 'A');
  assert.equal(lock.isHeld(KEY, 'A'), true);
  clock.t = 31;
  const b = lock.acquire(KEY, 'B');
  assert.equal(fenced.debit(10, b.fence).ok, true);
  assert.equal(fenced.debit(10, a.fence).error, 'stale_fence');
});

test('bare DEL deletes the next holder, a token-checked release does not', () => {
  clock.t = 0;
  const lock = new LeaseLock({ now: () => clock.t, ttlMs: 30 });
  lock.acquire(KEY, 'A');
  clock.t = 31;
  lock.acquire(KEY, 'B');
  assert.deepEqual(lock.release(KEY, 'A'), { deleted: 'nothing' });
  assert.equal(lock.isHeld(KEY, 'B'), true);
  assert.deepEqual(lock.release(KEY, 'A', { mode: 'bare_del' }), { deleted: 'other' });
  assert.equal(lock.isHeld(KEY, 'B'), false);
});

test('presets() lists the default first, as its declaration says, then every other once', () => {
  const all = presets();
  // The page a first visit shows (sim::presets::DEFAULT_PRESET): the GC pause without fencing.
  assert.equal(all[0].id, 'gc-pause-unfenced');
  assert.equal(all[0].scenario.name, 'GC pause, no fencing');
  assert.equal(new Set(all.map((p) => p.id)).size, all.length);
});

test('simulate: the GC pause is rejected with fencing on and unsafe with it off', () => {
  const all = presets();
  const fenced = all.find((p) => p.id === 'gc-pause-fenced').scenario;
  const trace = simulate(fenced);
  const late = trace.writes.find((w) => trace.clients[w.client] === 'A');
  assert.equal(late.verdict.status, 'rejected');
  assert.equal(late.verdict.reason, 'stale_fence');
  // Keys are camelCase inside a verdict too, as everywhere in the trace.
  assert.equal(late.verdict.lastFence, 34);
  assert.equal('last_fence' in late.verdict, false);
  assert.equal(trace.verdict.safe, true);
  assert.equal(trace.finalBalance, 90);

  const unfenced = structuredClone(fenced);
  unfenced.storage.fenceRule = 'off';
  const bad = simulate(JSON.stringify(unfenced));
  assert.equal(bad.verdict.safe, false);
  assert.equal(bad.finalBalance, 80);
  assert.equal(bad.verdict.violations[0].kind, 'stale_write_accepted');
  assert.match(bad.verdict.violations[0].text, /A's debit with fence 33 was accepted at 45 ms/);
});

test('malformed scenarios throw an Error naming the field', () => {
  const base = (events) => ({ version: 1, clients: [{ name: 'A', events }] });
  const cases = [
    [base([{ kind: 'pause', atMs: 1, durationMs: -5, cause: 'gc' }]), /clients\[0\]\.events\[0\]\.durationMs/],
    [base([{ kind: 'teleport', atMs: 1 }]), /unknown variant `teleport`/],
    [base([{ kind: 'acquire', atMs: 1e12 }]), /atMs: expected a whole number from 0 to 10000000 ms, got 1000000000000/],
    [base([{ kind: 'debit', atMs: 1 }]), /missing field `amount`/],
    [{ version: 1 }, /missing field `clients`/],
    ['{not json', /not valid JSON/],
    [undefined, /scenario: expected an object/],
  ];
  for (const [input, pattern] of cases) {
    assert.throws(() => simulate(input), (e) => e instanceof Error && pattern.test(e.message), String(pattern));
  }
  const v = validate(base([{ kind: 'acquire', atMs: 'soon' }]));
  assert.equal(v.ok, false);
  assert.equal(v.path, 'clients[0].events[0].atMs');
  assert.deepEqual(validate(base([])), { ok: true });
});

test('bad arguments to the classes throw clear errors', () => {
  assert.throws(() => new LeaseLock({ ttlMs: 30 }), /options\.now: expected a function/);
  assert.throws(() => new LeaseLock({ now: () => 0, ttlMs: -1 }), /ttlMs: expected a whole number/);
  const acct = new FencedAccount();
  assert.throws(() => acct.debit('ten', 1), /debit: amount: expected a number/);
  assert.throws(() => acct.debit(10, 1.5), /debit: token: expected a whole number/);
  const lock = new LeaseLock({ now: () => Number.NaN });
  assert.throws(() => lock.acquire(KEY, 'A'), /now\(\) must return a finite number/);
  assert.equal(acct.getBalance(), 100);
});

test('NaN and Infinity are named as themselves, with their path, not as the null JSON makes of them', () => {
  const base = (event) => ({ version: 1, clients: [{ name: 'A', events: [event] }] });
  const cases = [
    [base({ kind: 'acquire', atMs: NaN }), 'clients[0].events[0].atMs', 'expected a whole number ≥ 0, got NaN'],
    [{ ...base({ kind: 'acquire', atMs: 1 }), lock: { ttlMs: Infinity } }, 'lock.ttlMs', 'expected a whole number ≥ 0, got Infinity'],
    [base({ kind: 'debit', atMs: 1, amount: -Infinity }), 'clients[0].events[0].amount', 'expected a whole number, got -Infinity'],
    // A nullable field would take the null silently: the NaN is refused instead.
    [base({ kind: 'debit', atMs: 1, amount: 1, idempotencyKey: NaN }), 'clients[0].events[0].idempotencyKey',
      'got NaN, which JSON cannot carry (it would be read as null)'],
  ];
  for (const [scenario, path, message] of cases) {
    assert.deepEqual(validate(scenario), { ok: false, path, message, error: `${path}: ${message}` });
    assert.throws(() => simulate(scenario), { message: `scenario: ${path}: ${message}` });
  }
  // A null someone wrote is still a null.
  assert.equal(validate(base({ kind: 'debit', atMs: 1, amount: 1, idempotencyKey: null })).ok, true);
});

test('a million clock jumps are refused by their count, as an object and as text, whatever the last one holds', () => {
  // The last jump holds a NaN and the lock a null: an error about either would mean every
  // entry was read (or walked) before the count.
  const jumps = Array.from({ length: 1_000_000 }, () => ({ atMs: 1, byMs: 1 }));
  jumps[jumps.length - 1] = { atMs: NaN, byMs: 1 };
  const scenario = { version: 1, lock: { redlock: null }, clients: [{ name: 'A', clock: { jumps } }] };
  const path = 'clients[0].clock.jumps';
  const message = 'expected at most 1000 clock jumps, got 1000000';
  for (const input of [scenario, JSON.stringify(scenario)]) {
    assert.deepEqual(validate(input), { ok: false, path, message, error: `${path}: ${message}` });
    assert.throws(() => simulate(input), { message: `scenario: ${path}: ${message}` });
  }
  const events = Array.from({ length: 1_000_000 }, () => ({ kind: 'acquire', atMs: 1 }));
  assert.throws(() => simulate({ version: 1, clients: [{ name: 'A', events }] }),
    { message: 'scenario: clients[0].events: expected at most 10000 events, got 1000000' });
});

test('limits are stated as documented, and a link cut short says so', () => {
  const one = { version: 1, clients: [{ name: 'A' }] };
  assert.throws(() => simulate({ ...one, stepLimit: 2 ** 33 }),
    { message: 'scenario: stepLimit: expected a whole number from 1 to 10000000, got 8589934592' });
  assert.throws(() => simulate({ ...one, lock: { redlock: { instances: [{ name: 'R' }], retries: 2 ** 33 } } }),
    { message: 'scenario: lock.redlock.retries: expected a whole number from 0 to 20, got 8589934592' });
  const link = api.encodeLink(presets()[0].scenario);
  const cut = link.slice(0, 4 + Math.floor((link.length - 4) / 8) * 4);
  assert.throws(() => api.decodeLink(cut), /^Error: link: the scenario in it ends early \(EOF while parsing .*\); the link is incomplete: was it cut short\?$/);
});
