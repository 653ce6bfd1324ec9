// "Find a failure" with a real mouse, on each of its three paths: the served page's workers,
// the single file's blob workers from file://, and the main thread when no worker can start.
//
// The main thread's path is tested as it really happens: a <fencing-playground> element on a
// host page of one origin (the test server, http://127.0.0.1:A) whose embed.js, wasm and search
// code come from another (a second server, http://127.0.0.1:B, sending
// Access-Control-Allow-Origin as a CDN does), under the CSP docs/embedding.md asks such a host
// for. A worker script must be same-origin with the document that starts it, and the element's
// document is the host's: `new Worker('http://127.0.0.1:B/www/search-worker.js')` throws a
// SecurityError, whatever the CSP says (the test checks that it does). The iframe form
// (embed.html) is not this case: its document is on the playground's own origin, so its workers
// start. A page whose policy refuses workers is the other case (the Worker constructor is
// replaced by one that throws, as under such a policy).
// From gc-pause-unfenced without A's pause, Search finds the paused-holder double write and
// shrinks it to one pause, which opens as a new scenario marked "found by search" (undo goes
// back); a long search, in workers or on the main thread, leaves the page answering a real
// drag that moves the timeline; the presets' "what would break this?" entries answer from the
// search; a scenario that already fails is reported "fails as is"; one, two or four workers
// and search() itself give the same report. Photographed into artifacts/screenshots/.
//
// Nothing here asserts on time: how long a task, a search or a click takes depends on the
// machine's load. What is asserted is structure: in workers the main thread runs no search
// work at all (the finder counts its main-thread tasks: none), and on the main thread every
// task is given at most the finder's caps of work units (plan steps, schedules, shrink runs;
// www/finder.js MAIN_MAX_*), read from the status's data attributes, with a real drag
// answered while the search goes on. How many milliseconds a capped task takes is measured by
// the benchmark command (scripts/bench/find-slices.mjs), not here.
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { assertClean, tid, expectText, DIST } from './helpers.mjs';
import { test } from './fixtures.mjs';
import {
  answer, boot, click, crossOriginHost, deletePause, dragPauseEnd, expectFoundPause, hostServer, loadPreset,
  manyClients, numbers, openPanel, searchAndFind, startLongSearch,
} from './find-helpers.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { MAIN_MAX_PLAN_STEPS, MAIN_MAX_SCAN_BLOCK, MAIN_MAX_SHRINK_RUNS } from '../../www/finder.js';


test('find: served page, workers: the paused-holder double write, found; undo goes back', async ({ openPage }) => {
  const rec = await openPage();
  const { page } = rec;
  await boot(page);
  await loadPreset(page, 'gc-pause-unfenced');
  await deletePause(page);
  // Nothing of the search is fetched before the panel opens.
  assert.equal(rec.requests.filter((u) => /finder|search/.test(u)).length, 0, 'no search code on the first visit');
  await openPanel(page);
  // The workers start when the panel opens; the figure asked for is from pressing Search.
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('search_bg.wasm')));
  await searchAndFind(page);
  const status = await expectFoundPause(page);
  assert.equal(status.mode, 'workers');
  await rec.screenshot('find-served-found');

  // Undo (the toolbar's button, with the mouse) returns to the scenario searched.
  await click(page, tid('undo'));
  await expectText(page, 'verdict-word', '✓ Safe');
  assert.equal(await page.locator(tid('found-mark')).count(), 0);
  assert.equal(await page.locator(tid('pause-A-1')).count(), 0);
  // Redo brings the counterexample back, marks and all.
  await click(page, tid('redo'));
  await page.locator(tid('found-mark')).waitFor();
  assertClean(rec);
});


test('find: a long search in workers: the main thread runs none of it, and a real drag moves the timeline', async ({ openPage }) => {
  test.setTimeout(90_000);
  const rec = await openPage();
  const { page } = rec;
  await boot(page);
  await loadPreset(page, 'gc-pause-fenced');
  await openPanel(page);
  // The workers are started and have compiled their wasm before the search (the panel asks).
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('search_bg.wasm')));

  // Strict fencing, random schedules of up to 4 faults, looking for a stale write accepted: a
  // search that runs for seconds and finds none.
  await page.locator(tid('find-swarm')).check();
  await page.selectOption(tid('find-failure'), 'stale_write_accepted');
  await page.selectOption(tid('find-k'), '4');
  await page.locator(tid('find-budget')).fill('10000000');
  const end = page.locator('[data-testid^="pause-A-"][data-testid$="-end"]').first();
  await click(page, tid('find-search'));
  const running = page.locator(`${tid('find-status')}[data-state="running"]`);
  await running.waitFor();
  assert.equal(await page.locator(tid('find-budget')).inputValue(), '10000000', 'the budget typed stays');
  // The workers report progress (some schedules tried), then a drag with the real mouse while
  // the search goes on.
  await expectText(page, 'find-line', /^Tried [1-9]/);
  const before = await end.boundingBox();
  await dragPauseEnd(page);
  await expectText(page, 'title', 'Edited from');
  const after = await end.boundingBox();
  await expectText(page, 'find-line', /^Tried [1-9]/);
  const line = await page.locator(tid('find-line')).innerText();
  const status = numbers(await running.evaluate((el) => ({ ...el.dataset })));
  await rec.screenshot('find-long-search-drag');
  assert.equal(await running.count(), 1, `still searching: ${line}`);
  assert.match(line, /^Tried [\d\u202f]+ of 10\u202f000\u202f000 schedules · [\d\u202f]+ per second · [\d.]+ s · \d+ workers?$/);
  assert.ok(after.x < before.x - 50, `the drag moved the pause's end: ${before.x} → ${after.x}`);
  // Structure, not time: in workers, no task of the page's main thread ran search work.
  assert.equal(status.mode, 'workers');
  assert.equal(status.tasks, 0, `main-thread tasks of the search: ${JSON.stringify(status)}`);
  assert.deepEqual([status.maxPlanSteps, status.maxScanSchedules, status.maxShrinkRuns], [0, 0, 0]);
  await click(page, tid('find-cancel'));
  await expectText(page, 'find-line', 'Cancelled.');
  assertClean(rec);
});
test('find: from file://, blob workers find the same counterexample', async ({ openPage }) => {
  const rec = await openPage({ origin: 'file://' });
  const { page } = rec;
  await boot(page, pathToFileURL(`${DIST}fencing-playground.html`).href);
  await deletePause(page);
  await openPanel(page);
  await searchAndFind(page);
  const status = await expectFoundPause(page);
  assert.equal(status.mode, 'workers');
  await rec.screenshot('find-file-found');
  assertClean(rec);
});

test('find: no worker can start, the main thread searches in slices', async ({ openPage }) => {
  const rec = await openPage();
  const { page } = rec;
  // As in a page whose policy refuses the worker: constructing one throws.
  await page.addInitScript(() => {
    window.Worker = class {
      constructor() {
        throw new DOMException('workers are refused here', 'SecurityError');
      }
    };
  });
  await boot(page);
  await loadPreset(page, 'gc-pause-unfenced');
  await deletePause(page);
  await openPanel(page);
  await searchAndFind(page);
  const status = numbers(await expectFoundPause(page));
  assert.equal(status.mode, 'main thread');
  assert.match(String(status.fallback), /workers are refused here/, 'the reason the search is on the main thread is kept');
  withinCaps('a found search', status);

  // A search that runs long: the page keeps answering, in slices of capped work.
  await startLongSearch(page);
  await expectText(page, 'find-line', /^Tried [1-9]/);
  await rec.screenshot('find-main-thread');
  const long = numbers(await page.locator(tid('find-status')).evaluate((el) => ({ ...el.dataset })));
  withinCaps('a long search', long);
  await click(page, tid('find-cancel'));
  await expectText(page, 'find-line', 'Cancelled.');
  assertClean(rec);
});

/** On the main thread, the search ran in tasks of its own, each given at most the finder's caps. */
function withinCaps(what, status) {
  assert.equal(status.mode, 'main thread', what);
  assert.ok(status.tasks >= 3, `${what}: the search ran in ${status.tasks} main-thread tasks`);
  assert.ok(status.maxPlanSteps >= 1 && status.maxPlanSteps <= MAIN_MAX_PLAN_STEPS, `${what}: ${status.maxPlanSteps} plan steps in one task (cap ${MAIN_MAX_PLAN_STEPS})`);
  assert.ok(status.maxScanSchedules <= MAIN_MAX_SCAN_BLOCK, `${what}: ${status.maxScanSchedules} schedules in one task (cap ${MAIN_MAX_SCAN_BLOCK})`);
  assert.ok(status.maxShrinkRuns <= MAIN_MAX_SHRINK_RUNS, `${what}: ${status.maxShrinkRuns} shrink runs in one task (cap ${MAIN_MAX_SHRINK_RUNS})`);
}

test('find: a cross-origin embed cannot start a worker; the main thread finds it in slices of capped work', async ({ openPage }) => {
  test.setTimeout(90_000);
  // Two real servers (Chromium lets a loopback page load from loopback, not a page Playwright
  // made up): the playground's, like a CDN, and the post's.
  const cdn = await startServer({ root: DIST, port: 0, cors: true });
  cdn.origin = new URL(cdn.url).origin;
  const { csp, html } = crossOriginHost(cdn);
  const host = await hostServer(csp, html);
  try {
    const rec = await openPage({ origin: new URL(host.url).origin });
    const { page, context } = rec;
    assert.notEqual(cdn.origin, new URL(host.url).origin);
    // The fixture lets a page reach its own origin only; the playground's origin too, here.
    await context.route(`${cdn.url}**`, (route) => route.continue());
    await page.goto(`${host.url}a-post.html`);
    await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
    // It is the browser's rule, not ours, that stops the worker: its script is on another origin.
    const refused = await page.evaluate((url) => {
      try {
        new Worker(url, { type: 'module' }).terminate();
        return 'started';
      } catch (e) {
        return e.name;
      }
    }, `${cdn.url}www/search-worker.js`);
    assert.equal(refused, 'SecurityError');

    await deletePause(page);
    await openPanel(page);
    // Loading, planning, scanning, shrinking and showing the answer.
    await searchAndFind(page);
    const status = numbers(await expectFoundPause(page));
    withinCaps('from Search to the counterexample shown', status);
    assert.ok(status.maxShrinkRuns >= 1, 'the shrink ran on the main thread');
    await rec.screenshot('find-cross-origin-found');

    // A search that runs long, with a real drag in the middle: the page answers it and the
    // timeline follows, while the search goes on in slices.
    await startLongSearch(page);
    await expectText(page, 'find-line', /^Tried [1-9]/);
    const end = page.locator('[data-testid^="pause-A-"][data-testid$="-end"]').first();
    const before = await end.boundingBox();
    await dragPauseEnd(page);
    await expectText(page, 'title', 'Edited from');
    const after = await end.boundingBox();
    assert.equal(await page.locator(`${tid('find-status')}[data-state="running"]`).count(), 1, 'the search went on during the drag');
    withinCaps('a long search with a drag', numbers(await page.locator(tid('find-status')).evaluate((el) => ({ ...el.dataset }))));
    const line = await page.locator(tid('find-line')).innerText();
    assert.match(line, /^Tried [\d\u202f]+ of 10\u202f000\u202f000 schedules · [\d\u202f]+ per second · [\d.]+ s · main thread$/);
    await click(page, tid('find-cancel'));
    await expectText(page, 'find-line', 'Cancelled.');

    // A search with a long shrink: eight clients, four faults at most; the first failing
    // schedule is shrunk in about 200 runs (one call: about 200 ms natively, more in wasm).
    await page.locator('fencing-playground').evaluate((el, json) => el.setAttribute('scenario', json), JSON.stringify(await manyClients()));
    await expectText(page, 'title', 'Edited from: GC pause, no fencing');
    await openPanel(page);
    await page.locator(tid('find-swarm')).check();
    await page.selectOption(tid('find-k'), '4');
    await page.locator(tid('find-budget')).fill('100000');
    await page.locator(tid('find-seed')).fill('0');
    await click(page, tid('find-search'));
    await page.locator(tid('found-mark')).first().waitFor({ timeout: 60_000 });
    const shrunk = numbers(await answer(page));
    assert.equal(shrunk.state, 'found');
    assert.equal(shrunk.mode, 'main thread');
    assert.match(shrunk.text, /shrunk to 1 fault: A paused by GC for \d+ ms at \d+ ms; 12 events of the scenario's own left out/);
    withinCaps('a main-thread search with a long shrink', shrunk);
    assert.ok(shrunk.tasks > 20, `the long shrink ran in ${shrunk.tasks} tasks`);
    assert.ok(after.x < before.x - 50, `the drag moved the pause's end: ${before.x} → ${after.x}`);
    assert.deepEqual(rec.outsideRequests().filter((u) => !u.startsWith(cdn.url)), []);
    assert.deepEqual([...rec.pageErrors, ...rec.consoleErrors, ...rec.failedResponses], []);
  } finally {
    await cdn.close();
    await host.close();
  }
});

test('find: what would break this? fencing off finds the paused holder; monotonic clocks hold; three clock steps break the happy path; an early restart without keys breaks the delayed one; blank-single and watchdog-saves say why they have none', async ({ openPage }) => {
  const rec = await openPage();
  const { page } = rec;
  await boot(page);
  await loadPreset(page, 'gc-pause-fenced');
  await openPanel(page);
  await click(page, tid('find-breaker'));
  await page.locator(tid('found-mark')).first().waitFor({ timeout: 20_000 });
  assert.match(await page.locator(tid('find-summary')).innerText(), /^Found by search: 1 fault: A paused by GC for \d+ ms at \d+ ms$/);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await rec.screenshot('find-breaker-fencing-off');

  await loadPreset(page, 'redlock-monotonic');
  const breakers = page.locator(tid('find-breaker'));
  assert.equal(await breakers.count(), 2);
  await click(page, `${tid('find-breaker')} >> nth=1`);
  const status = await answer(page, 30_000);
  assert.equal(status.state, 'none-found');
  assert.match(status.text, /^No failure found: exhaustive: \d+ schedules, grid: .*k ≤ 2, fault kinds: lock clock jumps\. Bounded by this budget and grid, not a proof\./);
  assert.equal(await page.locator(tid('found-mark')).count(), 0);
  await rec.screenshot('find-breaker-monotonic');

  // The happy path holds while the instances' clocks agree: three of them stepping forward
  // hand A's lock to B as well.
  await loadPreset(page, 'redlock-happy');
  await click(page, tid('find-breaker'));
  await page.locator(tid('found-mark')).first().waitFor({ timeout: 30_000 });
  assert.equal(await page.locator(tid('found-mark')).count(), 3);
  assert.match(await page.locator(tid('find-summary')).innerText(), /^Found by search: 3 faults: R\d's clock jumped \+60 ms at \d+ ms; R\d's clock jumped \+60 ms/);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await rec.screenshot('find-breaker-redlock-happy');

  // A restart delayed past the TTL holds; the search restarts an instance sooner, without
  // its keys, and B gets a majority while A's lock is still valid.
  await loadPreset(page, 'redlock-delayed-restart');
  assert.match(await page.locator(tid('find-breaker')).innerText(), /^If an instance came back without its keys before the 60 ms TTL had passed/);
  await click(page, tid('find-breaker'));
  await page.locator(tid('found-mark')).first().waitFor({ timeout: 30_000 });
  assert.equal(await page.locator(tid('found-mark')).count(), 1);
  assert.match(await page.locator(tid('find-summary')).innerText(), /^Found by search: 1 fault: R\d crashed at \d+ ms for \d+ ms \(keys lost\)/);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await rec.screenshot('find-breaker-redlock-delayed-restart');
  // Undo goes back to the preset the search was asked on: the answer still speaks of it.
  await click(page, tid('undo'));
  await expectText(page, 'find-line', 'Found a failure');

  // A preset with nothing to break says why instead of showing nothing; the last answer, about
  // another scenario, is no longer shown.
  await loadPreset(page, 'blank-single');
  await page.waitForFunction(() => document.querySelector('[data-testid="find-line"]')?.textContent === '', null, { timeout: 5_000 });
  assert.equal(await page.locator(tid('find-searched')).count(), 0);
  assert.equal(await page.locator(tid('find-status')).getAttribute('data-state'), 'idle');
  assert.equal(await page.locator(tid('find-breaker')).count(), 0);
  assert.match(await page.locator(tid('find-no-breaker')).textContent(), /^What would break this\? Nothing is scheduled/);
  await loadPreset(page, 'watchdog-saves');
  assert.equal(await page.locator(tid('find-breaker')).count(), 0);
  assert.match(await page.locator(tid('find-no-breaker')).textContent(), /^What would break this\? .*B only asks for the lock and never writes/);
  await loadPreset(page, 'gc-pause-fenced');
  assert.equal(await page.locator(tid('find-no-breaker')).count(), 0);
  assertClean(rec);
});

test('find: by default a sweep too big for its budget is exhaustive as far as it fits, then random: three lock clock jumps break the happy Redlock', async ({ openPage }) => {
  test.setTimeout(90_000);
  const rec = await openPage();
  const { page } = rec;
  await boot(page);
  // As a new user tries it: five instances, a holder and a later contender, only the lock's
  // clock jumps, k = 3, a budget of 300 000, the default strategy (the swarm box unticked).
  // Every schedule of 3 jumps is tens of billions: an exhaustive walk would spend the budget
  // on 1 and 2 jumps and find nothing.
  await loadPreset(page, 'redlock-happy');
  await openPanel(page);
  for (const box of await page.locator(`${tid('find')} input[data-kind]`).all()) {
    const want = (await box.getAttribute('data-kind')) === 'lock_clock_jump';
    if ((await box.isChecked()) !== want) await box.click();
  }
  assert.equal(await page.locator(tid('find-swarm')).isChecked(), false);
  await page.selectOption(tid('find-k'), '3');
  await page.locator(tid('find-budget')).fill('300000');
  await page.locator(tid('find-seed')).fill('0');
  await click(page, tid('find-search'));
  const status = await answer(page, 60_000);
  assert.equal(status.state, 'found', status.text);
  // The answer says which part was walked whole and which was sampled.
  assert.match(status.text, /^Found a failure after \d+ schedules \(exhaustive for k ≤ 1: \d+ schedules; then \d+ random schedules of 2 to 3 faults, seed 0\); shrunk to 3 faults/);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await rec.screenshot('find-auto-redlock');
  assertClean(rec);
});

test('find: a scenario that already fails is reported as such, and nothing loads', async ({ openPage }) => {
  const rec = await openPage({ viewport: { width: 390, height: 844 } });
  const { page } = rec;
  await boot(page);
  await loadPreset(page, 'gc-pause-unfenced');
  await openPanel(page);
  await click(page, tid('find-search'));
  const status = await answer(page);
  assert.equal(status.state, 'fails-as-is');
  assert.match(status.text, /^Fails as is, with no fault injected \(nothing searched\)/);
  assert.equal(await page.locator(tid('found-mark')).count(), 0);
  assert.equal(await page.locator(tid('undo')).isDisabled(), true, 'nothing was loaded');
  await rec.screenshot('find-fails-as-is-390');
  assertClean(rec);
});

test('find: the same report whatever the number of workers (the lowest failing schedule wins)', async ({ openPage }) => {
  const rec = await openPage();
  const { page } = rec;
  await boot(page);
  // The page's own finder, made here with one worker, two and four, on a random search whose
  // first failures lie in different blocks.
  const reports = await page.evaluate(async () => {
    const { createFinder } = await import('./www/finder.js');
    const at = (p) => new URL(p, location.href).href;
    const sources = { worker: at('www/search-worker.js'), glue: at('pkg-search/search.js'), wasm: at('pkg-search/search_bg.wasm') };
    const glue = await import('./pkg-search/search.js');
    await glue.default({ module_or_path: sources.wasm });
    const scenario = glue.presets().find((p) => p.id === 'gc-pause-unfenced').scenario;
    scenario.clients[0].events.splice(1, 1);
    const spec = JSON.stringify({ strategy: 'swarm', seed: 11, maxFaults: 3, budget: 5000 });
    const out = [];
    for (const workers of [1, 2, 4]) {
      const finder = createFinder(sources, { workers });
      out.push(await new Promise((resolve, reject) => finder.search(JSON.stringify(scenario), spec, (e) => {
        if (e.type === 'done') resolve({ workers: e.workers, report: e.report });
        else if (e.type === 'error') reject(new Error(e.message));
      })));
    }
    // And the whole search at once, on this thread, as the JS API runs it.
    out.push({ workers: 0, report: JSON.stringify(glue.search(scenario, JSON.parse(spec))) });
    return out;
  });
  const [one, two, four, whole] = reports;
  assert.equal(JSON.parse(one.report).outcome, 'found');
  assert.equal(two.report, one.report, 'two workers report what one does');
  assert.equal(four.report, one.report, 'four workers report what one does');
  assert.equal(whole.report, one.report, 'search() reports what the workers do');
  assert.ok(two.workers >= 1 && four.workers >= 1);
  assertClean(rec);
});
