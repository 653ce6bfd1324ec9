// The first stage (src/first/, www/first.js): a first visit draws the default scenario from a
// small wasm and can be dragged before the full page has arrived; the full page then takes
// over with the reader's edit. To see the first stage for as long as a test needs, the full
// page's wasm is held back at the network until the test lets it go.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, centre, xOf, swipe } from './helpers.mjs';
import { test } from './fixtures.mjs';
import { expectNoViolations } from './axe.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, context: { hasTouch: true, isMobile: true } };

/** Opens `/` with the full page's wasm held until `release()`; resolves once the stage shows. */
async function openFirst(openPage, options, { dark = false } = {}) {
  const rec = await openPage(options);
  if (dark) await rec.page.emulateMedia({ colorScheme: 'dark' });
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await rec.page.route('**/pkg/fencing_playground_bg.wasm', async (route) => {
    await held;
    await route.continue();
  });
  await rec.page.goto('/');
  await rec.page.locator(tid('first-stage')).waitFor({ timeout: 20_000 });
  return { rec, page: rec.page, release };
}

test('first stage: a mouse drag of A\'s pause reruns the scenario; the full page takes over with the edit, after the drag in progress ends', async ({ openPage }) => {
  const { rec, page, release } = await openFirst(openPage);
  await expectText(page, 'verdict', '✗ Unsafe');
  await expectText(page, 'title', 'GC pause, no fencing');
  await expectText(page, 'hint', "drag the right edge of A's GC pause to the left");
  assert.equal(await page.locator(tid('first-note')).isVisible(), true);
  assert.equal(await page.locator(tid('playground')).count(), 0, 'the full page is not there yet');
  await expectNoViolations(page, 'the first stage');

  // The pause's end to 20 ms: A wakes inside its lease, and the core says the run is safe.
  const end = await centre(page, 'pause-A-1-end');
  await page.mouse.move(end.x, end.y);
  await page.mouse.down();
  await page.mouse.move(await xOf(page, 20), end.y, { steps: 10 });
  await expectText(page, 'verdict', '✓ Safe');
  await expectText(page, 'title', 'GC pause, no fencing'); // the heading changes on the drop
  await page.mouse.up();
  await expectText(page, 'verdict', 'Balance 90');
  await expectText(page, 'title', 'Edited from: GC pause, no fencing');
  await expectText(page, 'caption', 'Edited: the preset');
  assert.match(await page.evaluate(() => location.hash), /^#s=1\./);
  await rec.screenshot('first stage after a drag');

  // A drag under way when the full page arrives: the stage stays until the button is up.
  const debit = await centre(page, 'event-B-1');
  await page.mouse.move(debit.x, debit.y);
  await page.mouse.down();
  await page.mouse.move(debit.x + 40, debit.y, { steps: 4 });
  release();
  await page.waitForResponse('**/pkg/fencing_playground_bg.wasm');
  await page.waitForTimeout(1_500);
  assert.equal(await page.locator(tid('first-stage')).count(), 1, 'the stage went away mid-drag');
  await page.mouse.move(await xOf(page, 40), debit.y, { steps: 4 });
  await page.mouse.up();

  await page.locator(tid('playground')).waitFor({ timeout: 20_000 });
  assert.equal(await page.locator(tid('first-stage')).count(), 0);
  await expectText(page, 'title', 'Edited from: GC pause, no fencing');
  await expectText(page, 'verdict', '✓ Safe');
  assert.equal(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'), '20');
  const debitAt = await page.locator(tid('event-B-1')).getAttribute('aria-label');
  assert.match(debitAt, /at 40 ms/, `B's debit kept its place from the first stage: ${debitAt}`);
  assertClean(rec);
});

test('first stage on a 390 px phone, dark: the timeline fits, a finger drag reruns the scenario', async ({ openPage }) => {
  const { rec, page, release } = await openFirst(openPage, PHONE, { dark: true });
  const width = await page.locator(tid('first-timeline')).evaluate((svg) => svg.getBoundingClientRect().width);
  assert.ok(width <= 390, `the timeline is ${width} px wide`);
  await expectNoViolations(page, 'the first stage at 390 px, dark');
  const scrollBefore = await page.evaluate(() => window.scrollY);
  const end = await centre(page, 'pause-A-1-end');
  await swipe(page, end, { x: await xOf(page, 20), y: end.y });
  await expectText(page, 'verdict', '✓ Safe');
  assert.equal(await page.evaluate(() => window.scrollY), scrollBefore, 'the finger scrolled the page');
  await rec.screenshot('first stage on a phone after a drag');
  release();
  await page.locator(tid('playground')).waitFor({ timeout: 20_000 });
  await expectText(page, 'verdict', '✓ Safe');
  assertClean(rec);
});

/** Notes in `stages` each time the first stage is on the page; call before `goto`. */
async function watchStages(page) {
  const stages = [];
  await page.exposeBinding('__seen', (_, what) => stages.push(what));
  await page.addInitScript(() => {
    new MutationObserver(() => {
      if (document.querySelector('[data-testid="first-stage"]')) window.__seen('first');
    }).observe(document, { childList: true, subtree: true });
  });
  return stages;
}

test('a link or a saved scenario of one Redis is drawn by the first stage, with its own heading; the full page takes over with it', async ({ openPage }) => {
  const rec = await openPage();
  const { page } = rec;
  const stages = await watchStages(page);
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route('**/pkg/fencing_playground_bg.wasm', async (route) => {
    await held;
    await route.continue();
  });
  // First visit: the default scenario, dragged: A's pause ends at 20 ms. The link it leaves is
  // the link a reader would share.
  await page.goto('/');
  await page.locator(tid('first-stage')).waitFor({ timeout: 20_000 });
  const end = await centre(page, 'pause-A-1-end');
  await page.mouse.move(end.x, end.y);
  await page.mouse.down();
  await page.mouse.move(await xOf(page, 20), end.y, { steps: 10 });
  await page.mouse.up();
  await expectText(page, 'verdict', '✓ Safe');
  const link = await page.evaluate(() => location.hash);
  assert.match(link, /^#s=1\./);

  // A reader opens that link: the first stage draws it, and says it is an edited preset.
  stages.length = 0;
  await page.goto(`/?from=post${link}`);
  await page.locator(tid('first-stage')).waitFor({ timeout: 20_000 });
  await expectText(page, 'title', 'Edited from: GC pause, no fencing');
  await expectText(page, 'caption', 'Edited: the preset');
  await expectText(page, 'verdict', '✓ Safe');
  await expectText(page, 'hint', "drag either edge of A's GC pause");
  assert.equal(await page.locator(tid('playground')).count(), 0, 'the full page is not there yet');
  await rec.screenshot('first stage drawing a link');
  // Dragged back to 45 ms, the preset as shipped: unsafe again, and it tells its story again.
  const again = await centre(page, 'pause-A-1-end');
  await page.mouse.move(again.x, again.y);
  await page.mouse.down();
  await page.mouse.move(await xOf(page, 45), again.y, { steps: 10 });
  await page.mouse.up();
  await expectText(page, 'verdict', '✗ Unsafe');
  await expectText(page, 'title', 'GC pause, no fencing');
  release();
  await page.locator(tid('playground')).waitFor({ timeout: 20_000 });
  await expectText(page, 'title', 'GC pause, no fencing');
  await expectText(page, 'verdict', '✗ Unsafe');
  assert.equal(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'), '45');
  assert.deepEqual([...new Set(stages)], ['first']);

  // The full page saves the scenario on an edit; back without a link, the saved one is drawn
  // by the first stage before the full page comes.
  await page.locator(tid('pause-A-1-end')).focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => localStorage.getItem('fencing-playground:v1') !== null);
  stages.length = 0;
  await page.goto('/');
  await page.locator(tid('playground')).waitFor({ timeout: 20_000 });
  assert.deepEqual([...new Set(stages)], ['first'], 'a returning reader did not see the first stage');
  assert.equal(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'), '44');
  assertClean(rec);
});

test('a link of every service but one Redis, or a link that cannot be read, starts with the full page: one request for its wasm, never the first stage', async ({ openPage }) => {
  const rec = await openPage();
  const { page } = rec;
  const stages = await watchStages(page);
  const wasmRequests = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/pkg/fencing_playground_bg.wasm')) wasmRequests.push(r.url());
  });
  await page.goto('/#nothing-here');
  await page.locator(tid('playground')).waitFor({ timeout: 20_000 });
  await expectText(page, 'problem', 'This link could not be opened');
  assert.deepEqual(stages, [], 'a damaged link was given to the first stage');
  assert.equal(wasmRequests.length, 1, `the full page's wasm was requested ${wasmRequests.length} times`);
  // A preset of each other service, through the picker of the full page, then its link: the
  // first stage draws none of them (no Redlock, etcd, advisory, ZooKeeper or lease lanes), so
  // main.js never runs it for them (index.html preloads the first stage's files before main.js
  // can choose, so their requests do not tell).
  let before = await page.evaluate(() => location.hash);
  for (const id of ['redlock-happy', 'etcd-pause-fenced', 'advisory-paused-holder', 'zk-pause-czxid', 'lease-paused-holder']) {
    await page.selectOption(tid('preset'), id);
    await page.waitForFunction((b) => location.hash !== b && location.hash.startsWith('#s=1.'), before);
    const link = await page.evaluate(() => location.hash);
    before = link;
    wasmRequests.length = 0;
    stages.length = 0;
    await page.goto(`/?${id}${link}`);
    await page.locator(tid('playground')).waitFor({ timeout: 20_000 });
    assert.deepEqual(stages, [], `the ${id} link was given to the first stage`);
    assert.equal(wasmRequests.length, 1, `${id}: the full page's wasm was requested ${wasmRequests.length} times`);
    assert.equal(await page.locator(tid('preset')).inputValue(), id, `${id}: the link opened another scenario`);
    // main.js asks for the full page's wasm at once only when it routes the link past the first
    // stage (a first stage that refused the link would ask for it only after running).
    assert.equal(await page.locator('link[rel="preload"][href$="pkg/fencing_playground_bg.wasm"]').count(), 1, `${id}: the link was routed to the first stage`);
  }
  assertClean(rec);
});
