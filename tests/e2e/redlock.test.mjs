// Redlock by hand, with a real mouse, against the release build: from the empty Redlock
// scenario, schedule A and B, cut A off from R4 and R5, add a clock jump on R3 and drag it.
// At 15 ms the jump expires A's key on R3 early, B collects R3, R4 and R5, and both hold a
// valid lock: the checker's two_holders violation appears. Dragged past B's acquisition, the
// jump comes too late to help B, and the violation is gone. The last test drags a client event
// on a Redlock preset and reads the lanes mid-drag, as the live drag path draws them.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, centre, xOf } from './helpers.mjs';
import { test } from './fixtures.mjs';

const text = (page, id) => page.locator(tid(id)).textContent();


/** Where an event or a handle says it is: its aria-valuenow, or "at N ms" in its label. */
async function atMs(page, id) {
  const el = page.locator(tid(id));
  const now = await el.getAttribute('aria-valuenow', { timeout: 500 }).catch(() => null);
  if (now !== null) return Number(now);
  const label = (await el.getAttribute('aria-label', { timeout: 500 }).catch(() => null)) ?? '';
  const m = label.match(/ at (\d+) ms/);
  return m ? Number(m[1]) : NaN;
}

/** Polls until `id` is within a millisecond of `ms`. */
async function expectAt(page, id, ms) {
  const deadline = Date.now() + 5_000;
  let got;
  while (Date.now() < deadline) {
    got = await atMs(page, id);
    if (Math.abs(got - ms) <= 1) return got;
    await page.waitForTimeout(20);
  }
  assert.fail(`${id} is at ${got} ms, not near ${ms} ms`);
}

/** Drags the element `id` (its centre) so that its centre lands on instant `ms`. */
async function dragTo(page, id, ms) {
  const from = await centre(page, id);
  const toX = await xOf(page, ms);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  const steps = 10;
  for (let i = 1; i <= steps; i++) {
    // Wander off the element vertically too (pointer capture must keep the drag alive), but
    // not into the middle of the next 48 px lane: there, an event's body moves to it.
    await page.mouse.move(from.x + ((toX - from.x) * i) / steps, from.y + (i % 3) * 8);
  }
  await page.mouse.up();
}

/** Double-clicks lane `lane` at instant `ms`. */
async function doubleClick(page, lane, ms) {
  const { y } = await centre(page, lane);
  await page.mouse.dblclick(await xOf(page, ms), y);
}

/** Opens the page and picks preset `id` from the picker. */
async function loadPreset(page, id) {
  await page.goto('/'); // the served dist/ (baseURL)
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), id);
}

async function click(page, id) {
  await page.locator(tid(id)).click();
}

/** From the picker's empty Redlock to A and B scheduled and A cut off from R4 and R5. */
async function buildTheSchedule(page) {
  await loadPreset(page, 'redlock-empty');
  await expectText(page, 'title', 'Blank: Redlock');
  assert.equal(await page.locator('[data-testid^="instance-R"]').count(), 5);

  // A acquires at 0 and debits at 40; B acquires at 20 and debits at 35.
  await click(page, 'tool-acquire'); // adds A's acquire at the playhead (70 ms)
  await expectAt(page, 'event-A-0', 70);
  await dragTo(page, 'event-A-0', 0);
  await expectAt(page, 'event-A-0', 0);
  await doubleClick(page, 'lane-B', 20);
  await expectAt(page, 'event-B-0', 20);
  await click(page, 'tool-debit-10'); // B is selected: its debit lands at the playhead
  await dragTo(page, 'event-B-1', 35);
  await expectAt(page, 'event-B-1', 35);
  await doubleClick(page, 'lane-A', 40);
  await expectAt(page, 'event-A-1', 40);
  // A holds all five instances, so B's attempt fails and B does not write.
  await expectText(page, 'attempt-A-0', '✓ 5/5 in 10 ms · valid 48 ms');
  await expectText(page, 'attempt-B-0', '✗ 0/5');
  await expectText(page, 'step-B-1', 'skipped');
  await expectText(page, 'step-A-1', 'accepted, balance 90');

  // Cut A off from R4: the palette adds a partition at 70 ms; its edges go to 0 and 140 ms.
  await page.selectOption(tid('instance-target'), '3');
  await click(page, 'itool-partition');
  await expectAt(page, 'iev-R4-0', 70);
  await dragTo(page, 'iev-R4-0-start', 0);
  await expectAt(page, 'iev-R4-0-start', 0);
  await dragTo(page, 'iev-R4-0-end', 140);
  await expectAt(page, 'iev-R4-0-end', 140);
  await page.selectOption(tid('inspect-who'), 'A');
  await expectText(page, 'instance-R4', 'cut off from A');

  // And from R5: a double-click on its lane adds a partition (the last instance tool).
  await doubleClick(page, 'instance-R5', 10);
  await expectAt(page, 'iev-R5-0', 10);
  await dragTo(page, 'iev-R5-0-start', 0);
  await dragTo(page, 'iev-R5-0-end', 140);
  await expectAt(page, 'iev-R5-0-start', 0);
  await expectAt(page, 'iev-R5-0-end', 140);
  await page.selectOption(tid('inspect-who'), 'A');
  await expectText(page, 'instance-R5', 'cut off from A');

  // A gets R1, R2, R3: a bare majority. B gets only R4 and R5.
  await expectText(page, 'attempt-A-0', '✓ 3/5 in 16 ms · valid 42 ms');
  await expectText(page, 'attempt-B-0', '✗ 2/5');
  await expectText(page, 'verdict-word', '✓ Safe');
}

test('mouse: a clock jump on R3, dragged by hand, makes and unmakes a second holder', async ({ openPage }) => {
  test.setTimeout(120_000);
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await buildTheSchedule(page);

  // A clock jump on R3 from the palette, at the playhead (70 ms): after A's key there has
  // expired anyway, so it changes nothing.
  await page.selectOption(tid('instance-target'), '2');
  await click(page, 'itool-clock');
  await expectAt(page, 'iev-R3-0', 70);
  await expectText(page, 'instance-R3', 'clock jumps +60 ms');
  await expectText(page, 'verdict-word', '✓ Safe');

  // Dragged to 15 ms: R3 expires A's key early and hands it to B.
  await dragTo(page, 'iev-R3-0', 15);
  await expectAt(page, 'iev-R3-0', 15);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await expectText(page, 'violations', "B held the lock from 30 to 58 ms while A's lock was still valid by its own clock");
  await expectText(page, 'attempt-B-0', '✓ 3/5 in 10 ms · valid 48 ms');
  await expectText(page, 'clock-R3', 'clock +60 ms');
  await expectText(page, 'key-R3-1', 'B');
  assert.equal(await page.locator(tid('stale-A-0')).count(), 1, "A's belief outlives its majority");
  await rec.screenshot('redlock-clock-jump-by-hand-unsafe');

  // Dragged past B's acquisition (B asks R3 at 24 ms): too late to help B.
  await dragTo(page, 'iev-R3-0', 40);
  await expectAt(page, 'iev-R3-0', 40);
  await expectText(page, 'verdict-word', '✓ Safe');
  assert.equal(await page.locator(tid('violations')).count(), 0);
  await expectText(page, 'attempt-B-0', '✗ 2/5');

  // The whole drag was one undo step: back to the double holder.
  await click(page, 'undo');
  await expectAt(page, 'iev-R3-0', 15);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  assertClean(rec);
});

test('mouse: an instance event dragged onto another instance\'s lane moves there', async ({ rec }) => {
  const { page } = rec;
  await loadPreset(page, 'redlock-clock-jump');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  assert.equal(await page.locator('[data-iev^="0-"][data-part="body"]').count(), 0, 'R1 starts without events');
  // R3's jump, down-and-up through R4's lane, ending on R1's lane at 30 ms.
  const from = await centre(page, 'iev-R3-0');
  const r4 = await centre(page, 'instance-R4');
  const r1 = await centre(page, 'instance-R1');
  const toX = await xOf(page, 30);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x, r4.y, { steps: 4 });
  await page.mouse.move(toX, r1.y, { steps: 8 });
  await page.mouse.up();
  await expectAt(page, 'iev-R1-0', 30);
  assert.equal(await page.locator('[data-iev^="2-"][data-part="body"]').count(), 0, 'R3 has no jump left');
  assert.equal(await page.locator('[data-iev^="3-"][data-part="body"]').count(), 1, 'R4 keeps only its partition');
  await expectText(page, 'clock-R1', 'clock +60 ms');
  await expectText(page, 'clock-R3', 'clock exact');
  // One undo step puts it back on R3, at 15 ms where the preset has it.
  await click(page, 'undo');
  await expectAt(page, 'iev-R3-0', 15);
  assertClean(rec);
});

test('mouse: instance palette buttons dragged onto an instance\'s lane add their event there', async ({ openPage }) => {
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await loadPreset(page, 'redlock-empty');
  await expectText(page, 'title', 'Blank: Redlock');
  const drop = async (tool, lane, ms) => {
    const from = await centre(page, tool);
    const to = await centre(page, lane);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(await xOf(page, ms), to.y, { steps: 12 });
    await page.mouse.up();
  };
  await drop('itool-partition', 'instance-R2', 50);
  await expectAt(page, 'iev-R2-0', 50);
  await expectText(page, 'instance-R2', 'cut off');
  // The instance palette's "Add to instance" choice is for clicks: a drop goes where it lands.
  assert.equal(await page.locator(tid('instance-target')).inputValue(), '0');
  // A client's tool dropped on an instance lane, or an instance's on a client lane, adds nothing.
  await drop('tool-acquire', 'instance-R4', 30);
  await drop('itool-crash', 'lane-A', 30);
  assert.equal(await page.locator('[data-iev][data-part="body"]').count(), 1);
  assert.equal(await page.locator('[data-ev][data-part="body"]').count(), 0);
  assertClean(rec);
});

test('keyboard: an instance event is nudged, moved to another instance and deleted', async ({ rec }) => {
  const { page } = rec;
  await loadPreset(page, 'redlock-clock-jump');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  // R3's jump is its only event; R4 and R5 have their partitions first.
  await page.locator(tid('iev-R3-0')).focus();
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Shift+ArrowRight');
  await expectAt(page, 'iev-R3-0', 35);
  await expectText(page, 'verdict-word', '✓ Safe');
  await page.keyboard.press('Control+z');
  await expectAt(page, 'iev-R3-0', 25);
  await page.keyboard.press('ArrowUp');
  await expectAt(page, 'iev-R2-0', 25);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'iev-R2-0');
  await page.keyboard.press('Delete');
  assert.equal(await page.locator('[data-iev^="1-"]').count(), 0);
  await expectText(page, 'clock-R2', 'clock exact');
  assertClean(rec);
});

test('mouse: mid-drag on a Redlock preset, the instance lanes, the brackets and the verdict follow without Yew; after the drop Yew agrees', async ({ openPage }) => {
  // Tall enough for B's lane under the five instances'.
  const rec = await openPage({ viewport: { width: 1280, height: 1000 } });
  const { page } = rec;
  await loadPreset(page, 'redlock-clock-jump');
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await expectText(page, 'key-R3-1', 'B');
  assert.equal(await page.locator(tid('key-R1-1')).count(), 0, 'B starts without a key on R1');
  // B's acquire from 20 ms to 64 ms, after A's keys have run out everywhere: B gets all five.
  const from = await centre(page, 'event-B-0');
  const toX = await xOf(page, 64);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 12, from.y);
  // Mid-drag, the button still down: the banner, the client and instance lanes and the brackets
  // show the new run, and what lags says so (its notes are filled by the live path alone).
  await expectText(page, 'verdict-word', '✓ Safe');
  await expectText(page, 'verdict', 'Balance 90');
  await expectText(page, 'attempt-B-0', '✓ 5/5 in 10 ms · valid 48 ms');
  await expectText(page, 'key-R1-1', 'B');
  await expectText(page, 'step-B-1', 'skipped');
  await expectText(page, 'caption-lags-live', 'Edited by this drag');
  await expectText(page, 'inspector-lags', 'updates when you let go');
  const at = await atMs(page, 'event-B-0');
  assert.ok(Math.abs(at - 64) <= 2, `mid-drag B acquires at ${at} ms`);
  const mid = {
    verdict: await text(page, 'verdict'),
    readout: await text(page, 'readout'),
    lanes: await page.locator('.fp-lanes').innerHTML(),
  };
  await page.mouse.up();
  // Yew has every move: nothing is marked as lagging, and its render draws what was shown.
  await expectText(page, 'edited', 'Edited');
  assert.equal(await page.locator(tid('caption-lags-live')).count(), 0, 'the preset caption is gone');
  assert.equal(await page.locator('[data-stale]').count(), 0, 'a part is still marked as lagging');
  assert.equal(await text(page, 'verdict'), mid.verdict);
  assert.equal(await text(page, 'readout'), mid.readout);
  assert.equal(await page.locator('.fp-lanes').innerHTML(), mid.lanes);
  assert.equal(await atMs(page, 'event-B-0'), at);
  // The drag was one undo step: back to the second holder.
  await click(page, 'undo');
  await expectAt(page, 'event-B-0', 20);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  assert.equal(await page.locator(tid('key-R1-1')).count(), 0);
  assertClean(rec);
});
