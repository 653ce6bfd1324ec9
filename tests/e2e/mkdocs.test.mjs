// Embeds in a real MkDocs Material site (tests/e2e/mkdocs-site.mjs builds it with `mkdocs build`
// around the snippets of docs/embedding.md, pasted as they are). Each snippet works on the home
// page and on a nested page (/guide/…/, where a path relative to the page would miss); the real
// palette toggle switches the playground's theme; the page does not jump when the playground
// starts (the layout shift Chromium reports, at a phone's and a desktop's width); the host's root
// font size does not reach into the playground; a script path that misses leaves the snippet's
// fallback text in the page; and nothing the site asks for answers 404.
import assert from 'node:assert/strict';
import { startServer } from '../../scripts/serve.mjs';
import { assertClean } from './helpers.mjs';
import { test } from './fixtures.mjs';
import { buildSite, snippet } from './mkdocs-site.mjs';
import { HEIGHTS } from '../../www/embed-heights.js';

const FALLBACK = /^The playground loads here; if this text stays, the script \S+ could not be loaded\.$/;
/** Layout shift a reader should never notice; Web Vitals calls 0.1 good. */
const SHIFT_LIMIT = 0.01;

/** The nested page where the script's path is written relative to the page, as it once was. */
const broken = () => snippet('mkdocs').replace('src="/fencing-playground/', 'src="fencing-playground/');

/** @type {Promise<{ url: string, origin: string, close: () => Promise<void>, remove: () => Promise<void> }[]> | undefined} */
let sites;
/** Two sites (the snippet in the Markdown; the script and stylesheet from mkdocs.yml), built once per worker. */
function servedSites() {
  sites ??= Promise.all([
    { pages: { 'index.md': snippet('mkdocs'), 'guide/leases.md': snippet('mkdocs'), 'guide/broken.md': broken() } },
    { config: snippet('mkdocs-config', 'yaml'), pages: { 'index.md': snippet('mkdocs-element'), 'guide/leases.md': snippet('mkdocs-element') } },
  ].map(async (spec) => {
    const built = await buildSite(spec);
    // MkDocs Material's pages carry inline scripts of their own: served without the CSP.
    const served = await startServer({ root: built.site, port: 0, csp: false });
    return { url: served.url, origin: new URL(served.url).origin, close: served.close, remove: built.remove };
  }));
  return sites;
}

test.afterAll(async () => {
  if (!sites) return;
  for (const s of await sites.catch(() => [])) {
    await s.close();
    await s.remove();
  }
});

/**
 * Records every layout shift from the first paint on (read with shiftTotal), and the height of
 * each playground when the document has been parsed, before any has started (window.__reserved).
 */
async function watchShifts(page) {
  await page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value);
    }).observe({ type: 'layout-shift', buffered: true });
    document.addEventListener('DOMContentLoaded', () => {
      window.__reserved = [...document.querySelectorAll('fencing-playground')].map((el) => el.getBoundingClientRect().height);
    });
  });
}
const shiftTotal = (page) => page.evaluate(() => window.__shifts.reduce((a, b) => a + b, 0));

/** Frames enough for every observer and the renders they cause to have run. */
async function settled(page) {
  for (let i = 0; i < 10; i++) await page.evaluate(() => new Promise((ok) => requestAnimationFrame(ok)));
}

/** Opens `path` of `site` in a fresh context; the playground (near the top) starts by itself. */
async function openStarted(openPage, site, path, viewport = { width: 1280, height: 800 }) {
  const rec = await openPage({ viewport, origin: site.origin });
  await watchShifts(rec.page);
  await rec.page.goto(site.url + path);
  await rec.page.locator('fencing-playground [data-testid="timeline"]').waitFor({ timeout: 30_000 });
  await settled(rec.page);
  return rec;
}

/** Each playground's resolved theme and the luminance class of its painted background. */
const themes = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('fencing-playground')].map((p) => {
      const [r, g, b] = getComputedStyle(p.shadowRoot.querySelector('.fp-root')).backgroundColor.match(/[\d.]+/g).map(Number);
      return { resolved: p.getAttribute('data-resolved-theme'), painted: 0.2126 * r + 0.7152 * g + 0.0722 * b < 100 ? 'dark' : 'light' };
    }),
  );

for (const [which, index] of [['in the Markdown', 0], ['from mkdocs.yml', 1]]) {
  for (const path of ['', 'guide/leases/']) {
    test(`MkDocs Material, the snippet ${which}, ${path || 'home page'}: the playground starts, follows the real palette toggle, and nothing 404s`, async ({ openPage }) => {
      test.setTimeout(120_000);
      const site = (await servedSites())[index];
      const rec = await openStarted(openPage, site, path);
      const { page } = rec;
      assert.deepEqual(await themes(page), [{ resolved: 'light', painted: 'light' }]);
      // Material's own toggle, clicked with the real mouse: it sets data-md-color-scheme="slate".
      await page.locator('label[title="Switch to dark mode"]').click();
      await page.waitForFunction(() => document.body.getAttribute('data-md-color-scheme') === 'slate');
      await settled(page);
      assert.deepEqual(await themes(page), [{ resolved: 'dark', painted: 'dark' }], 'switched to dark');
      await page.locator('label[title="Switch to light mode"]').click();
      await page.waitForFunction(() => document.body.getAttribute('data-md-color-scheme') === 'default');
      await settled(page);
      assert.deepEqual(await themes(page), [{ resolved: 'light', painted: 'light' }], 'back to light');
      assertClean(rec);
    });
  }
}

for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
  for (const [which, index] of [['in the Markdown', 0], ['from mkdocs.yml', 1]]) {
    test(`MkDocs Material at ${viewport.width} px, the snippet ${which}: the page does not jump when the playground starts`, async ({ openPage }) => {
      test.setTimeout(120_000);
      const site = (await servedSites())[index];
      const rec = await openStarted(openPage, site, 'guide/leases/', viewport);
      const shift = await shiftTotal(rec.page);
      const [reserved] = await rec.page.evaluate(() => window.__reserved);
      const started = await rec.page.locator('fencing-playground').evaluate((el) => el.getBoundingClientRect().height);
      console.log(`layout shift at ${viewport.width} px, the snippet ${which}: ${shift.toFixed(4)}; height kept ${reserved} px, started ${started} px`);
      assert.ok(shift < SHIFT_LIMIT, `layout shift ${shift.toFixed(4)} at ${viewport.width} px (at most ${SHIFT_LIMIT})`);
      // The height kept is the playground's to the pixel (the table's is rounded up): on a
      // phone Material's column is the table's narrow one (358 px); at 1280 px it is 688 px
      // wide, where these presets wrap as in the table's 720 px.
      assert.ok(started <= reserved && reserved - started < 1, `kept ${reserved} px, started at ${started} px`);
      assertClean(rec);
    });
  }
}

test('MkDocs Material: the host\'s root font size does not reach into the playground', async ({ openPage }) => {
  test.setTimeout(120_000);
  const site = (await servedSites())[0];
  const rec = await openStarted(openPage, site, 'guide/leases/');
  const { page } = rec;
  // Sizes, not the playground's height: Material's column is in rem, so a larger root makes it
  // narrower and the playground's text wraps differently.
  const sizes = async (rootPx) => {
    await page.evaluate((px) => { document.documentElement.style.fontSize = `${px}px`; }, rootPx);
    await settled(page);
    return page.evaluate(() => {
      const shadow = document.querySelector('fencing-playground').shadowRoot;
      const size = (sel) => getComputedStyle(shadow.querySelector(sel)).fontSize;
      return {
        root: getComputedStyle(document.documentElement).fontSize,
        heading: size('[data-testid="title"]'),
        verdict: size('.fp-verdict-word'),
        text: size('.fp-root'),
        lane: size('.lane-name'),
      };
    });
  };
  const at16 = await sizes(16);
  const at24 = await sizes(24);
  console.log(`root 16 px: ${JSON.stringify(at16)}; root 24 px: ${JSON.stringify(at24)}`);
  assert.equal(at24.root, '24px');
  assert.deepEqual({ ...at24, root: '16px' }, at16, 'a 24 px host root changed the playground');
  assert.deepEqual([at16.heading, at16.verdict], ['20px', '17.6px']);
  assertClean(rec);
});

test('MkDocs Material: a script path that misses leaves the fallback text, as tall as the playground', async ({ openPage }) => {
  test.setTimeout(60_000);
  const site = (await servedSites())[0];
  const rec = await openPage({ viewport: { width: 1280, height: 800 }, origin: site.origin });
  const { page } = rec;
  const missed = page.waitForResponse(`${site.url}guide/broken/fencing-playground/www/embed.js`);
  await page.goto(`${site.url}guide/broken/`);
  assert.equal((await missed).status(), 404);
  await page.waitForLoadState('load');
  await settled(page);
  const el = page.locator('fencing-playground');
  assert.equal(await el.evaluate((e) => e.matches(':defined')), false, 'the element was upgraded');
  const text = (await el.innerText()).trim();
  assert.match(text, FALLBACK);
  assert.ok(await el.isVisible(), 'the fallback text is not visible');
  // embed.css alone keeps the playground's height: bare-del, compact, in a wide window.
  const box = await el.boundingBox();
  assert.equal(box.height, HEIGHTS.wide.presets['bare-del'].compact, 'the fallback box is not as tall as the playground');
  // The one miss is the script on the wrong path; everything else answered.
  assert.deepEqual(rec.failedResponses, [`404 ${site.url}guide/broken/fencing-playground/www/embed.js`]);
});
