// The benchmark of "Find a failure" on the main thread (run by scripts/bench.sh, never by the
// test command): the same paths as find.test.mjs's long searches, timed from a Chromium trace of
// the renderer's main thread. Targets: in workers, no main-thread task of 50 ms of CPU; on the
// main thread (a cross-origin embed), no task of the search over 8 ms of CPU and the
// counterexample on screen within 2 s of pressing Search. Times depend on the machine and its
// load, so they are measured here and written to BENCHMARKS.md, not asserted by the tests.
//
//   npx playwright test --config playwright.bench.config.mjs
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, DIST } from './helpers.mjs';
import { test } from './fixtures.mjs';
import { startServer } from '../../scripts/serve.mjs';
import {
  answer, boot, click, crossOriginHost, deletePause, dragPauseEnd, expectFoundPause, hostServer, loadPreset,
  longTasksSince, manyClients, noLongTask, now, numbers, openPanel, searchAndFind, startLongSearch, traced, watchMainThread,
} from './find-helpers.mjs';

test('bench find: a long search in workers: no main-thread task over 50 ms of CPU', async ({ openPage, browser }) => {
  test.setTimeout(90_000);
  const rec = await openPage();
  const { page } = rec;
  await page.addInitScript(watchMainThread);
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
  let before;
  let after;
  let line;
  let t;
  const seen = await traced(browser, page, async () => {
    t = await now(page);
    await click(page, tid('find-search'));
    await page.locator(`${tid('find-status')}[data-state="running"]`).waitFor();
    assert.equal(await page.locator(tid('find-budget')).inputValue(), '10000000', 'the budget typed stays');
    // The search alone for two seconds (the workers busy, progress drawn ten times a second),
    // then a drag with the real mouse while it goes on.
    await page.waitForTimeout(2000);
    before = await end.boundingBox();
    await dragPauseEnd(page);
    await expectText(page, 'title', 'Edited from');
    after = await end.boundingBox();
    await page.waitForTimeout(500);
    line = await page.locator(tid('find-line')).innerText();
  });
  const long = await longTasksSince(page, t);
  await rec.screenshot('find-long-search-drag');
  assert.equal(await page.locator(`${tid('find-status')}[data-state="running"]`).count(), 1, `still searching: ${line}`);
  assert.match(line, /^Tried [\d\u202f]+ of 10\u202f000\u202f000 schedules · [\d\u202f]+ per second · [\d.]+ s · \d+ workers?$/);
  await click(page, tid('find-cancel'));
  await expectText(page, 'find-line', 'Cancelled.');
  const load = (await import('node:os')).loadavg()[0].toFixed(2);
  console.log(`worker search + drag (load ${load}): long tasks ${JSON.stringify(long)}; traced: ${JSON.stringify(seen)}`);
  assert.ok(after.x < before.x - 50, `the drag moved the pause's end: ${before.x} → ${after.x}`);
  // Strict on what our code does: no main-thread task of 50 ms of CPU. A task the browser
  // reports over 50 ms must be one that waited for a core (its CPU time says so; measured
  // under load, e.g. 122 ms with 0 ms of CPU, while another test's page searched on its main
  // thread beside this page's two workers on two cores); on a quiet machine there is none.
  noLongTask('worker search and drag', seen);
  assertClean(rec);
});


test('bench find: a cross-origin embed, the main thread: slices under 8 ms of CPU, found within 2 s', async ({ openPage, browser }) => {
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
    await page.addInitScript(watchMainThread);
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
    await page.evaluate(() => window.__gaps.start());
    await openPanel(page);
    let ms;
    let status;
    // Loading, planning, scanning, shrinking and showing the answer.
    const find = await traced(browser, page, async () => {
      ms = await searchAndFind(page);
      status = numbers(await expectFoundPause(page));
    });
    const gaps = await page.evaluate(() => window.__gaps.stop());
    assert.equal(status.mode, 'main thread');
    assert.ok(ms <= 2000, `the counterexample took ${ms} ms to appear`);
    await rec.screenshot('find-cross-origin-found');

    // A search that runs long, with a real drag in the middle: the page answers it and the
    // timeline follows, while the search goes on in slices.
    await startLongSearch(page);
    await page.evaluate(() => window.__gaps.start());
    // The search alone: its slices and its progress.
    const slices = await traced(browser, page, () => page.waitForTimeout(1500));
    const end = page.locator('[data-testid^="pause-A-"][data-testid$="-end"]').first();
    const before = await end.boundingBox();
    const drag = await traced(browser, page, async () => {
      await dragPauseEnd(page);
      await expectText(page, 'title', 'Edited from');
    });
    const after = await end.boundingBox();
    const line = await page.locator(tid('find-line')).innerText();
    assert.match(line, /^Tried [\d\u202f]+ of 10\u202f000\u202f000 schedules · [\d\u202f]+ per second · [\d.]+ s · main thread$/);
    await click(page, tid('find-cancel'));
    await expectText(page, 'find-line', 'Cancelled.');
    const longGaps = await page.evaluate(() => window.__gaps.stop());

    // A search with a long shrink: eight clients, four faults at most; the first failing
    // schedule is shrunk in about 200 runs (one call: about 200 ms natively, more in wasm).
    await page.locator('fencing-playground').evaluate((el, json) => el.setAttribute('scenario', json), JSON.stringify(await manyClients()));
    await expectText(page, 'title', 'Edited from: GC pause, no fencing');
    await openPanel(page);
    await page.locator(tid('find-swarm')).check();
    await page.selectOption(tid('find-k'), '4');
    await page.locator(tid('find-budget')).fill('100000');
    await page.locator(tid('find-seed')).fill('0');
    let shrunk;
    const shrinkTrace = await traced(browser, page, async () => {
      await click(page, tid('find-search'));
      await page.locator(tid('found-mark')).first().waitFor({ timeout: 60_000 });
      shrunk = numbers(await answer(page));
    });
    assert.equal(shrunk.state, 'found');
    assert.equal(shrunk.mode, 'main thread');
    assert.match(shrunk.text, /shrunk to 1 fault: A paused by GC for \d+ ms at \d+ ms; 12 events of the scenario's own left out/);
    const load = (await import('node:os')).loadavg()[0].toFixed(2);
    const top = (g) => `longest gap ${g.max.toFixed(1)} ms, ${g.over8} of ${g.n} over 8 ms, top ${g.top.map((x) => x.toFixed(1))}`;
    console.log(`cross-origin main thread (load ${load}): found in ${ms} ms, the finder's slowest step ${status.slowestMs} ms; ` +
      `find: ${top(gaps)}, trace ${JSON.stringify(find)}; long search: trace ${JSON.stringify(slices)}; ` +
      `drag: trace ${JSON.stringify(drag)}; long search + drag: ${top(longGaps)}; ` +
      `long shrink: done in ${shrunk.doneMs} ms, the finder's slowest step ${shrunk.slowestMs} ms, trace ${JSON.stringify(shrinkTrace)}`);
    assert.ok(after.x < before.x - 50, `the drag moved the pause's end: ${before.x} → ${after.x}`);
    // The search's slices (and its progress drawn between them): at most 8 ms of CPU each.
    assert.ok(slices.maxScriptCpuMs <= 8, `a task of the main-thread search ran ${slices.maxScriptCpuMs} ms of CPU: ${JSON.stringify(slices.busiestScript)}`);
    assert.ok(slices.tasks > 0 && slices.busiestScript.length > 0, 'the trace saw the search run');
    noLongTask('from Search to the counterexample shown', find);
    noLongTask('a drag during the main-thread search', drag);
    noLongTask('a main-thread search with a long shrink', shrinkTrace);
    assert.deepEqual(rec.outsideRequests().filter((u) => !u.startsWith(cdn.url)), []);
    assert.deepEqual([...rec.pageErrors, ...rec.consoleErrors, ...rec.failedResponses], []);
  } finally {
    await cdn.close();
    await host.close();
  }
});

