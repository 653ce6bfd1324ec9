// @ts-check
// Writes www/embed-heights.js and www/embed.css: the height of every preset's
// <fencing-playground>, compact and full, measured in headless Chromium on the release build
// (dist/) in two columns: WIDE px in a window of 1280 px (the width of a typical blog's text),
// and NARROW px in a phone's window of 390 px, where the playground takes its narrow layout
// (up to 600 px, src/ui/style.rs). An element keeps that height from the first paint, before
// any script runs (embed.css, which a host page links), and until it starts (www/embed.js reads
// embed-heights.js), so the page does not jump. Run it after scripts/build.sh whenever the
// playground's layout changes; `--check` only compares and fails if the files are not what a
// run writes.
//
//   bash scripts/build.sh && node scripts/embed-heights.mjs [--check]
import { readFile, writeFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

/** Each column: its width, the window's, and the media query under which embed.css uses it. */
const COLUMNS = {
  wide: { width: 720, window: 1280, media: null },
  narrow: { width: 358, window: 390, media: '(max-width: 600px)' },
};
const DEFAULT_PRESET = 'gc-pause-fenced';
const OUT_JS = new URL('../www/embed-heights.js', import.meta.url);
const OUT_CSS = new URL('../www/embed.css', import.meta.url);

/** @typedef {Record<string, { compact: number, full: number }>} Table */

/**
 * Every preset's embed, compact and full, in a column of `width` px in a window of `window` px.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {{ width: number, window: number }} column
 * @returns {Promise<Table>}
 */
async function measure(browser, url, { width, window }) {
  const page = await browser.newPage({ viewport: { width: window, height: 800 } });
  await page.goto(`${url}www/embed.html?preset=${DEFAULT_PRESET}`);
  await page.locator('fencing-playground [data-testid="timeline"]').waitFor({ timeout: 30_000 });
  const table = await page.evaluate(async (width) => {
    const glue = await import('../pkg/fencing_playground.js');
    const ids = glue.presets().map((/** @type {{ id: string }} */ p) => p.id);
    // Every preset's embed, compact and full, is put on the page at once, each in a column of
    // its own, and measured together: one by one, waiting for frames, took about 35 s.
    document.body.replaceChildren();
    /** @type {{ id: string, view: string, el: Element }[]} */
    const all = [];
    for (const id of ids) {
      for (const view of ['compact', 'full']) {
        const column = document.createElement('div');
        column.style.width = `${width}px`;
        const el = document.createElement('fencing-playground');
        el.setAttribute('preset', id);
        el.setAttribute('loading', 'eager');
        if (view === 'compact') el.setAttribute('compact', '');
        column.append(el);
        document.body.append(column);
        all.push({ id, view, el });
      }
    }
    const deadline = Date.now() + 60_000;
    for (const { id, view, el } of all) {
      while (!el.shadowRoot?.querySelector('[data-testid="timeline"]')) {
        if (Date.now() > deadline) throw new Error(`${id} ${view}: no timeline`);
        await new Promise((ok) => setTimeout(ok, 20));
      }
    }
    // Some parts render a few frames later: the heights count once every one of them has held
    // for 20 frames and for a second. On a loaded machine (stress-ng --cpu 2, 2026-12-07) 20
    // frames alone once ended before a late part was drawn, and --check failed with nothing
    // changed.
    let heights = all.map(() => -1);
    let changed = performance.now();
    for (let same = 0, frames = 0; (same < 20 || performance.now() - changed < 1000) && frames < 3000; frames++) {
      await new Promise((ok) => requestAnimationFrame(ok));
      const now = all.map(({ el }) => Math.ceil(el.getBoundingClientRect().height));
      if (now.every((h, i) => h === heights[i])) {
        same += 1;
      } else {
        same = 0;
        changed = performance.now();
      }
      heights = now;
    }
    /** @type {Record<string, { compact: number, full: number }>} */
    const out = {};
    all.forEach(({ id, view }, i) => {
      out[id] = { ...(out[id] ?? { compact: 0, full: 0 }), [view]: heights[i] };
    });
    return out;
  }, width);
  await page.close();
  return table;
}

const { url, close } = await startServer({ root: 'dist', port: 0 });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
/** @type {Record<keyof typeof COLUMNS, Table>} */
let tables;
try {
  tables = { wide: await measure(browser, url, COLUMNS.wide), narrow: await measure(browser, url, COLUMNS.narrow) };
} finally {
  await browser.close();
  await close();
}

/** @param {Table} table */
const rows = (table) => Object.entries(table).map(([id, h]) => `      '${id}': { compact: ${h.compact}, full: ${h.full} },`).join('\n');
const js = `// @ts-check
// Generated by scripts/embed-heights.mjs from the release build: do not edit. The height (CSS px)
// of each preset's <fencing-playground>, compact and full, in a column ${COLUMNS.wide.width} px wide in a
// window of ${COLUMNS.wide.window} px (wide), and in a column ${COLUMNS.narrow.width} px wide in a window of ${COLUMNS.narrow.window} px, where the
// narrow table counts while ${COLUMNS.narrow.media} matches (narrow). www/embed.css says the same.
export const NARROW_MEDIA = '${COLUMNS.narrow.media}';
export const HEIGHTS = {
  wide: {
    width: ${COLUMNS.wide.width},
    presets: {
${rows(tables.wide)}
    },
  },
  narrow: {
    width: ${COLUMNS.narrow.width},
    presets: {
${rows(tables.narrow)}
    },
  },
};
`;

/**
 * The custom properties of each preset's row: `--fpe-full` and `--fpe-compact`.
 * @param {Table} table
 * @param {string} indent
 */
const props = (table, indent) =>
  Object.entries(table)
    .map(([id, h]) => {
      const selector = `fencing-playground[preset="${id}"]${id === DEFAULT_PRESET ? ', fencing-playground:not([preset])' : ''}`;
      return `${indent}${selector} { --fpe-full: ${h.full}px; --fpe-compact: ${h.compact}px; }`;
    })
    .join('\n');
const css = `/* Generated by scripts/embed-heights.mjs from the release build: do not edit.
   Link it once in a page with playgrounds: until www/embed.js has run, each <fencing-playground>
   is a box as tall as the playground will be (its preset, compact or full, in a column of
   ${COLUMNS.wide.width} px, or of ${COLUMNS.narrow.width} px in a phone's window), showing the text inside the element, so
   the page does not jump when the playground starts and a script that fails to load leaves that
   text, not a hole. www/embed.js keeps the same height from there until the playground starts. */
fencing-playground { display: block; }
fencing-playground:not(:defined) {
  box-sizing: border-box; overflow: hidden; padding: 16px;
  border: 1px dashed; border-radius: 6px; font: 14px/1.45 system-ui, sans-serif;
}
fencing-playground:not(:defined, [scenario], [height]) { height: var(--fpe-full); }
fencing-playground[compact]:not(:defined, [scenario], [height], [compact="false" i]) { height: var(--fpe-compact); }
${props(tables.wide, '')}
@media ${COLUMNS.narrow.media} {
${props(tables.narrow, '  ')}
}
`;

if (process.argv.includes('--check')) {
  let failed = false;
  for (const [out, text] of /** @type {[URL, string][]} */ ([[OUT_JS, js], [OUT_CSS, css]])) {
    const now = await readFile(out, 'utf8').catch(() => '');
    if (now === text) continue;
    const was = new Set(now.split('\n'));
    const differ = text.split('\n').filter((line) => !was.has(line));
    console.error(`measured now, not in the committed ${out.pathname.split('/').slice(-2).join('/')}:\n${differ.join('\n')}`);
    failed = true;
  }
  if (failed) {
    console.error('www/embed-heights.js or www/embed.css is not what scripts/embed-heights.mjs writes: run it and commit the files');
    process.exit(1);
  }
  console.log('[embed-heights] www/embed-heights.js and www/embed.css are current');
} else {
  await writeFile(OUT_JS, js);
  await writeFile(OUT_CSS, css);
  console.log(`[embed-heights] wrote www/embed-heights.js and www/embed.css (${Object.keys(tables.wide).length} presets)`);
}
