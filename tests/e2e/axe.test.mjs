// Accessibility, measured: axe-core (the npm package pinned in package-lock.json) on every page
// a reader can open, with every rule it runs by default, none disabled, and WCAG 2.2's target
// size (off in axe by default) switched on. The pages run under a strict CSP that refuses inline
// scripts, so axe's source is not added as a <script>: it is evaluated in each frame through the
// DevTools protocol (page.evaluate), which the CSP does not govern. Frames get their own copy,
// and axe.run in the top frame reaches into them; axe reads open shadow roots by itself (the
// blog post's playgrounds live in them).
//
// A violation is reported with its rule, impact, help text and the offending elements, so a
// failure says what to fix without opening a trace.
import { assertClean, tid, startEmbeds } from './helpers.mjs';
import { test } from './fixtures.mjs';
import { expectNoViolations } from './axe.mjs';

/** A phone: 390 × 844 CSS px, touch only. */
const PHONE = { viewport: { width: 390, height: 844 }, context: { hasTouch: true, isMobile: true } };

async function openMain(openPage, { phone = false, dark = false, preset } = {}) {
  const rec = await openPage(phone ? PHONE : {});
  const { page } = rec;
  if (dark) await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/');
  await page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
  if (preset) {
    await page.selectOption(tid('preset'), preset);
    await page.locator(`${tid('preset')} option[value="${preset}"]:checked`).waitFor({ state: 'attached' });
  }
  return rec;
}

for (const dark of [false, true]) {
  const theme = dark ? 'dark' : 'light';

  test(`axe: the main page, default preset, ${theme}`, async ({ openPage }) => {
    const rec = await openMain(openPage, { dark });
    await expectNoViolations(rec.page, `the default page (${theme})`);
    assertClean(rec);
  });

  test(`axe: the main page, a Redlock preset, ${theme}`, async ({ openPage }) => {
    const rec = await openMain(openPage, { dark, preset: 'redlock-clock-jump' });
    // An instance event selected: its inspector shows too.
    await rec.page.locator('[data-testid^="iev-R3-0"]').first().focus();
    await expectNoViolations(rec.page, `the Redlock clock jump (${theme})`);
    assertClean(rec);
  });

  test(`axe: the main page, a database-lease preset (its lane and settings), ${theme}`, async ({ openPage }) => {
    const rec = await openMain(openPage, { dark, preset: 'lease-fast-waiter-fenced' });
    await expectNoViolations(rec.page, `the database lease's fast waiter (${theme})`);
    assertClean(rec);
  });

  test(`axe: the main page on a 390 px phone, controls folded and open, ${theme}`, async ({ openPage }) => {
    const rec = await openMain(openPage, { dark, phone: true });
    await expectNoViolations(rec.page, `the default page at 390 px (${theme})`);
    await rec.page.locator(tid('controls-toggle')).tap();
    await rec.page.locator(tid('palette')).waitFor({ state: 'visible' });
    await expectNoViolations(rec.page, `the default page at 390 px, controls open (${theme})`);
    assertClean(rec);
  });
}

for (const phone of [false, true]) {
  test(`axe: Find a failure, open with a counterexample found${phone ? ', 390 px phone' : ''}`, async ({ openPage }) => {
    const rec = await openMain(openPage, { phone, preset: 'gc-pause-fenced' });
    const { page } = rec;
    await page.locator(`${tid('find')} > summary`).click();
    await page.locator(tid('find-breaker')).click();
    await page.locator(tid('found-mark')).first().waitFor({ timeout: 20_000 });
    await expectNoViolations(page, `the Find a failure panel${phone ? ' at 390 px' : ''}`);
    assertClean(rec);
  });
}

test('axe: embed.html, read-only and editable', async ({ openPage, server }) => {
  for (const query of ['preset=gc-pause-fenced', 'preset=redlock-clock-jump&readonly=1&theme=dark']) {
    const rec = await openPage();
    await rec.page.goto(`${server.url}www/embed.html?${query}`);
    await rec.page.locator(tid('timeline')).waitFor({ timeout: 20_000 });
    await expectNoViolations(rec.page, `embed.html?${query}`);
    assertClean(rec);
  }
});

for (const dark of [false, true]) {
  test(`axe: the sample blog post with its three playgrounds, ${dark ? 'dark' : 'light'}`, async ({ openPage, server }) => {
    const rec = await openPage();
    const { page } = rec;
    if (dark) await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${server.url}www/blog-post.html`);
    // Every embed has booted (each starts when scrolled near): each draws its timeline in its own shadow root.
    await startEmbeds(page, 3);
    await expectNoViolations(page, `www/blog-post.html (${dark ? 'dark' : 'light'})`);
    assertClean(rec);
  });
}
