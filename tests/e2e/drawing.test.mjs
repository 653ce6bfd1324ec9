// The drawing, read off the release page's SVG and layout boxes: a drag grabs the part under the
// pointer and no other, no line runs through a label in any preset, and the controls keep their
// rows at 1280 px with three clients.
import assert from 'node:assert/strict';
import { assertClean, tid, expectText, xOf } from './helpers.mjs';
import { test } from './fixtures.mjs';

async function boot(page, preset = 'gc-pause-fenced') {
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  await page.selectOption(tid('preset'), preset);
}

/** The event's instant, as its marker's accessible name says ("B: acquire at 31 ms…"). */
async function atMs(page, id) {
  const label = await page.locator(tid(id)).getAttribute('aria-label');
  return Number(/ at (\d+) ms/.exec(label)?.[1]);
}

test("mouse: the right half of B's acquire drags the acquire, not B's debit", async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  assert.equal(await atMs(page, 'event-B-0'), 31);
  assert.equal(await atMs(page, 'event-B-1'), 32);
  // Three pixels right of the acquire's centre: inside its triangle, nearer to it than to the
  // debit a millisecond (about 10 px) away, whose hit area used to reach this far.
  const shape = await page.locator(`${tid('event-B-0')} .shape`).boundingBox();
  const x = shape.x + shape.width / 2 + 3;
  const y = shape.y + shape.height * 0.75;
  const grabbed = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('[data-ev]')?.dataset.testid, [x, y]);
  assert.equal(grabbed, 'event-B-0', 'the pointer is over the debit');
  await page.mouse.move(x, y);
  await page.mouse.down();
  const to = (await xOf(page, 40)) + 5;
  for (let i = 1; i <= 6; i++) await page.mouse.move(x + ((to - x) * i) / 6, y);
  await page.mouse.up();
  await expectText(page, 'step-B-0', 'granted fence 34, lease until 70 ms');
  assert.equal(await atMs(page, 'event-B-0'), 40, 'the acquire moved');
  assert.equal(await atMs(page, 'event-B-1'), 32, 'the debit stayed');
  assertClean(rec);
});

/** A Redlock scenario whose R1 lane is crowded: two clock jumps 1 ms apart, a partition that
 *  ends where a crash starts, and a short crash inside the long one. */
const crowded = {
  version: 1,
  name: 'Crowded instance lane',
  endMs: 140,
  lock: {
    ttlMs: 60,
    redlock: {
      instances: [
        {
          name: 'R1',
          events: [
            { kind: 'clock_jump', atMs: 10, byMs: 50 },
            { kind: 'clock_jump', atMs: 11, byMs: -5 },
            { kind: 'partition', atMs: 20, durationMs: 10 },
            { kind: 'crash', atMs: 30, downMs: 40 },
            { kind: 'crash', atMs: 40, downMs: 5, persistent: true },
          ],
        },
        { name: 'R2' },
        { name: 'R3' },
      ],
    },
  },
  clients: [{ name: 'A', events: [{ kind: 'acquire', atMs: 0 }] }],
};

/** Which instance event part the page hands a pointer at (x, y): `<instance>-<event>:<part>`. */
const partAt = (page, x, y) =>
  page.evaluate(([x, y]) => {
    const g = document.elementFromPoint(x, y)?.closest('[data-iev]');
    return g ? `${g.dataset.iev}:${g.dataset.part}` : null;
  }, [x, y]);

test('mouse: on a crowded instance lane every grab area is its own, and a drag moves that event only', async ({ rec }) => {
  const { page } = rec;
  await page.goto(`/#s=1.${Buffer.from(JSON.stringify(crowded)).toString('base64url')}`);
  await page.locator(tid('iev-R1-0')).waitFor({ timeout: 20_000 });
  // Each part's grab area answers, at its centre and a pixel inside either side, with itself.
  const areas = await page.locator('[data-instance="0"] [data-iev] > .hit').evaluateAll((els) =>
    els.map((h) => {
      const r = h.getBoundingClientRect();
      const g = h.closest('[data-iev]');
      return { want: `${g.dataset.iev}:${g.dataset.part}`, l: r.left, r: r.right, y: r.top + r.height / 2 };
    }));
  assert.ok(areas.length >= 9, `R1 has ${areas.length} grab areas`);
  for (const a of areas) {
    for (const x of [a.l + 1, (a.l + a.r) / 2, a.r - 1]) {
      assert.equal(await partAt(page, x, a.y), a.want, `at x=${x.toFixed(1)} the pointer grabs another part`);
    }
  }
  // Two pixels right of the first jump's centre (the second is a millisecond away): the drag
  // moves the first jump, and the second stays.
  const shape = await page.locator(`${tid('iev-R1-0')} .shape`).boundingBox();
  const x = shape.x + shape.width / 2 + 2;
  const y = shape.y + shape.height / 2;
  assert.equal(await partAt(page, x, y), '0-0:body');
  await page.mouse.move(x, y);
  await page.mouse.down();
  const to = await xOf(page, 50);
  for (let i = 1; i <= 6; i++) await page.mouse.move(x + ((to - x) * i) / 6, y);
  await page.mouse.up();
  const at = async (id) => Number((await page.locator(tid(id)).getAttribute('data-at-ms')));
  assert.equal(await at('iev-R1-0'), 50, 'the first jump moved');
  assert.equal(await at('iev-R1-1'), 11, 'the second jump stayed');
  assertClean(rec);
});

/**
 * Every place where a line of the timeline (an arrow, the playhead, a wait, a renewal tick,
 * the balance) runs through a label's box, unless the label is drawn over the line on a halo
 * of the background (its stroke painted first, at least 2 px wide), which hides the line there.
 */
function crossings() {
  const svg = document.querySelector('[data-testid="timeline"]');
  const texts = [...svg.querySelectorAll('text')]
    .filter((t) => t.textContent.trim() && !t.closest('defs'))
    .map((t) => {
      const r = t.getBoundingClientRect();
      const s = getComputedStyle(t);
      const halo = s.paintOrder.startsWith('stroke') && s.stroke !== 'none' && parseFloat(s.strokeWidth) >= 2;
      return { el: t, halo, box: { l: r.left + 1, r: r.right - 1, t: r.top + 1, b: r.bottom - 1 } };
    });
  const lines = [...svg.querySelectorAll('line, path')].filter((l) => {
    // The lanes' backgrounds are opaque and drawn over the axis grid: its lines show only in
    // the header, where there is no label.
    if (l.closest('defs, .fp-backdrop, .fp-grid')) return false;
    const s = getComputedStyle(l);
    // A <line> has no inside whatever its fill; a path counts when only its stroke is drawn.
    const stroked = l.tagName === 'line' || s.fill === 'none';
    return stroked && s.stroke !== 'none' && s.visibility !== 'hidden' && s.display !== 'none';
  });
  const found = [];
  for (const line of lines) {
    const m = line.getScreenCTM();
    const len = line.getTotalLength();
    const points = [];
    for (let d = 0; d <= len; d += 2) {
      const p = line.getPointAtLength(Math.min(d, len));
      points.push([m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f]);
    }
    for (const t of texts) {
      const hit = points.find(([x, y]) => x > t.box.l && x < t.box.r && y > t.box.t && y < t.box.b);
      if (!hit) continue;
      const under = line.compareDocumentPosition(t.el) & Node.DOCUMENT_POSITION_FOLLOWING;
      if (under && t.halo) continue;
      const what = line.closest('[data-testid]')?.dataset.testid ?? line.getAttribute('class') ?? line.tagName;
      found.push(`${line.tagName}.${line.getAttribute('class') ?? ''} (${what}) through "${t.el.textContent.trim()}"${under ? ' (no halo)' : ' (drawn over it)'}`);
    }
  }
  return found;
}

test('no line runs through a label, in any preset, wherever the playhead is', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  const presets = await page.locator(`${tid('preset')} option`).evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(presets.length > 20, 'the presets are listed');
  const problems = [];
  for (const p of presets) {
    await page.selectOption(tid('preset'), p);
    await page.locator(tid('narration')).waitFor();
    // The playhead sweeps the axis: it crosses every label on its way.
    for (const at of ['10', '33', '45', '60', '100']) {
      await page.locator(tid('playhead-slider')).fill(at);
      for (const c of await page.evaluate(crossings)) problems.push(`${p} @${at} ms: ${c}`);
    }
  }
  await page.selectOption(tid('preset'), 'gc-pause-fenced');
  assert.deepEqual([...new Set(problems)], []);
  assertClean(rec);
});

test('with three clients the controls keep their rows at 1280 px', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  // The row of a control: the middle of its box, to the nearest 10 px.
  const rows = async () => page.evaluate(() => {
    const top = (id) => {
      const r = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
      return Math.round((r.top + r.height / 2) / 10) * 10;
    };
    return { undo: top('undo'), redo: top('redo'), copy: top('copy-link'), png: top('export-png'), watchdog: top('watchdog'), fence: top('fence-rule') };
  });
  assert.equal((await rows()).redo, (await rows()).undo);
  await page.locator(tid('add-client')).click();
  await expectText(page, 'settings', 'C ×');
  const after = await rows();
  // Undo and redo sit on one row with the other toolbar buttons; the settings keep one row.
  assert.equal(after.redo, after.undo, '"Redo" wrapped away from "Undo"');
  assert.equal(after.undo, after.copy);
  assert.equal(after.png, after.copy);
  assert.equal(after.watchdog, after.fence, 'the settings wrapped');
  const middle = async (id) => page.locator(tid(id)).boundingBox().then((b) => b.y + b.height / 2);
  assert.ok(Math.abs((await middle('remove-client-C')) - (await middle('fence-rule'))) < 6, 'the third client wrapped');
  assertClean(rec);
});
