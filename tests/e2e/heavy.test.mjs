// A link to a heavy scenario must not freeze the page: the run goes on in slices, the page says
// it is computing, a real mouse click is answered in the meantime, and the verdict appears when
// the run is done. The scenario is heavy to compute and light to draw: 3 500 slews of the lock's
// clock, all running at once (each reading of that clock adds them up), under 200 acquisitions
// and debits, about half the entries the caps allow.
import assert from 'node:assert/strict';
import { assertClean, tid, xOf } from './helpers.mjs';
import { test } from './fixtures.mjs';

const SLEWS = 3_500;
const ROUNDS = 100;

function heavyScenario() {
  const jumps = [];
  for (let i = 0; i < SLEWS; i++) jumps.push({ atMs: i, byMs: i % 2 ? -7 : 7, overMs: 30_000 });
  const lane = (name, offset) => ({
    name,
    events: Array.from({ length: ROUNDS }, (_, i) => [
      { kind: 'acquire', atMs: i * 62 + offset },
      { kind: 'debit', atMs: i * 62 + offset + 1, amount: 1 },
    ]).flat(),
  });
  return {
    version: 1,
    name: 'Heavy: a lock clock under 3500 slews',
    endMs: ROUNDS * 62,
    lock: { ttlMs: 30, clock: { jumps } },
    storage: { balance: 1000 },
    clients: [lane('A', 0), lane('B', 31)],
  };
}

const hashOf = (scenario) => `#s=1.${Buffer.from(JSON.stringify(scenario)).toString('base64url')}`;

test('a heavy link computes in slices: the page answers a click meanwhile, then shows the verdict', async ({ rec }) => {
  const { page } = rec;
  const started = Date.now();
  await page.goto('/' + hashOf(heavyScenario()));
  const computing = page.locator(tid('computing'));
  await computing.waitFor({ timeout: 20_000 });
  assert.match(await computing.textContent(), /Computing the run/);
  // No verdict while it computes: nothing on screen claims Safe or Unsafe before the run says so.
  assert.equal(await page.locator(tid('verdict')).count(), 0);

  // The main thread keeps turning: timers fire on time while the run goes on.
  const gaps = await page.evaluate(async () => {
    const out = [];
    let last = performance.now();
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const t = performance.now();
      out.push(t - last);
      last = t;
    }
    return out;
  });
  assert.ok(await computing.isVisible(), 'the run was still computing while the timers ran');

  // A real click on the time axis moves the playhead while the run is still going.
  const line = page.locator(`${tid('playhead')} line`);
  const before = Number(await line.getAttribute('x1'));
  const axis = await page.locator(tid('axis')).boundingBox();
  const x = await xOf(page, 3_000);
  const clicked = Date.now();
  await page.mouse.click(x, axis.y + axis.height / 2);
  let after = before;
  while (Date.now() - clicked < 5_000 && Math.abs(after - before) < 5) {
    after = Number(await line.getAttribute('x1'));
  }
  const answeredMs = Date.now() - clicked;
  assert.ok(Math.abs(after - before) >= 5, `the playhead did not move (x ${before} → ${after})`);
  assert.ok(await computing.isVisible(), 'the click was answered before the run finished');
  await rec.screenshot('heavy-link-computing');

  // Then the run finishes and the verdict appears, computed by the simulation.
  await page.locator(tid('verdict-word')).waitFor({ timeout: 50_000 });
  const totalMs = Date.now() - started;
  assert.equal(await computing.count(), 0);
  assert.match(await page.locator(tid('verdict-word')).textContent(), /Safe/);
  console.log(`heavy link: computed in about ${totalMs} ms; click answered in ${answeredMs} ms; timer gaps max ${Math.max(...gaps).toFixed(1)} ms`);
  assert.ok(answeredMs < 1_000, `the click took ${answeredMs} ms to be answered`);
  assert.ok(Math.max(...gaps) < 250, `a timer waited ${Math.max(...gaps).toFixed(0)} ms`);
  assertClean(rec);
});
