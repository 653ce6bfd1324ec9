// Text that must not go stale, read off the release page with a real mouse: the heading of an
// edited preset, the numbers of "What happened" after a preset switch, the verdict and the
// playhead's reading in the middle of a drag (the narration there says it lags until the
// drop), and the words that name the double-click tool.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, centre, xOf } from './helpers.mjs';
import { test } from './fixtures.mjs';

async function boot(page, preset = 'gc-pause-fenced') {
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), preset);
}

const text = (page, id) => page.locator(tid(id)).innerText({ timeout: 5_000 });

/** Polls until `read()` satisfies `ok`, or fails with what it last read. */
async function until(what, read, ok) {
  const deadline = Date.now() + 5_000;
  let got;
  while (Date.now() < deadline) {
    got = await read();
    if (ok(got)) return got;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`${what}: last read ${JSON.stringify(got)}`);
}

/** Drags the end of A's pause to `ms` with the mouse. */
async function dragPauseEndTo(page, ms, { release = true } = {}) {
  const from = await centre(page, 'pause-A-1-end');
  const toX = await xOf(page, ms);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 8; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 8, from.y);
  if (release) await page.mouse.up();
}

test('an edited preset says it is edited, and undo brings its story back', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  const title = await text(page, 'title');
  const story = await text(page, 'caption');
  assert.equal(title, 'GC pause, fenced storage');
  assert.match(story, /B takes fence 34/);

  // Take B out: the caption's "B takes fence 34 and debits 10" is no longer true.
  await page.locator(tid('remove-client-B')).click();
  await expectText(page, 'title', 'Edited from: GC pause, fenced storage');
  const edited = await text(page, 'caption');
  assert.doesNotMatch(edited, /fence 34/, 'the edited scenario still tells the preset story');
  assert.match(edited, /Edited: the preset.s story may no longer hold/);
  // The preset's own words are one click away, and say where they come from.
  assert.equal(await page.locator(tid('original-caption')).isVisible(), false);
  await page.getByText("The preset's description").click();
  assert.match(await text(page, 'original-caption'), /B takes fence 34/);

  await page.locator(tid('undo')).click();
  await expectText(page, 'title', 'GC pause, fenced storage');
  assert.equal(await text(page, 'title'), title);
  assert.equal(await text(page, 'caption'), story);

  // A drag is an edit too; the heading changes on the drop, not under the pointer.
  await dragPauseEndTo(page, 20);
  await expectText(page, 'title', 'Edited from: GC pause, fenced storage');
  await page.locator(tid('undo')).click();
  await expectText(page, 'caption', 'B takes fence 34');
  assertClean(rec);
});

test('a Redlock preset switched to a single Redis no longer speaks of instances', async ({ rec }) => {
  const { page } = rec;
  await boot(page, 'redlock-clock-jump');
  assert.match(await text(page, 'caption'), /R3/);
  await page.selectOption(tid('service'), '0');
  await expectText(page, 'title', 'Edited from: Redlock: a clock jump');
  assert.doesNotMatch(await text(page, 'caption'), /R3|R4|instances/);
  assertClean(rec);
});

test('after undoing a preset switch the picker names the scenario on screen', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  await page.selectOption(tid('preset'), 'redlock-clock-jump');
  await expectText(page, 'title', 'Redlock: a clock jump');
  await page.locator(tid('undo')).click();
  await expectText(page, 'title', 'GC pause, fenced storage');
  await until('the picker', () => page.locator(tid('preset')).inputValue(), (v) => v === 'gc-pause-fenced');
  await page.locator(tid('redo')).click();
  await until('the picker', () => page.locator(tid('preset')).inputValue(), (v) => v === 'redlock-clock-jump');
  assertClean(rec);
});

/** The numbers the browser draws in front of "What happened", read from the accessibility
 * tree (Chromium exposes each list marker with the text it paints). */
async function narrationNumbers(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const { node } = await cdp.send('DOM.describeNode', {
      objectId: (await cdp.send('Runtime.evaluate', {
        expression: 'document.querySelector(\'[data-testid="narration"] ol\')',
      })).result.objectId,
    });
    const list = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId);
    assert.ok(list, 'the narration list is in the accessibility tree');
    const markers = [];
    const walk = (n) => {
      if (n.role?.value === 'ListMarker') markers.push(n.name?.value.trim());
      for (const c of n.childIds ?? []) if (byId.has(c)) walk(byId.get(c));
    };
    walk(list);
    return markers;
  } finally {
    await cdp.detach();
  }
}

const oneTo = (n) => Array.from({ length: n }, (_, i) => `${i + 1}.`);

test('"What happened" counts from 1 after every preset switch', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  const items = page.locator(`${tid('narration')} li`);
  for (const preset of ['redlock-clock-jump', 'gc-pause-fenced', 'redlock-empty', 'contract-6-check-then-write', 'contract-1-nx']) {
    await page.selectOption(tid('preset'), preset);
    const want = await until(`${preset}: narration`, () => items.count(), (n) => n > 0);
    await until(`${preset}: the numbers`, () => narrationNumbers(page),
      (got) => JSON.stringify(got) === JSON.stringify(oneTo(want)));
  }
  assertClean(rec);
});

test('mid-drag the verdict and the readout follow the run, and the lanes stay put', async ({ rec }) => {
  const { page } = rec;
  await boot(page, 'gc-pause-unfenced');
  await expectText(page, 'verdict-word', 'Unsafe');
  const laneTop = () => page.locator(tid('lane-A')).boundingBox().then((b) => b.y);
  const top = await laneTop();
  const verdictTop = () => page.locator(tid('verdict')).boundingBox().then((b) => b.y);
  const vtop = await verdictTop();
  assert.match(await text(page, 'readout'), /A is paused/);
  await expectText(page, 'narration', 'A was paused by GC for 44 ms');
  assert.equal(await page.locator(tid('stale-note')).count(), 0, 'nothing lags before the drag');
  // Shorten A's pause below the TTL and hold the button down: the watchdog renews in time.
  await dragPauseEndTo(page, 20, { release: false });
  await expectText(page, 'verdict-word', 'Safe');
  await expectText(page, 'verdict', 'Balance 90');
  await until('the readout mid-drag', () => text(page, 'readout'), (t) => !/paused/.test(t));
  assert.equal(await laneTop(), top, 'the lanes moved under the pointer');
  assert.equal(await verdictTop(), vtop, 'the verdict moved');
  // The narration and the commands catch up on the drop: until then they keep the run the
  // drag began with, and say so where a reader looks first, in their headings.
  await expectText(page, 'narration', 'What happened · updates when you let go');
  await expectText(page, 'narration', 'A was paused by GC for 44 ms');
  await expectText(page, 'commands', 'Commands · updates when you let go');
  // And back past the TTL, still holding: unsafe again, still in place.
  await page.mouse.move(await xOf(page, 50), (await centre(page, 'pause-A-1-end')).y);
  await expectText(page, 'verdict-word', 'Unsafe');
  await expectText(page, 'readout', 'A is paused');
  assert.equal(await laneTop(), top, 'the lanes moved under the pointer');
  await page.mouse.up();
  await expectText(page, 'verdict-word', 'Unsafe');
  // Let go: the narration tells the run on the timeline, and nothing says it lags.
  await until('the narration after the drop', () => text(page, 'narration'),
    (t) => /A was paused by GC for \d+ ms/.test(t) && !/44 ms/.test(t) && !/let go/.test(t));
  assert.equal(await page.locator(tid('stale-note')).count(), 0, 'a note that it lags is left');
  assertClean(rec);
});

test('the double-click tool is named in words, apart from the focus', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  assert.equal(await text(page, 'double-click-tool'), 'Double-click a client lane adds: debit 10');
  await page.locator(tid('tool-GC-pause')).click();
  await expectText(page, 'double-click-tool', 'Double-click a client lane adds: GC pause');
  // Its mark is not the focus ring: with the focus elsewhere it keeps no outline.
  await page.locator(tid('fence-rule')).focus();
  const style = await page.locator(tid('tool-GC-pause')).evaluate((b) => {
    const s = getComputedStyle(b);
    return { outline: s.outlineStyle, pressed: b.getAttribute('aria-pressed') };
  });
  assert.deepEqual(style, { outline: 'none', pressed: 'true' });
  await page.selectOption(tid('preset'), 'redlock-clock-jump');
  await expectText(page, 'double-click-itool', 'Double-click an instance lane adds: clock jump');
  assertClean(rec);
});
