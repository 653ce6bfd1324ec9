// The playground on a phone: 390 × 844 CSS px, touch only. The timeline comes first and the
// controls fold away; the time axis zooms (buttons) and pans (a finger on an empty part of the
// lanes), so a pause edge can be put on a chosen millisecond with a finger; every draggable part
// and every button is big enough to hit; keyboard help is not shown.
//
// Playwright's touchscreen only taps, so swipes and drags are driven through the DevTools
// protocol (Input.dispatchTouchEvent), which Chromium turns into the same touch and pointer
// events, and the same scrolling, as a real finger.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, centre, xOf, swipe } from './helpers.mjs';
import { test } from './fixtures.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, context: { hasTouch: true, isMobile: true } };

/** Polls until `f()` passes `ok`, or fails with what it last was. */
async function until(what, f, ok) {
  const deadline = Date.now() + 5_000;
  let got;
  while (Date.now() < deadline) {
    got = await f();
    if (ok(got)) return got;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`${what}: last ${JSON.stringify(got)}`);
}

async function openPhone(openPage, { dark = false } = {}) {
  const rec = await openPage(PHONE);
  if (dark) await rec.page.emulateMedia({ colorScheme: 'dark' });
  await rec.page.goto('/');
  await rec.page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  // The preset this test is about, whatever the page opens with.
  await rec.page.selectOption(tid('preset'), 'gc-pause-fenced');
  await expectText(rec.page, 'title', 'GC pause, fenced storage');
  return rec;
}

/** The zoom factor the timeline is drawn at. */
const zoomOf = (page) => page.locator('.fp-timeline-box').getAttribute('data-zoom').then(Number);

test('phone: the timeline comes first, the controls fold away, nothing is too small to hit', async ({ openPage }) => {
  const rec = await openPhone(openPage);
  const { page } = rec;
  const box = await page.locator(tid('timeline')).boundingBox();
  assert.ok(box.y < 420, `the timeline starts ${Math.round(box.y)} px down, past the first half screen`);
  // Everything fits the width: nothing scrolls the page sideways.
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);

  // A pause's edge handle answers a finger 11 px off its centre in every direction: its target
  // is at least 24 × 24 px even though its grip is 4 px wide.
  const c = await centre(page, 'pause-A-1-end');
  for (const [dx, dy] of [[-11, 0], [11, 0], [0, -11], [0, 11]]) {
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid]')?.dataset.testid, [c.x + dx, c.y + dy]);
    assert.equal(hit, 'pause-A-1-end', `a finger at (${dx}, ${dy}) from the handle's centre`);
  }

  // Folded: the palette, the settings and the toolbar are out of the way until asked for.
  const toggle = page.locator(tid('controls-toggle'));
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  for (const id of ['palette', 'settings', 'toolbar']) {
    assert.equal(await page.locator(tid(id)).isVisible(), false, `${id} shows while folded`);
  }
  assert.equal(await page.locator('.fp-keys').isVisible(), false, 'keyboard help shows on a touch screen');
  await toggle.tap();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  for (const id of ['palette', 'settings', 'toolbar']) {
    await page.locator(tid(id)).waitFor({ state: 'visible' });
  }

  // Every button, select and input on screen is at least 24 × 24 px; those in rows with the
  // room (everything but the zoom buttons in the timeline's corner) are 44 px tall.
  const small = await page.evaluate(() =>
    [...document.querySelectorAll('.fp-root button, .fp-root select, .fp-root input')]
      .filter((el) => el.getClientRects().length && getComputedStyle(el).display !== 'none' && el.type !== 'file')
      .map((el) => ({ el: el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent, r: el.getBoundingClientRect(), corner: !!el.closest('.fp-zoom'), tick: el.type === 'checkbox' || el.type === 'radio' || el.type === 'range' }))
      .filter(({ r, corner, tick }) => r.width < 24 || r.height < 24 || (!corner && !tick && r.height < 44))
      .map(({ el, r }) => `${el}: ${Math.round(r.width)} × ${Math.round(r.height)}`));
  assert.deepEqual(small, [], 'controls too small for a finger');

  assertClean(rec);
});

test('phone: the Commands view reads line by line, each command at least most of the width', async ({ openPage }) => {
  const rec = await openPhone(openPage);
  const { page } = rec;
  // The Commands view is drawn after the timeline (a clean-clone run read it before it was).
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.fp-cmd-table td.fp-cmd-text')].some((e) => e.textContent?.trim()));
  const cells = await page.locator('.fp-cmd-table td.fp-cmd-text').evaluateAll((els) =>
    els.filter((e) => e.textContent.trim()).map((e) => ({ text: e.textContent, w: e.getBoundingClientRect().width })));
  assert.ok(cells.length > 3, `${cells.length} commands on screen`);
  const scroll = await page.locator('.fp-cmd-scroll').boundingBox();
  const narrow = cells.filter((c) => c.w < scroll.width * 0.7).map((c) => `${Math.round(c.w)} px: ${c.text.slice(0, 30)}`);
  assert.deepEqual(narrow, [], `commands squeezed in a ${Math.round(scroll.width)} px view`);
  // Nothing in the view scrolls sideways either.
  const sideways = await page.locator('.fp-cmd-scroll').evaluate((e) => e.scrollWidth - e.clientWidth);
  assert.ok(sideways <= 1, `the Commands view scrolls ${sideways} px sideways`);
  assertClean(rec);
});

test('phone: zoom in, pan with a finger, drag a pause edge by finger to 29 ms', async ({ openPage }) => {
  const rec = await openPhone(openPage);
  const { page } = rec;
  await expectText(page, 'pause-A-1', 'GC pause 44 ms');
  const wrap = page.locator('.fp-timeline-wrap');
  const scrollLeft = () => wrap.evaluate((el) => el.scrollLeft);
  assert.equal(await zoomOf(page), 1);
  assert.equal(await page.locator(tid('zoom-out')).isDisabled(), true);

  // Two taps on "+": four times the pixels per millisecond, the middle of the run kept in view.
  await page.locator(tid('zoom-in')).tap();
  await page.locator(tid('zoom-in')).tap();
  await until('the zoom', () => zoomOf(page), (z) => z === 4);
  const perMs = (await xOf(page, 10)) - (await xOf(page, 0));
  assert.ok(perMs >= 10, `${perMs} px per ms at ×4`);
  const before = await scrollLeft();
  assert.ok(before > 0, 'zooming in kept the middle in view, not the start');

  // A finger on an empty part of the storage lane pans the timeline: swipe right to see earlier.
  const storage = await page.locator(tid('lane-storage')).boundingBox();
  const y = storage.y + storage.height / 2;
  await swipe(page, { x: 120, y }, { x: 270, y });
  await until('the pan', scrollLeft, (s) => s < before - 100);
  // A finger's pan may glide on after it lifts: measure the handle once the scroll has stopped
  // (two reads 100 ms apart agree), or the drag starts where the handle was, not where it is.
  let last = NaN;
  const after = await until('the pan to stop', async () => {
    const prev = last;
    await new Promise((r) => setTimeout(r, 100));
    last = await scrollLeft();
    return [prev, last];
  }, ([a, b]) => a === b).then(([, b]) => b);
  assert.ok(after < before - 100, `the timeline panned (${before} → ${after})`);

  // The edge at 45 ms and the target, 29 ms, are both on screen now.
  const handle = await centre(page, 'pause-A-1-end');
  const target = await xOf(page, 29);
  for (const x of [handle.x, target]) assert.ok(x > 70 && x < 380, `x=${x} is off screen`);
  assert.equal(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'), '45');

  // The drag, by finger: down on the handle, slide to 29 ms, lift.
  await swipe(page, handle, { x: target, y: handle.y + 6 }, 16);
  await until('the end handle', () => page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'), (v) => v === '29');
  // What the screen says: the pause's own label, the narration, and the verdict of the run.
  await expectText(page, 'pause-A-1', 'GC pause 28 ms');
  await expectText(page, 'narration', 'A was paused by GC for 28 ms');
  assert.equal(await scrollLeft(), after, 'the drag did not pan the timeline');
  // Zoom is a view, not an edit: undo is about the drag alone, and the link does not carry it.
  const hash = await page.evaluate(() => location.hash);
  await page.locator(tid('zoom-out')).tap();
  await until('the zoom', () => zoomOf(page), (z) => z === 2);
  assert.equal(await page.evaluate(() => location.hash), hash);
  assertClean(rec);
});

// A press selects the event, and its inspector takes the hint's place above the lanes: on a
// phone it is rows taller than the hint. The page scrolls by as much, so the lanes stay under
// the finger; where it cannot scroll (a page no taller than the screen) the drag keeps to the
// lanes as they lay at the press. Either way a slide along the axis keeps the event's lane: B's
// debit was once handed to A by a horizontal drag, as the page moved under the finger.
for (const room of [true, false]) {
  test(`phone: a finger slide along the axis keeps its event's lane when the press opens the inspector (${room ? 'the page scrolls' : 'no room to scroll'})`, async ({ openPage }) => {
    const rec = await openPage(room ? PHONE : { ...PHONE, viewport: { width: 390, height: 3000 } });
    const { page } = rec;
    await page.goto('/');
    await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
    await page.selectOption(tid('preset'), 'gc-pause-fenced');
    await expectText(page, 'title', 'GC pause, fenced storage');
    await expectText(page, 'event-B-1', 'debit 10');
    assert.equal(await page.locator(tid('client-inspector')).count(), 0, 'an event is selected already');
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    const top = () => page.locator(tid('timeline')).evaluate((el) => el.getBoundingClientRect().top);
    const before = await top();
    const aDebits = () => page.locator('[data-testid^="event-A-"]').evaluateAll((els) =>
      els.map((e) => (e.getAttribute('aria-label') ?? '').split(':').slice(0, 2).join(':')).filter((l) => l.includes('debit')));
    const aBefore = await aDebits();
    assert.equal(aBefore.length, 1, `A's debits: ${aBefore}`);
    const marker = await page.locator(`${tid('event-B-1')} .shape`).boundingBox();
    const from = { x: marker.x + marker.width / 2, y: marker.y + marker.height / 2 };
    await swipe(page, from, { x: await xOf(page, 40), y: from.y }, 12);
    // Read without waiting: if the debit went to A, B has no event 1 to wait for.
    const bDebit = () => page.locator(tid('event-B-1')).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')).join());
    await until('B\'s debit', bDebit, (l) => /^B: debit 10 at 40 ms/.test(l));
    // Still B's: A has the debit it had and no other.
    assert.deepEqual(await aDebits(), aBefore, 'A\'s debits');
    await page.locator(tid('client-inspector')).waitFor();
    await expectText(page, 'client-inspector', 'B: debit at 40 ms');
    const moved = (await top()) - before;
    const scrolled = await page.evaluate(() => window.scrollY);
    if (room) {
      assert.ok(Math.abs(moved) < 1, `the lanes moved ${moved} px under the finger`);
      assert.ok(scrolled > 20, `the page scrolled ${scrolled} px for the inspector`);
    } else {
      assert.equal(scrolled, 0);
      assert.ok(moved > 20, `the inspector added ${moved} px above the lanes`);
    }
    assertClean(rec);
  });
}

// The same slide in a blog post's embed: the iframe form (which is as tall as its content, so
// the lanes move down with the inspector and stay moved until the drop: the slide must still
// keep to the lanes as they lay at the press) and the <fencing-playground> element (which
// scrolls the host page, as on the playground's own page).
for (const form of ['iframe', 'element']) {
  test(`phone: in a blog post's ${form} embed, a finger slide along the axis keeps its event's lane`, async ({ openPage, server }) => {
    const rec = await openPage(PHONE);
    const { page } = rec;
    const embed = form === 'iframe'
      ? '<script type="module" src="/www/embed-host.js"></script><iframe data-fencing-playground src="/www/embed.html?preset=gc-pause-fenced" title="Playground" width="380" height="700"></iframe>'
      : '<script type="module" src="/www/embed.js"></script><fencing-playground preset="gc-pause-fenced"></fencing-playground>';
    const url = `${server.url}__test/post-${form}.html`;
    await page.route(url, (route) => route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A post</title></head><body><h1>A post</h1><p>Words before the embed.</p>${embed}<p>Words after it.</p></body></html>`,
    }));
    await page.goto(url);
    const scope = form === 'iframe' ? page.frameLocator('iframe') : page;
    await scope.locator(tid('event-B-1')).scrollIntoViewIfNeeded({ timeout: 20_000 });
    const labels = (prefix) => scope.locator(`[data-testid^="${prefix}"]`).evaluateAll((els) =>
      els.map((e) => (e.getAttribute('aria-label') ?? '').split(':').slice(0, 2).join(':')).filter((l) => l.includes('debit')));
    const aBefore = await labels('event-A-');
    assert.deepEqual(await labels('event-B-1'), ['B: debit 10 at 32 ms']);
    const marker = await scope.locator(`${tid('event-B-1')} .shape`).boundingBox();
    const from = { x: marker.x + marker.width / 2, y: marker.y + marker.height / 2 };
    await swipe(page, from, { x: from.x + 60, y: from.y }, 12);
    const moved = await until('B\'s debit', () => labels('event-B-1'), (l) => l.length === 1 && !l[0].endsWith('at 32 ms'));
    assert.match(moved[0], /^B: debit 10 at \d+ ms$/);
    assert.deepEqual(await labels('event-A-'), aBefore, 'A\'s debits');
    await scope.locator(tid('client-inspector')).waitFor();
    assertClean(rec);
  });
}

for (const dark of [false, true]) {
  const theme = dark ? 'dark' : 'light';
  test(`phone screenshots at 390 px, ${theme}`, async ({ openPage }) => {
    const rec = await openPhone(openPage, { dark });
    const { page } = rec;
    await rec.screenshot(`phone-gc-pause-${theme}`);
    await page.locator(tid('controls-toggle')).tap();
    await page.locator(tid('palette')).waitFor({ state: 'visible' });
    await rec.screenshot(`phone-controls-open-${theme}`);
    await page.selectOption(tid('preset'), 'redlock-clock-jump');
    await expectText(page, 'title', 'Redlock');
    await rec.screenshot(`phone-redlock-${theme}`);
    await page.locator(tid('zoom-in')).tap();
    await until('the zoom', () => zoomOf(page), (z) => z === 2);
    await rec.screenshot(`phone-redlock-zoomed-${theme}`);
    // Nothing on the page is wider than the phone (the zoomed timeline scrolls inside its box).
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
    assertClean(rec);
  });
}
