// "Find a failure" through the search workers' package (dist/pkg-search/, built by
// scripts/build.sh with the search-api feature; the page's own package leaves the API out) under Node: search(scenario, spec) finds the
// paused-holder double write in gc-pause-unfenced without its pause and shrinks it to one
// pause; strict fencing survives; with no strategy named, a grid too large for the budget is
// walked as far as it fits and sampled past it; the sliced SearchPlan agrees with search(); a count of
// schedules the plan does not hold, and bad specs, throw an Error naming the argument.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('../../dist/pkg-search/', import.meta.url));
const api = await import(pkg + 'search.js');
api.initSync({ module: readFileSync(pkg + 'search_bg.wasm') });
const { search, SearchPlan, presets, simulate } = api;

/** A preset's scenario with one of client `c`'s events taken out. */
function without(id, c, e) {
  const scenario = structuredClone(presets().find((p) => p.id === id).scenario);
  scenario.clients[c].events.splice(e, 1);
  return scenario;
}

test('gc-pause-unfenced without its pause: found, shrunk to one pause, replays unsafe', () => {
  const scenario = without('gc-pause-unfenced', 0, 1);
  assert.equal(simulate(scenario).verdict.safe, true);
  const report = search(scenario, { faults: ['pause', 'delay', 'client_crash'], maxFaults: 2 });
  assert.equal(report.outcome, 'found', report.statement);
  const c = report.counterexample;
  assert.equal(c.faults.length, 1);
  assert.equal(c.faults[0].kind, 'pause');
  assert.match(c.summary, /^1 fault: A paused by GC for \d+ ms at \d+ ms$/);
  assert.equal(c.injected.length, 1);
  assert.deepEqual(c.injected[0].at, { lane: 'client', client: 0, event: c.scenario.clients[0].events.length - 1 });
  assert.equal(c.scenario.clients[0].events.at(-1).kind, 'pause');
  // The counterexample is an ordinary scenario: the same package runs it to the same failure.
  const trace = simulate(c.scenario);
  assert.equal(trace.verdict.safe, false);
  assert.deepEqual(trace.verdict.violations, c.violations);
  assert.ok(report.stats.schedules >= 1 && report.stats.schedules <= report.stats.space);
  assert.ok(report.shrinkSteps.every((s) => typeof s.text === 'string'));
});

test('strict fencing: no stale write accepted, and the answer says it is bounded', () => {
  const scenario = without('gc-pause-fenced', 0, 1);
  const report = search(scenario, {
    faults: ['pause', 'delay', 'client_crash'], maxFaults: 1, failure: 'stale_write_accepted',
  });
  assert.equal(report.outcome, 'none_found');
  assert.equal(report.counterexample, null);
  assert.equal(report.stats.complete, true);
  assert.match(report.statement, /^No failure found: exhaustive: \d+ schedules, grid: \d+ instants/);
  assert.match(report.statement, /fault kinds: client pauses, debit delays, client crashes\. .*not a proof\.$/);
});

test('a scenario that already fails is reported as such, not as a find', () => {
  const report = search(presets().find((p) => p.id === 'gc-pause-unfenced').scenario);
  assert.equal(report.outcome, 'fails_as_is');
  assert.equal(report.stats.schedules, 0);
  assert.deepEqual(report.counterexample.faults, []);
});

test('SearchPlan scanned in slices gives what search() gives', () => {
  const scenario = without('gc-pause-unfenced', 0, 1);
  const spec = { strategy: 'swarm', seed: 11, maxFaults: 3, budget: 5000 };
  const plan = new SearchPlan(scenario, spec);
  assert.equal(plan.failsAsIs(), false);
  assert.equal(plan.total(), 5000);
  let found;
  for (let from = 0; from < plan.total() && found === undefined; from += 17) {
    found = plan.scan(from, from + 17);
  }
  assert.notEqual(found, undefined);
  const sliced = plan.finish(found, found + 1);
  assert.deepEqual(sliced, search(scenario, spec));
  plan.free();
});

test('no strategy named: every single clock jump, then random ones, finds three on the Redlock happy path', () => {
  const scenario = presets().find((p) => p.id === 'redlock-happy').scenario;
  assert.equal(scenario.lock.redlock.instances.length, 5);
  const report = search(scenario, { faults: ['lock_clock_jump'], maxFaults: 3, budget: 300000 });
  assert.equal(report.outcome, 'found', report.statement);
  const { strategy, exhaustive, sampled, schedules, complete } = report.stats;
  assert.equal(strategy, 'auto');
  assert.equal(complete, false);
  assert.equal(exhaustive.upToK, 1);
  assert.equal(exhaustive.schedules, exhaustive.space);
  assert.deepEqual([sampled.minFaults, sampled.maxFaults], [2, 3]);
  assert.equal(exhaustive.space + sampled.space, 300000);
  assert.equal(exhaustive.schedules + sampled.schedules, schedules);
  assert.match(report.statement, /^Found a failure after \d+ schedules \(exhaustive for k ≤ 1: \d+ schedules; then \d+ random schedules of 2 to 3 faults, seed 0\); shrunk to 3 faults: /);
  assert.equal(report.counterexample.faults.length, 3);
  assert.equal(simulate(report.counterexample.scenario).verdict.safe, false);
});

test('SearchPlan.finish refuses a count the plan does not hold instead of reporting it complete', () => {
  const scenario = without('gc-pause-fenced', 0, 1);
  const plan = new SearchPlan(scenario, { faults: ['pause'], failure: 'stale_write_accepted' });
  const total = plan.total();
  const cases = [
    [[undefined, 1e20], new RegExp(`^finish: schedules: expected a whole number from 0 to ${total}, got 100000000000000000000$`)],
    [[undefined, total + 1], new RegExp(`^finish: schedules: expected a whole number from 0 to ${total}, got ${total + 1}$`)],
    [[undefined, NaN], /^finish: schedules: expected a whole number from 0 to \d+, got NaN$/],
    [[undefined, Infinity], /^finish: schedules: expected a whole number from 0 to \d+, got Infinity$/],
    [[undefined, -1], /^finish: schedules: expected a whole number from 0 to \d+, got -1$/],
    [[undefined, 2.5], /^finish: schedules: expected a whole number from 0 to \d+, got 2.5$/],
    [[undefined, '7'], /^finish: schedules: expected a number$/],
    [[-1, 7], /^finish: found: expected a whole number from 0 to 9007199254740991, got -1$/],
    [[7, 7], /^finish: schedules: 7 scanned cannot include the failure found at number 7$/],
  ];
  for (const [args, pattern] of cases) {
    assert.throws(() => plan.finish(...args), (e) => e instanceof Error && pattern.test(e.message), String(pattern));
  }
  assert.throws(() => plan.startFinish(undefined, 1e20), /^Error: startFinish: schedules: expected a whole number/);
  // The plan's own count is complete; one short of it is not.
  assert.equal(plan.finish(undefined, total).stats.complete, true);
  assert.equal(plan.finish(null, total - 1).stats.complete, false);
  plan.free();
});

test('bad specs throw an Error naming the field', () => {
  const scenario = without('gc-pause-unfenced', 0, 1);
  const cases = [
    [7, /^spec: expected an object, got 7$/],
    [{ maxFaults: 9 }, /^spec\.maxFaults: expected a whole number from 1 to 4, got 9$/],
    [{ faults: ['pause', 'meteor'] }, /^spec\.faults\[1\]: expected one of "pause"/],
    [{ pauseMs: [50, 10] }, /^spec\.pauseMs: min 50 is above max 10$/],
    [{ budget: 0 }, /^spec\.budget: expected a whole number from 1 to 10000000, got 0$/],
    [{ failure: 'fire' }, /^spec\.failure: expected one of "any"/],
    [{ colour: 'red' }, /^spec\.colour: unknown field/],
  ];
  for (const [spec, pattern] of cases) {
    assert.throws(() => search(scenario, spec), (e) => e instanceof Error && pattern.test(e.message), String(pattern));
  }
  assert.throws(() => search({ version: 1 }, {}), /^Error: scenario: missing field `clients`/);
});
