// The first minute, as a newcomer spends it, with a real mouse on the release page: the page
// opens on the lock alone and reads "✗ Unsafe"; the hint's one button turns fencing on (it loads
// the fenced telling of the story) and the big verdict flips to "✓ Safe" with A's late debit
// refused; the next hint (drag A's pause to
// end before its lease runs out) shows what the fence lets through. Photographed at each step,
// 1280 and 390 px wide, light and dark, into artifacts/screenshots/. Beside it: the blank start
// and its hint, a palette GC pause that outlives the TTL, and the Redlock comparisons read off
// the screen.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, centre, xOf } from './helpers.mjs';
import { test } from './fixtures.mjs';

async function boot(page, url = '/') {
  await page.goto(url);
  const bootError = page.locator(tid('boot-error'));
  await page.locator(tid('timeline')).or(bootError).first().waitFor({ timeout: 20_000 });
  if (await bootError.count()) assert.fail(await bootError.innerText());
}

/** A real click at the centre of the element, scrolled into view first. */
async function click(page, id) {
  const el = page.locator(tid(id));
  await el.scrollIntoViewIfNeeded();
  const box = await el.boundingBox();
  assert.ok(box, `${id} is not on screen`);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

/** Drags the end handle of A's pause to the instant `ms` with the mouse, in small steps. */
async function dragPauseEndTo(page, ms) {
  await page.locator(tid('pause-A-1-end')).scrollIntoViewIfNeeded();
  const from = await centre(page, 'pause-A-1-end');
  const toX = await xOf(page, ms);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 10, from.y);
  await page.mouse.up();
}

const text = (page, id) => page.locator(tid(id)).innerText();

for (const width of [1280, 390]) {
  for (const scheme of ['light', 'dark']) {
    test(`first minute at ${width} px, ${scheme}: unsafe, fencing on, a short pause`, async ({ openPage }) => {
      const rec = await openPage({ viewport: { width, height: width > 500 ? 800 : 844 } });
      const { page } = rec;
      await page.emulateMedia({ colorScheme: scheme });
      await boot(page);
      const shot = (step) => rec.screenshot(`first-minute-${width}-${scheme}-${step}`);

      // 1. The lock alone: both debits land.
      await expectText(page, 'title', 'GC pause, no fencing');
      await expectText(page, 'verdict-word', '✗ Unsafe');
      await expectText(page, 'verdict', 'Balance 80');
      await expectText(page, 'step-A-2', 'accepted, balance 80');
      await expectText(page, 'ghost-summary', 'With strict fencing: balance 90, ✓ safe');
      await expectText(page, 'hint-button', 'Turn fencing on');
      await shot('1-unsafe');

      // 2. The hint's button: the storage checks fences, and A's late debit is refused.
      await click(page, 'hint-button');
      await expectText(page, 'verdict-word', '✓ Safe');
      // The click loads the fenced telling of the same story, so the title and caption stay true.
      await expectText(page, 'title', 'GC pause, fenced storage');
      await expectText(page, 'caption', 'the storage has already seen 34 and rejects it');
      await expectText(page, 'verdict', 'Balance 90, last fence 34');
      await expectText(page, 'step-A-2', 'rejected stale_fence: 33 ≤ 34');
      await expectText(page, 'ghost-summary', 'Without fencing: balance 80, ✗ unsafe');
      assert.equal(await page.locator(tid('fence-rule')).inputValue(), 'strict');
      await expectText(page, 'hint', "drag the right edge of A's GC pause to the left");
      assert.equal(await page.locator(tid('hint-button')).count(), 0, 'the next step is a drag');
      await shot('2-fenced');

      // 3. The next hint: A wakes while its lease is live, so the fence lets its debit through
      // and the watchdog keeps B out. Fencing refuses only the stale write.
      await dragPauseEndTo(page, 20);
      await expectText(page, 'step-A-2', 'accepted, balance 90');
      await expectText(page, 'step-B-0', 'lock_held');
      await expectText(page, 'verdict-word', '✓ Safe');
      await expectText(page, 'ghost-summary', 'Without fencing: balance 90, ✓ safe');
      await shot('3-short-pause');
      assertClean(rec);
    });
  }
}

test('a blank single Redis: the hint says how to add the first event; a palette GC pause outlives the TTL', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  const names = await page.locator(`${tid('preset')} option`).allInnerTexts();
  const single = names.indexOf('Blank: single Redis');
  assert.ok(single >= 0, `no blank single Redis in ${names.join(' | ')}`);
  assert.equal(names[single + 1], 'Blank: Redlock', 'the two blanks sit together');
  await page.selectOption(tid('preset'), 'blank-single');
  await expectText(page, 'title', 'Blank: single Redis');
  await expectText(page, 'hint', 'Add the first event');
  await expectText(page, 'hint', 'double-click a client');
  assert.doesNotMatch(await text(page, 'hint'), /drag/);
  await expectText(page, 'ghost-summary', 'Nothing to compare: no client sends a debit');
  assert.equal(await page.locator(tid('fence-rule')).inputValue(), 'strict');

  // Acquire, then a GC pause from the palette, both at the playhead (40 ms) on A.
  await click(page, 'tool-acquire');
  await expectText(page, 'step-A-0', 'granted fence 33, lease until 70 ms');
  await click(page, 'tool-GC-pause');
  const end = Number(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'));
  assert.equal(end, 40 + 45, 'a new pause lasts one and a half TTLs');
  // The new event is selected and its inspector has the hint's line; Escape gives it back.
  await page.keyboard.press('Escape');
  await expectText(page, 'hint', "drag the right edge of A's GC pause");
  assertClean(rec);
});

test('the Redlock comparisons read off the screen name the fenced variant and are true', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  const cases = [
    ['redlock-clock-jump', '✗ Unsafe', 'Redlock with a fence (non-standard), strict storage: balance 90, ✗ unsafe (two holders at once)'],
    ['redlock-order-unfenced', '✗ Unsafe', 'Redlock with a fence (non-standard), strict storage: balance 90, ✓ safe'],
    ['redlock-gc-during-acquire', '✓ Safe', 'Redlock with a fence (non-standard), strict storage: balance 90, ✓ safe'],
  ];
  for (const [id, word, line] of cases) {
    await page.selectOption(tid('preset'), id);
    await expectText(page, 'verdict-word', word);
    await expectText(page, 'ghost-summary', line);
    const lane = page.locator(tid('lane-ghost'));
    const laneText = await lane.textContent();
    assert.match(laneText, /fenced Redlock/, `${id}: the ghost lane names its comparison`);
    assert.match(laneText, /non-standard fence/, `${id}`);
    assert.doesNotMatch(laneText, /missing_token/, `${id}: the comparison never refuses for want of a token`);
    assert.doesNotMatch(await text(page, 'verdict'), /With strict fencing/, `${id}`);
  }
  // The clock jump's violation says who held the lock and whose lock was only valid.
  await page.selectOption(tid('preset'), 'redlock-clock-jump');
  await expectText(page, 'violations', "B held the lock from 30 to 58 ms while A's lock was still valid by its own clock");
  await expectText(page, 'legend', 'holds: the lock service says so');
  await expectText(page, 'legend', 'valid: inside Redlock');
  assertClean(rec);
});

test('liveness and the strict rule, where they bite', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  // Plain Redis mints no fence: safe, but nothing was written, and the banner says so apart.
  await page.selectOption(tid('preset'), 'plain-redis');
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'liveness', 'every debit was refused (2 of 2)');
  await expectText(page, 'liveness', 'B held the lock when it sent its debit of 10 at 32 ms');
  assert.doesNotMatch(await text(page, 'verdict-word'), /refused/);
  await expectText(page, 'ghost-summary', 'A lock service that mints fences: balance 80, ✓ safe');

  // An equal token is stale under strict: said at the badge, in the narration, and the hint's
  // button switches to non-decreasing, which lets A write again.
  await page.selectOption(tid('preset'), 'contract-5-equal-is-stale');
  await expectText(page, 'step-A-2', 'rejected stale_fence: 33 ≤ 33 (strict: one write per grant)');
  const why = await page.locator(`${tid('write-A-2')} > title`).textContent();
  assert.match(why, /one write per grant.*non_decreasing/);
  await expectText(page, 'narration', 'strict storage accepts one write per grant');
  await expectText(page, 'liveness', 'A held the lock when it sent its debit of 5 at 10 ms');
  await click(page, 'hint-button');
  assert.equal(await page.locator(tid('fence-rule')).inputValue(), 'non_decreasing');
  await expectText(page, 'step-A-2', 'accepted, balance 90');
  assert.equal(await page.locator(tid('liveness')).count(), 0, 'nothing refused, nothing to note');
  assertClean(rec);
});
