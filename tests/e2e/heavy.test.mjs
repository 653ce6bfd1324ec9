// A link to a heavy scenario must not freeze the page: the run goes on in slices, the page says
// it is computing, a real mouse click is answered in the meantime, and the verdict appears when
// the run is done. The scenario is a few bytes that make the most work a link can ask for: a
// watchdog renewing a 2 ms lease every millisecond for 10 s, 10 000 renewals (the size the
// worst cases are built at). On this machine its two runs (the run and its ghost) take well
// under a second, so the page is slowed down 20× as a slow phone would be (Chromium's CPU
// throttling), which makes the computing stretch long enough to click into; without slices
// the same page stays frozen until the verdict.
import assert from 'node:assert/strict';
import { assertClean, tid } from './helpers.mjs';
import { test } from './fixtures.mjs';

const RENEWALS = 10_000;

const heavyScenario = () => ({
  version: 1,
  name: 'Heavy: a watchdog renewing a 2 ms lease for 10 s',
  endMs: RENEWALS,
  lock: { ttlMs: 2, watchdog: true },
  clients: [{ name: 'A', events: [{ kind: 'acquire', atMs: 0 }, { kind: 'debit', atMs: RENEWALS / 2, amount: 10 }] }],
});

const hashOf = (scenario) => `#s=1.${Buffer.from(JSON.stringify(scenario)).toString('base64url')}`;

/** Runs in the page before it loads: notes, by the page's own clock, when the computing status
 * appears and goes, when a pointer goes down, when the playhead first moves after that, how
 * many slices the page queued while it computed, the waits of a 5 ms timer meanwhile, and
 * every task the browser reports as long (over 50 ms, the Long Tasks API) that started while
 * the page computed. */
function watch() {
  const at = (window.__heavy = { gaps: [], tasks: [], slices: 0 });
  // The page's slices: each is a task it queues with a zero-delay timer (src/ui/runs.rs,
  // slice_later) and so gives the main thread back in between. Counted, not timed.
  const setTimeoutOf = window.setTimeout.bind(window);
  // @ts-ignore: the same function, counting
  window.setTimeout = (fn, ms, ...rest) => {
    if (!ms && at.computing !== undefined && at.done === undefined) at.slices++;
    return setTimeoutOf(fn, ms, ...rest);
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const inside = at.computing !== undefined && at.done === undefined && e.startTime >= at.computing;
      if (inside) at.tasks.push(e.duration);
    }
  }).observe({ type: 'longtask' });
  document.addEventListener('pointerdown', () => { at.down ??= performance.now(); }, true);
  let x = null;
  new MutationObserver(() => {
    const computing = document.querySelector('[data-testid="computing"]');
    if (computing && at.computing === undefined) at.computing = performance.now();
    if (computing && document.querySelector('[data-testid="verdict"]')) at.verdictWhileComputing = true;
    if (!computing && at.computing !== undefined) at.done ??= performance.now();
    const line = document.querySelector('[data-testid="playhead"] line');
    const now = line?.getAttribute('x1');
    if (at.down !== undefined && x !== null && now !== x) at.moved ??= performance.now();
    if (at.down === undefined) x = now;
  }).observe(document, { subtree: true, childList: true, attributes: true });
  // Only waits that start and end while the page computes count: the first render, which
  // puts the computing status up, is not the run.
  let last = null;
  const tick = () => {
    const t = performance.now();
    const inside = at.computing !== undefined && at.done === undefined;
    if (inside && last !== null) at.gaps.push(t - last);
    last = inside ? t : null;
    if (at.done === undefined) setTimeout(tick, 5);
  };
  setTimeout(tick, 5);
}

/** Opens the heavy link with the page slowed down 20× and clicks the time axis as soon as the
 * page says it computes; returns what the page noted. */
async function openAndClick(page, cdp) {
  await page.goto('about:blank');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
  await page.goto('/' + hashOf(heavyScenario()));
  await page.locator(tid('computing')).waitFor({ timeout: 30_000 });
  // At once, a real click on the time axis, a quarter of the way along: the playhead goes there.
  const axis = await page.locator(tid('axis')).boundingBox();
  const target = axis.x + axis.width / 4;
  await page.mouse.click(target, axis.y + axis.height / 2);
  // Full speed again for the rest: drawing 10 000 renewals is not what this test is about.
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await page.locator(tid('verdict-word')).waitFor({ timeout: 50_000 });
  return { target, noted: await page.evaluate(() => window.__heavy) };
}

test('a heavy link computes in slices: the page answers a click meanwhile, then shows the verdict', async ({ rec }) => {
  test.setTimeout(150_000);
  const { page } = rec;
  const cdp = await page.context().newCDPSession(page);
  await page.addInitScript(watch);
  // The click must land while the page computes; the computing stretch lasts about 2-4 s and
  // reaching the page takes most of it (each of Playwright's round trips waits for a slice of
  // the throttled page: the click has been seen 1.6-3.6 s in). A click that came after the run,
  // or so near its end that the answer came after it too (its answer then waits for the last
  // slice and the drawing of 10 000 renewals), says nothing: it is tried again, up to four
  // times. A page that froze while computing would answer every click after the run, and fail.
  let t;
  let target;
  let tries = 0;
  while (tries < 4) {
    tries++;
    ({ target, noted: t } = await openAndClick(page, cdp));
    if (t.down < t.done && t.moved < t.done) break;
  }
  await rec.screenshot('heavy-link-done');
  const longest = Math.max(0, ...t.tasks);
  console.log(`heavy link (page slowed 20×), try ${tries} of 4: computing for ${(t.done - t.computing).toFixed(0)} ms; clicked ${(t.down - t.computing).toFixed(0)} ms in; playhead moved ${(t.moved - t.down).toFixed(0)} ms later; ${t.tasks.length} long tasks, the longest ${longest.toFixed(0)} ms; ${t.slices} slices; ${t.gaps.length} timer ticks, longest wait ${Math.max(0, ...t.gaps).toFixed(0)} ms`);
  assert.ok(t.down < t.done, 'in four tries, no click came while the page computed');
  // The run's verdict, computed by the simulation, and nothing claimed before it.
  assert.match(await page.locator(tid('verdict-word')).textContent(), /Safe/);
  assert.equal(await page.locator(tid('computing')).count(), 0);
  assert.equal(t.verdictWhileComputing, undefined, 'a verdict showed while the page computed');
  const line = await page.locator(`${tid('playhead')} line`).boundingBox();
  assert.ok(Math.abs(line.x - target) < 3, `the playhead stands at x ${line.x}, not at the click (${target})`);
  assert.ok(t.moved < t.done, `the playhead moved only after the run finished (${(t.moved - t.down).toFixed(0)} ms)`);
  // Slowed down 20×, 50 ms of the page's work take a second: the benchmark (FP_BENCH=1, run by
  // scripts/bench.sh with playwright.bench.config.mjs) holds the click's answer and every task
  // while the page computed under a second. The test command does not: how long a task lasts
  // depends on the machine's load (a loaded machine failed it with a 1.2 s task). What the test
  // holds is structure: the click was answered before the run ended, and the run went on in
  // many slices, the main thread given back in between (another timer ran meanwhile).
  if (process.env.FP_BENCH) {
    assert.ok(t.moved - t.down < 1_000, `the click took ${(t.moved - t.down).toFixed(0)} ms to be answered`);
    assert.ok(longest < 1_000, `a task held the main thread for ${longest.toFixed(0)} ms while the page computed`);
  }
  // How many times a 5 ms timer got in depends on the load (9 to 14 seen on one machine, and a
  // threshold of 10 failed once). What is held instead is that the run was cut into slices at
  // all: a page that computed it in one go queues one slice at most (17 were seen here; a
  // faster machine makes fewer, since each slice is bounded by time, not by work).
  assert.ok(t.slices >= 3, `the run went on in only ${t.slices} slices`);
  assert.ok(t.gaps.length >= 1, 'no other task ran while the page computed');
  assertClean(rec);
});
