// What the browser tests share that is about this project: where things are, the page
// recording's clean check, and helpers to find and drag the playground's parts. The harness
// itself (servers, browser, a recorded context per test) is @playwright/test's, with the
// fixtures in fixtures.mjs; run the tests with `npx playwright test`.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

export const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));

/** Asserts-style helper: throws with every problem listed if the page misbehaved. */
export function assertClean(rec) {
  const problems = [
    ...rec.pageErrors.map((e) => `page error: ${e}`),
    ...rec.consoleErrors.map((e) => `console error: ${e}`),
    ...rec.failedResponses.map((e) => `HTTP ${e}`),
    ...rec.outsideRequests().map((u) => `request left 127.0.0.1: ${u}`),
  ];
  if (problems.length) throw new Error(`page was not clean:\n  ${problems.join('\n  ')}`);
}

/** The selector of the element with `data-testid="id"`. */
export const tid = (id) => `[data-testid="${id}"]`;

/** Polls until the element's text contains `want` (renders are asynchronous). */
export async function expectText(page, id, want) {
  // A wait, not a time limit: generous so that a loaded machine only makes it slower.
  const deadline = Date.now() + 15_000;
  let got;
  while (Date.now() < deadline) {
    got = await page.locator(tid(id)).textContent().catch(() => null);
    if (want instanceof RegExp ? want.test(got ?? '') : got?.includes(want)) return got;
    await page.waitForTimeout(20);
  }
  assert.fail(`${id}: expected text containing ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
}

/** The centre of what a person grabs: the marker's hit area if it has one (not its label). */
export async function centre(page, id) {
  const el = page.locator(tid(id));
  const hit = el.locator(':scope > .hit');
  const box = await ((await hit.count()) ? hit.first() : el).boundingBox();
  assert.ok(box, `${id} is not on screen`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The page x of instant `ms`, read off the axis grid lines (data-testid grid-<ms>). */
export async function xOf(page, ms) {
  const lines = await page.locator('[data-testid^="grid-"]').evaluateAll((els) =>
    els.map((e) => [Number(e.dataset.testid.slice(5)), e.getBoundingClientRect().x]));
  assert.ok(lines.length >= 2, 'the axis has fewer than two grid lines');
  const [[t0, x0], [t1, x1]] = [lines[0], lines[lines.length - 1]];
  return x0 + ((x1 - x0) * (ms - t0)) / (t1 - t0);
}

/** A client name that would run script if it were ever treated as markup. */
/** Drags the event `id` along its lane to `ms` with a real mouse, in ten steps. */
export async function dragTo(page, id, ms) {
  const from = await centre(page, id);
  const toX = await xOf(page, ms);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) {
    await page.mouse.move(from.x + ((toX - from.x) * i) / 10, from.y);
  }
  await page.mouse.up();
}

export const XSS = '<img src=x onerror=alert(1)>';

/** A scenario whose every text field is markup that must stay text. */
export const markupScenario = () => ({
  version: 1,
  name: '<script>alert(2)</script>',
  caption: '<svg onload=alert(3)><b>not bold</b>',
  clients: [
    { name: XSS, events: [{ kind: 'acquire', atMs: 0 }, { kind: 'debit', atMs: 5, amount: 10 }] },
    { name: 'B', events: [{ kind: 'acquire', atMs: 40 }] },
  ],
});

/** Dismisses every dialog the page opens and returns the list of their messages. */
export function collectDialogs(page) {
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  return dialogs;
}

// Playwright's touchscreen only taps, so a finger's drag is driven through the DevTools protocol
// (Input.dispatchTouchEvent), which Chromium turns into the same touch and pointer events.
/** A finger: touches down at `from`, moves to `to` in `steps` moves, lifts. */
export async function swipe(page, from, to, steps = 12) {
  const cdp = await page.context().newCDPSession(page);
  const at = (p) => [{ x: p.x, y: p.y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(from) });
  for (let i = 1; i <= steps; i++) {
    const p = { x: from.x + ((to.x - from.x) * i) / steps, y: from.y + ((to.y - from.y) * i) / steps };
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(p) });
    // One move per frame, as a finger's moves arrive.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/**
 * Scrolls to each of the page's `n` <fencing-playground> elements in turn (each starts only when
 * it comes near the viewport) and waits until it shows its timeline.
 */
export async function startEmbeds(page, n) {
  const els = page.locator('fencing-playground');
  for (let i = 0; i < n; i++) {
    await els.nth(i).scrollIntoViewIfNeeded();
    await els.nth(i).locator(tid('timeline')).waitFor({ timeout: 20_000 });
  }
  assert.equal(await els.count(), n);
}
