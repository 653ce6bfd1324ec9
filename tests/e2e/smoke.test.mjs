// Smoke test: the built page boots under the strict CSP, the app renders its timeline,
// nothing errors, and nothing is fetched from anywhere but the local server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import { startEnv, openPage, assertClean, DIST } from './helpers.mjs';

let env;
before(async () => {
  env = await startEnv();
});
after(async () => {
  await env?.close();
});

/** Loads `url` and waits for the timeline, failing with the page's own message if boot failed. */
async function bootAndWaitForTimeline(rec, url) {
  await rec.page.goto(url);
  const bootError = rec.page.locator('[data-testid="boot-error"]');
  const timeline = rec.page.locator('[data-testid="timeline"]');
  await timeline.or(bootError).first().waitFor({ timeout: 20_000 });
  if (await bootError.count()) assert.fail(await bootError.innerText());
  return timeline;
}

test('page boots and renders the timeline', { timeout: 60_000 }, async (t) => {
  const rec = await openPage(env, t);
  const timeline = await bootAndWaitForTimeline(rec, env.url);
  assert.equal(await timeline.evaluate((el) => el.tagName.toLowerCase()), 'svg');
  assert.ok(await timeline.isVisible(), 'timeline is not visible');
  assertClean(rec);
});

test('page works from a sub-path', { timeout: 60_000 }, async (t) => {
  // Serve dist/'s parent so the page lives at /dist/: any absolute URL (/pkg/..., /www/...) 404s.
  const parent = await startServer({ root: dirname(DIST.replace(/\/$/, '')), port: 0 });
  const rec = await openPage({ ...env, origin: new URL(parent.url).origin }, t);
  t.after(() => parent.close()); // after openPage's own hook, which closes the page first
  await bootAndWaitForTimeline(rec, `${parent.url}dist/`);
  assertClean(rec);
});
