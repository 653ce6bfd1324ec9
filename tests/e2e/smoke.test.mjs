// Smoke test: the built page boots under the strict CSP, the app renders its timeline,
// nothing errors, and nothing is fetched from anywhere but the local server.
import assert from 'node:assert/strict';
import { assertClean } from './helpers.mjs';
import { test } from './fixtures.mjs';

/** Loads `url` and waits for the timeline, failing with the page's own message if boot failed. */
async function bootAndWaitForTimeline(rec, url) {
  await rec.page.goto(url);
  const bootError = rec.page.locator('[data-testid="boot-error"]');
  const timeline = rec.page.locator('[data-testid="timeline"]');
  await timeline.or(bootError).first().waitFor({ timeout: 20_000 });
  if (await bootError.count()) assert.fail(await bootError.innerText());
  return timeline;
}

test('page boots and renders the timeline', async ({ rec, server }) => {
  const timeline = await bootAndWaitForTimeline(rec, server.url);
  assert.equal(await timeline.evaluate((el) => el.tagName.toLowerCase()), 'svg');
  assert.ok(await timeline.isVisible(), 'timeline is not visible');
  assertClean(rec);
});

test('page works from a sub-path', async ({ openPage, parentServer }) => {
  // dist/'s parent is served too (playwright.config.mjs), so the page lives at /dist/: any
  // absolute URL (/pkg/..., /www/...) 404s.
  const rec = await openPage({ origin: parentServer.origin });
  await bootAndWaitForTimeline(rec, `${parentServer.url}dist/`);
  assertClean(rec);
});
