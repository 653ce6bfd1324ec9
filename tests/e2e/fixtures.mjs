// The e2e tests' `test`: @playwright/test's, with the fixtures this project adds.
//
// playwright.config.mjs starts the servers, launches Debian's Chromium, and keeps a trace and a
// screenshot of a failed test; a context opened in a test (browser.newContext(), as openPage
// below does) gets the config's `use` options and is traced like Playwright's own `context`.
// On top of that, every page a test opens here lives in a context of its own, is recorded
// (requests, console errors, page errors, failed responses, for assertClean() in helpers.mjs),
// may not reach anything but its own server (other requests are aborted and recorded, so a stray
// CDN/font/analytics fetch fails the test instead of hanging it), and is photographed when the
// test ends, pass or fail, into artifacts/screenshots/.
import { mkdir } from 'node:fs/promises';
import { test as base } from '@playwright/test';
import { SCREENSHOTS } from './helpers.mjs';

/** Where a page's requests may go: its own origin ('file://' for files), data: and blob:. */
const localTo = (origin) => (url) => url.startsWith(origin + '/') || url.startsWith('data:') || url.startsWith('blob:');

function slug(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'test';
}

/** Records `page` in `context`, whose requests may only go to `origin`. */
async function record(context, page, origin) {
  const isLocal = localTo(origin);
  const rec = { page, context, requests: [], consoleErrors: [], pageErrors: [], failedResponses: [] };
  await context.route('**/*', (route) => (isLocal(route.request().url()) ? route.continue() : route.abort()));
  context.on('request', (req) => rec.requests.push(req.url()));
  page.on('console', (msg) => {
    if (msg.type() === 'error') rec.consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => rec.pageErrors.push(String(err?.stack ?? err)));
  page.on('response', (res) => {
    if (res.status() >= 400) rec.failedResponses.push(`${res.status()} ${res.url()}`);
  });
  rec.outsideRequests = () => rec.requests.filter((u) => !isLocal(u));
  return rec;
}

export const test = base.extend({
  /** The served dist/: `url` ends with a slash, `origin` has none. */
  server: async ({}, use) => {
    const url = process.env.FP_E2E_URL;
    if (!url) throw new Error('FP_E2E_URL is not set: run the e2e tests with `npx playwright test`');
    await use({ url, origin: new URL(url).origin });
  },

  /** dist/'s parent, served too, so pages can be opened from the sub-path /dist/. */
  parentServer: async ({}, use) => {
    const url = process.env.FP_E2E_PARENT_URL;
    if (!url) throw new Error('FP_E2E_PARENT_URL is not set: run the e2e tests with `npx playwright test`');
    await use({ url, origin: new URL(url).origin });
  },

  baseURL: async ({ server }, use) => use(server.url),

  /**
   * `openPage({ viewport, origin, context })` opens a recorded page in a new context of its own
   * (for a second page, another viewport, a page whose requests may go to `origin`: a URL's
   * origin or 'file://', or a phone: `context` holds more of Playwright's context options, such
   * as `hasTouch` and `isMobile`). The first page a test opens is photographed as <test title>.png, later ones
   * as <test title>-2.png and so on; `rec.screenshot(name)` takes one more on purpose.
   */
  openPage: async ({ browser, server }, use, testInfo) => {
    const opened = [];
    await mkdir(SCREENSHOTS, { recursive: true });
    await use(async ({ viewport, origin = server.origin, context: options = {} } = {}) => {
      const context = await browser.newContext({ ...(viewport ? { viewport } : {}), ...options });
      const rec = await record(context, await context.newPage(), origin);
      const name = slug(testInfo.title) + (opened.length ? `-${opened.length + 1}` : '');
      // The picture taken as every test ends is of the viewport (a full-page capture draws the
      // whole page again, for every test); one a test asks for is of the whole page.
      rec.screenshot = async (as = name, { full = true } = {}) => {
        const path = `${SCREENSHOTS}${slug(as)}.png`;
        if (!full) return rec.page.screenshot({ path });
        if (!options.isMobile) return rec.page.screenshot({ path, fullPage: true });
        // Chromium draws a full-page capture without the touch emulation, so a phone's page
        // would be photographed with a mouse's styles: the viewport grows to the page instead.
        const size = rec.page.viewportSize();
        const height = await rec.page.evaluate(() => document.documentElement.scrollHeight);
        await rec.page.setViewportSize({ width: size.width, height: Math.max(height, size.height) });
        await rec.page.screenshot({ path });
        await rec.page.setViewportSize(size);
      };
      opened.push(rec);
      return rec;
    });
    for (const rec of opened) {
      await rec.screenshot(undefined, { full: false }).catch((e) => console.error(`screenshot for "${testInfo.title}" failed: ${e.message}`));
      await rec.context.close();
    }
  },

  /** The test's recorded page on the served dist/, at the configured viewport. */
  rec: async ({ openPage }, use) => {
    await use(await openPage());
  },
});
