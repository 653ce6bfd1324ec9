// The timeline playground with a real mouse and a real keyboard, against the release build.
// A newcomer's one gesture: shorten A's GC pause so A wakes before its lease runs out, and
// watch the stale debit disappear; lengthen it again and watch it come back.
//
// About the watchdog: a lease is a lease. Without renewal A's lease ends at 30 ms however short
// its pause, so B, which asks at 31 ms, is always granted fence 34. B is refused with lock_held
// only if A's lease is still alive at 31 ms, and that takes a renewal. The GC-pause preset has
// A's watchdog on (it renews every TTL/2 while A runs, and stalls while A is paused), so a
// short pause keeps B out; a separate test switches the watchdog off to show the bare lease.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, centre, xOf } from './helpers.mjs';
import { test } from './fixtures.mjs';


async function boot(rec) {
  const { page } = rec;
  await page.goto('/'); // the served dist/ (baseURL)
  const bootError = page.locator(tid('boot-error'));
  await page.locator(tid('timeline')).or(bootError).first().waitFor({ timeout: 20_000 });
  if (await bootError.count()) assert.fail(await bootError.innerText());
  // Load the fenced preset (the default page is one click from it) and make sure fencing is on.
  await page.selectOption(tid('preset'), 'gc-pause-fenced');
  assert.equal(await page.locator(tid('fence-rule')).inputValue(), 'strict');
  assert.equal(await page.locator(tid('watchdog')).isChecked(), true);
}

const text = (page, id) => page.locator(tid(id)).textContent();


/** Drags the end handle of A's pause to the instant `ms`, in small steps. */
async function dragPauseEndTo(page, ms) {
  const from = await centre(page, 'pause-A-1-end');
  const toX = await xOf(page, ms);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  const steps = 12;
  for (let i = 1; i <= steps; i++) {
    // Wander off the handle vertically too: pointer capture must keep the drag alive.
    await page.mouse.move(from.x + ((toX - from.x) * i) / steps, from.y + (i % 3) * 25);
  }
  await page.mouse.up();
}

/** The handle `id` reads `want`, once the last key press has been drawn (on a busy machine the
 * reading can come before the render). */
async function expectValueNow(page, id, want) {
  const deadline = Date.now() + 5_000;
  let got;
  while (Date.now() < deadline) {
    got = await page.locator(tid(id)).getAttribute('aria-valuenow');
    if (got === want) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(got, want, `${id}'s aria-valuenow`);
}

/** The pause ends within a millisecond of where the pointer let go. */
async function expectEndNear(page, ms) {
  const end = Number(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'));
  assert.ok(Math.abs(end - ms) <= 1, `the pause ends at ${end} ms, not near ${ms} ms`);
}

async function expectShortPause(page, { watchdog }) {
  await expectText(page, 'step-A-2', 'accepted, balance 90');
  if (watchdog) {
    await expectText(page, 'step-B-0', 'lock_held');
    await expectText(page, 'verdict', 'Balance 90');
  } else {
    await expectText(page, 'step-B-0', 'granted fence 34');
    await expectText(page, 'verdict', 'Balance 80');
  }
  await expectText(page, 'verdict-word', 'Safe');
  assert.equal(await page.locator(tid('stale-A-0')).count(), 0, 'no stale belief is left');
}

async function expectLongPause(page) {
  await expectText(page, 'step-A-2', 'rejected stale_fence: 33 ≤ 34');
  await expectText(page, 'step-B-0', 'granted fence 34');
  await expectText(page, 'write-A-2', '33 ≤ 34');
  await expectText(page, 'ghost-summary', 'Without fencing: balance 80, ✗ unsafe');
  await expectText(page, 'verdict-word', 'Safe');
  assert.equal(await page.locator(tid('stale-A-0')).count(), 1, 'A believes past its lease');
}

test('mouse: shortening the GC pause below the TTL flips the verdicts, and back', async ({ rec }) => {
  const { page } = rec;
  await boot(rec);
  await expectLongPause(page);

  await dragPauseEndTo(page, 20);
  await expectEndNear(page, 20);
  await expectShortPause(page, { watchdog: true });

  await dragPauseEndTo(page, 50);
  await expectEndNear(page, 50);
  await expectLongPause(page);
  assertClean(rec);
});

test('mouse: mid-drag the banner, lanes and reading follow the pointer without Yew; after the drop Yew agrees', async ({ rec }) => {
  const { page } = rec;
  await boot(rec);
  await expectLongPause(page);
  const caption = await text(page, 'caption');
  const from = await centre(page, 'pause-A-1-end');
  const toX = await xOf(page, 20);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 12, from.y);
  // Mid-drag, the button still down: the banner, the lanes and the reading show the new run.
  await expectText(page, 'verdict', 'Balance 90');
  await expectText(page, 'step-B-0', 'lock_held');
  await expectText(page, 'step-A-2', 'accepted, balance 90');
  const pauseEnd = Number(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'));
  assert.ok(Math.abs(pauseEnd - 20) <= 1, `mid-drag the pause ends at ${pauseEnd} ms`);
  // What lags says so: the inspector's fields, the preset's caption (which states the preset's
  // outcome), the narration and the commands.
  await expectText(page, 'inspector-lags', 'updates when you let go');
  await expectText(page, 'caption-lags-live', 'Edited by this drag');
  await expectText(page, 'narration', 'updates when you let go');
  const mid = {
    verdict: await text(page, 'verdict'),
    readout: await text(page, 'readout'),
    lanes: await page.locator('.fp-lanes').innerHTML(),
    arrows: await page.locator('g.fp-messages').innerHTML(),
  };
  await page.mouse.up();
  // Yew has every move: the caption says the preset is edited, nothing is marked as lagging,
  // and its render draws what the live path drew.
  await expectText(page, 'edited', 'Edited');
  assert.equal(await page.locator(tid('caption-lags-live')).count(), 0, 'the preset caption is gone');
  assert.equal(await page.locator('[data-stale]').count(), 0, 'a part is still marked as lagging');
  assert.equal(await page.locator(tid('stale-note')).count(), 0);
  assert.equal(await text(page, 'verdict'), mid.verdict);
  assert.equal(await text(page, 'readout'), mid.readout);
  assert.equal(await page.locator('.fp-lanes').innerHTML(), mid.lanes);
  assert.equal(await page.locator('g.fp-messages').innerHTML(), mid.arrows);
  await expectEndNear(page, 20);
  // Undo and redo go through Yew's state alone: the redone scenario is the one shown mid-drag.
  await page.locator(tid('undo')).click();
  await expectLongPause(page);
  await expectText(page, 'caption', caption);
  await page.locator(tid('redo')).click();
  await expectShortPause(page, { watchdog: true });
  assert.equal(await text(page, 'verdict'), mid.verdict);
  assert.equal(await text(page, 'readout'), mid.readout);
  await expectEndNear(page, 20);
  assertClean(rec);
});

test('mouse: the default page as a newcomer finds it', async ({ rec }) => {
  const { page } = rec;
  await boot(rec);
  await expectText(page, 'hint', "drag the right edge of A's GC pause to the left");
  await expectLongPause(page);
  await dragPauseEndTo(page, 20);
  await expectShortPause(page, { watchdog: true });
  // One drag is one undo step.
  await page.locator(tid('undo')).click();
  await expectLongPause(page);
  assertClean(rec);
});

test('mouse: without the watchdog a short pause cannot keep B out', async ({ rec }) => {
  const { page } = rec;
  await boot(rec);
  await page.locator(tid('watchdog')).click();
  assert.equal(await page.locator(tid('watchdog')).isChecked(), false);
  await dragPauseEndTo(page, 20);
  await expectShortPause(page, { watchdog: false });
  assertClean(rec);
});

/** Presses Tab until the focused element is `id` (at most `limit` presses). */
async function tabTo(page, id, limit = 60) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === id) return;
  }
  assert.fail(`Tab never reached ${id}`);
}

test('keyboard only: Tab to the pause edge, Shift+arrows resize it, Ctrl+Z undoes', async ({ rec }) => {
  const { page } = rec;
  await boot(rec);
  await page.locator(tid('preset')).focus();
  await expectLongPause(page);

  // The pause body comes first, then its start and end handles.
  await tabTo(page, 'pause-A-1');
  await tabTo(page, 'pause-A-1-end', 3);
  for (let i = 0; i < 2; i++) await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expectValueNow(page, 'pause-A-1-end', '24');
  await expectShortPause(page, { watchdog: true });

  for (let i = 0; i < 2; i++) await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expectValueNow(page, 'pause-A-1-end', '45');
  await expectLongPause(page);

  // Undo the last three key presses: back to the short pause; redo all of them again.
  for (let i = 0; i < 3; i++) await page.keyboard.press('Control+z');
  await expectShortPause(page, { watchdog: true });
  for (let i = 0; i < 3; i++) await page.keyboard.press('Control+Shift+z');
  await expectLongPause(page);

  // Moving the whole pause: Tab back to its body; arrows move it, the focus stays on it.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'pause-A-1');
  await page.keyboard.press('Shift+ArrowRight');
  assert.match(await page.locator(tid('pause-A-1')).getAttribute('aria-label'), /GC pause 44 ms at 11 ms/);
  assertClean(rec);
});

test('mouse: a palette button dragged onto B\'s lane adds its event where it drops', async ({ rec }) => {
  await boot(rec);
  const { page } = rec;
  assert.equal(await page.locator(tid('pause-B-2')).count(), 0, 'B starts without a third event');
  const from = await centre(page, 'tool-GC-pause');
  const lane = await page.locator(tid('lane-B')).boundingBox();
  assert.ok(lane, 'lane B is not on screen');
  const to = { x: await xOf(page, 60), y: lane.y + lane.height / 2 };
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 12 });
  await page.mouse.up();
  const pause = page.locator(tid('pause-B-2'));
  await pause.waitFor({ timeout: 5_000 });
  const label = await pause.getAttribute('aria-label');
  const at = Number(/GC pause 45 ms at (\d+) ms/.exec(label)?.[1]);
  assert.ok(Math.abs(at - 60) <= 2, `dropped at 60 ms, the pause starts at ${at} ms: ${label}`);
  // A drop on a lane that is not a client's adds nothing.
  const storage = await page.locator(tid('lane-storage')).boundingBox();
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, storage.y + storage.height / 2, { steps: 12 });
  await page.mouse.up();
  assert.equal(await page.locator('[data-testid^="pause-"][role="button"]').count(), 2, 'only A\'s and the new pause');
  assertClean(rec);
});

test('the default page at 1280×800 shows the story without scrolling', async ({ rec, server }) => {
  const { page } = rec;
  await page.goto(server.url);
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  const box = await page.locator(tid('timeline')).boundingBox();
  assert.ok(box.y + box.height <= 800, `timeline ends at ${box.y + box.height}px, below the fold`);
  assert.ok(box.width >= 1000, `timeline is only ${box.width}px wide`);
  await expectText(page, 'verdict-word', '✗ Unsafe');
  await expectText(page, 'hint', 'Turn fencing on');
  // The whole story is above the fold: the verdict, the stale belief and both storages.
  for (const id of ['verdict', 'stale-A-0', 'write-A-2', 'ghost-write-A-2', 'readout']) {
    const b = await page.locator(tid(id)).boundingBox();
    assert.ok(b && b.y + b.height <= 800, `${id} is below the fold`);
  }
  assertClean(rec);
});

test('at 390 px wide the timeline fits and an event can still be dragged', async ({ openPage }) => {
  const rec = await openPage({ viewport: { width: 390, height: 844 } });
  const { page } = rec;
  await boot(rec);
  const box = await page.locator(tid('timeline')).boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `timeline spans ${box.x}..${box.x + box.width}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 390, `the page scrolls sideways (${overflow}px)`);
  await page.locator(tid('timeline')).scrollIntoViewIfNeeded();
  await dragPauseEndTo(page, 20);
  await expectShortPause(page, { watchdog: true });
  await dragPauseEndTo(page, 45);
  await expectLongPause(page);
  assertClean(rec);
});

// The drop brings the caption (the preset's words give way to "Edited: …") and the verdict up
// to date above the lanes; the page scrolls by what that changed, so the lanes stay under the
// pointer that let go (on the default page at 1280 px the edited caption is the taller one).
test('mouse: a drop that edits a preset keeps the lanes where they were under the pointer', async ({ rec }) => {
  const { page } = rec;
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await expectText(page, 'verdict', 'Unsafe');
  assert.equal(await page.locator(tid('edited')).count(), 0, 'the caption says edited already');
  const top = () => page.locator(tid('timeline')).evaluate((el) => el.getBoundingClientRect().top);
  const before = await top();
  const marker = await page.locator(`${tid('event-A-0')} .shape`).boundingBox();
  const from = { x: marker.x + marker.width / 2, y: marker.y + marker.height / 2 };
  const toX = await xOf(page, 4);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 6; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 6, from.y);
  await page.mouse.up();
  await page.locator(tid('edited')).waitFor();
  await expectText(page, 'client-inspector', 'A: acquire at 4 ms');
  const moved = (await top()) - before;
  assert.ok(Math.abs(moved) < 1, `the lanes moved ${moved} px at the drop`);
  assert.ok(await page.evaluate(() => window.scrollY) > 0, 'the page did not scroll for the taller caption');
  assertClean(rec);
});

test('mouse: Delete mid-drag removes the dragged pause and ends the drag; the mouse then moves nothing', async ({ rec }) => {
  const { page } = rec;
  await boot(rec);
  const from = await centre(page, 'pause-A-1-end');
  const toX = await xOf(page, 20);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 6; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 12, from.y);
  await expectText(page, 'narration', 'updates when you let go');
  await page.keyboard.press('Delete');
  await page.locator(tid('pause-A-1-end')).waitFor({ state: 'detached', timeout: 5_000 });
  // The drag is over: the story under the timeline has caught up while the button is still down.
  await page.locator(tid('stale-note')).waitFor({ state: 'detached', timeout: 5_000 });
  const events = () => page.locator('[data-ev][role="button"]').evaluateAll((els) =>
    els.map((e) => `${e.dataset.ev} ${e.getAttribute('aria-label')}`).join('\n'));
  const afterDelete = await events();
  // The same pointer goes on moving, over A's next events, and lets go: nothing else moves.
  for (let i = 7; i <= 12; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 12, from.y + 30 * (i % 2));
  await page.mouse.up();
  // A move waiting for its frame is applied in that frame, and Yew renders right after it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(await events(), afterDelete, 'the events moved after the drag ended');
  assert.equal(await page.locator(tid('stale-note')).count(), 0, 'a note that the story lags is left');
  // The drag and the removal are two undo steps: the pause comes back where the drag left it,
  // then where it was; and a new drag of it works.
  await page.locator(tid('undo')).click();
  await page.locator(tid('pause-A-1-end')).waitFor({ timeout: 5_000 });
  const moved = Number(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'));
  assert.ok(moved < 45, `the undone removal brings back the dragged pause, ending at ${moved} ms`);
  await page.locator(tid('undo')).click();
  await expectValueNow(page, 'pause-A-1-end', '45');
  await dragPauseEndTo(page, 20);
  await expectEndNear(page, 20);
  await expectShortPause(page, { watchdog: true });
  assertClean(rec);
});

test('mouse: the timeline scrolled sideways mid-drag, the edge still lands under the pointer', async ({ rec }) => {
  // The drag keeps the SVG's box from its first move (reading it every frame asks for layout);
  // a scroll must make it read the box again, or the drop lands where the pointer was before it.
  const { page } = rec;
  await boot(rec);
  const wrap = page.locator('.fp-timeline-wrap');
  await page.locator(tid('zoom-in')).click();
  await page.locator(tid('zoom-in')).click();
  await page.waitForFunction(() => document.querySelector('.fp-timeline-box')?.getAttribute('data-zoom') === '4');
  await page.locator(tid('pause-A-1-end')).scrollIntoViewIfNeeded();
  const from = await centre(page, 'pause-A-1-end');
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 4; i++) await page.mouse.move(from.x - 4 * i, from.y);
  const scrolled = await wrap.evaluate((el) => {
    const was = el.scrollLeft;
    el.scrollLeft = was - 120;
    return was - el.scrollLeft;
  });
  assert.ok(scrolled >= 60, `the timeline scrolled only ${scrolled} px`);
  const toX = await xOf(page, 38);
  for (let i = 1; i <= 4; i++) await page.mouse.move(from.x - 16 + ((toX - from.x + 16) * i) / 4, from.y);
  await page.mouse.up();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="pause-A-1-end"]')?.getAttribute('aria-valuenow') === '38',
    null,
    { timeout: 5_000 },
  ).catch(async () => assert.fail(`the edge is at ${await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow')} ms, not under the pointer at 38 ms`));
  assertClean(rec);
});
