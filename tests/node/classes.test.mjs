// LeaseLock and FencedAccount under misuse, in the release package: methods called on freed
// objects, a now() that throws, a now() that frees its own lock or calls back into it. Each
// must throw a plain Error that names the class and the method, and must leave the module
// working: a failure inside wasm would leak its stack a little each time until every object
// of the module died (scripts/class-guard.js guards against it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../dist/pkg/', import.meta.url));
const api = await import(pkg + 'fencing_playground.js');
api.initSync({ module: readFileSync(pkg + 'fencing_playground_bg.wasm') });
const { LeaseLock, FencedAccount } = api;
// The loops below throw hundreds of thousands of Errors; stack traces are not what they test
// and would make them take tens of seconds.
Error.stackTraceLimit = 0;

/** A fresh lock and account still behave as the seeds say. */
function stillWorks() {
  const lock = new LeaseLock({ now: () => 0, ttlMs: 30 });
  assert.deepEqual(lock.acquire('k', 'A'), { ok: true, fence: 33 });
  const account = new FencedAccount({ fence: true });
  assert.deepEqual(account.debit(10, 34), { ok: true, balance: 90 });
  assert.deepEqual(account.debit(10, 33), { ok: false, error: 'stale_fence', lastFence: 34, token: 33 });
  lock.free();
  account.free();
}

test('a million calls on freed objects each throw an Error naming the class and method', () => {
  const lock = new LeaseLock({ now: () => 0 });
  const account = new FencedAccount();
  lock.free();
  account.free();
  const calls = [
    ['LeaseLock.acquire', () => lock.acquire('k', 'A')],
    ['LeaseLock.isHeld', () => lock.isHeld('k', 'A')],
    ['LeaseLock.renew', () => lock.renew('k', 'A')],
    ['LeaseLock.release', () => lock.release('k', 'A')],
    ['FencedAccount.debit', () => account.debit(1, 1)],
    ['FencedAccount.getBalance', () => account.getBalance()],
    ['FencedAccount.getLastFence', () => account.getLastFence()],
    ['FencedAccount.writes', () => account.writes()],
  ];
  let thrown = 0;
  for (let i = 0; i < 1_000_000; i++) {
    const [name, call] = calls[i % calls.length];
    try {
      call();
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith(`${name}: `) || !e.message.includes('freed')) {
        assert.fail(`call ${i} (${name}) threw ${e}`);
      }
      thrown++;
    }
  }
  assert.equal(thrown, 1_000_000);
  lock.free(); // a second free does nothing
  stillWorks();
});

test('a now() that throws keeps the original error as cause', () => {
  const original = new RangeError('the clock is gone');
  const lock = new LeaseLock({ now: () => { throw original; } });
  for (let i = 0; i < 50_000; i++) {
    assert.throws(() => lock.acquire('k', 'A'), (e) => e instanceof Error
      && /^LeaseLock: now\(\) threw/.test(e.message) && e.cause === original);
  }
  stillWorks();
});

test('a now() that frees its own lock: the call finishes, later calls say the lock was freed', () => {
  for (let i = 0; i < 50_000; i++) {
    const lock = new LeaseLock({ now: () => { lock.free(); return 5; }, ttlMs: 30 });
    assert.deepEqual(lock.acquire('k', 'A'), { ok: true, fence: 33 });
    assert.throws(() => lock.isHeld('k', 'A'), /^Error: LeaseLock\.isHeld: this LeaseLock was freed/);
  }
  stillWorks();
});

test('a now() that calls back into its own lock gets an Error, not a broken module', () => {
  let inner;
  const lock = new LeaseLock({ now: () => { lock.isHeld('k', 'A'); return 0; } });
  for (let i = 0; i < 50_000; i++) {
    assert.throws(() => lock.acquire('k', 'A'), (e) => {
      inner = e.cause;
      return /^LeaseLock: now\(\) threw/.test(e.message);
    });
    assert.match(inner.message, /^LeaseLock\.isHeld: called while LeaseLock\.acquire is still running/);
  }
  lock.free();
  stillWorks();
});

test('methods refuse an object that is not theirs', () => {
  const account = new FencedAccount();
  assert.throws(() => LeaseLock.prototype.acquire.call(account, 'k', 'A'), /^Error: LeaseLock\.acquire: .*not a LeaseLock/);
  assert.throws(() => FencedAccount.prototype.getBalance.call({}), /^Error: FencedAccount\.getBalance: /);
  assert.equal(account.getBalance(), 100);
});
