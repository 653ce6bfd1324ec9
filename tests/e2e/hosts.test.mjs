// Embeds in the pages of real site generators: tests/e2e/hosts/*.html carry each generator's
// theme markers and stylesheet rules, and the embed code pasted into each is the block of that
// name in docs/embedding.md, read from the file (only its folder, `/fencing-playground/`, becomes
// the test server's root, and the Hugo shortcode's parameter is filled in as Hugo would), served
// as a nested page (/__hosts/<name>/posts/leases/), where a path relative to the page misses. Each
// test switches the host's theme as the generator's own toggle does and checks that every
// playground follows it in the next frame, its colours too, and that axe finds nothing in either
// theme. The plain host page checks that a playground below the fold fetches nothing until the
// reader scrolls near it, and that it keeps its height meanwhile.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { assertClean } from './helpers.mjs';
import { expectNoViolations } from './axe.mjs';
import { test } from './fixtures.mjs';
import { HEIGHTS } from '../../www/embed-heights.js';

const DOCS = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');

/** The html block marked `<!-- snippet: name -->` in docs/embedding.md. */
export function snippet(name) {
  const m = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`html\\n([\\s\\S]*?)\\n\`\`\``).exec(DOCS);
  assert.ok(m, `docs/embedding.md has no html block marked <!-- snippet: ${name} -->`);
  return m[1];
}

/** The host page `name` with its snippet in place, as the site would serve it. */
function hostHtml(name) {
  const page = readFileSync(new URL(`./hosts/${name}.html`, import.meta.url), 'utf8');
  assert.ok(page.includes('<!-- SNIPPET -->'), `hosts/${name}.html has no <!-- SNIPPET --> marker`);
  const code = snippet(name)
    .replaceAll('{{ .Get 0 }}', 'gc-pause-fenced')
    .replace(/\/fencing-playground\//g, '/')
    .replace(/<!-- … (more of )?the post … -->/g, '<p class="long">More of the post.</p>');
  return page.replace('<!-- SNIPPET -->', code);
}

// How each generator's toggle switches its theme: a class or an attribute on <html> or <body>.
const HOSTS = [
  { name: 'mdbook', initial: 'dark', target: 'html', attr: 'class', values: { light: 'rust', dark: 'coal' } },
  { name: 'docusaurus', initial: 'light', target: 'html', attr: 'data-theme', values: { light: 'light', dark: 'dark' } },
  { name: 'hugo', initial: 'light', target: 'html', attr: 'data-theme', values: { light: 'light', dark: 'dark' } },
  { name: 'vitepress', initial: 'light', target: 'html', attr: 'class', values: { light: '', dark: 'dark' } },
  { name: 'mkdocs', initial: 'light', target: 'body', attr: 'data-md-color-scheme', values: { light: 'default', dark: 'slate' } },
  { name: 'plain', initial: 'light', target: 'body', attr: 'class', values: { light: '', dark: 'night' } },
];

async function openHost(openPage, server, name, system) {
  const rec = await openPage();
  // A post's page, not the site's index: a path written relative to the page would miss here.
  const url = `${server.url}__hosts/${name}/posts/leases/`;
  await rec.page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: hostHtml(name) }));
  // The reader's system says the opposite of the page, so following the system would fail.
  await rec.page.emulateMedia({ colorScheme: system });
  await rec.page.goto(url);
  return rec;
}

/** Scrolls each playground into view with the mouse wheel and waits until all have started. */
async function startAll(page) {
  const els = page.locator('fencing-playground');
  const n = await els.count();
  assert.ok(n > 0, 'the page has no playground');
  for (let i = 0; i < n; i++) {
    const el = els.nth(i);
    for (let tries = 0; !(await inView(el)); tries++) {
      assert.ok(tries < 40, `playground ${i} never came into view`);
      const box = await el.boundingBox();
      await page.mouse.move(400, 300);
      await page.mouse.wheel(0, Math.sign(box.y) * Math.min(Math.abs(box.y), 1200));
    }
    await el.locator('[data-testid="timeline"]').waitFor({ timeout: 20_000 });
  }
  return n;
}

async function inView(el) {
  const box = await el.boundingBox();
  const h = el.page().viewportSize().height;
  return box && box.y < h && box.y + box.height > 0;
}

/**
 * Switches the host to `want` as its toggle does and reads, after the next animation frame has
 * run (a task queued behind it), each playground's resolved theme and its painted background.
 */
function switchAndRead(page, host, want) {
  return page.evaluate(([{ target, attr, values }, want]) => {
    const el = target === 'html' ? document.documentElement : document.body;
    if (attr === 'class') {
      for (const v of Object.values(values)) if (v) el.classList.remove(v);
      if (values[want]) el.classList.add(values[want]);
    } else {
      el.setAttribute(attr, values[want]);
    }
    return new Promise((done) => requestAnimationFrame(() => setTimeout(() => done(readThemes()), 0)));
    function readThemes() {
      return [...document.querySelectorAll('fencing-playground')].map((p) => {
        const [r, g, b] = getComputedStyle(p.shadowRoot.querySelector('.fp-root')).backgroundColor.match(/[\d.]+/g).map(Number);
        return { resolved: p.getAttribute('data-resolved-theme'), painted: 0.2126 * r + 0.7152 * g + 0.0722 * b < 100 ? 'dark' : 'light' };
      });
    }
  }, [host, want]);
}

for (const host of HOSTS) {
  test(`host page ${host.name}: the playgrounds follow its theme switch within a frame, axe-clean in both`, async ({ openPage, server }) => {
    test.setTimeout(120_000);
    const other = host.initial === 'dark' ? 'light' : 'dark';
    const rec = await openHost(openPage, server, host.name, other);
    const { page } = rec;
    const n = await startAll(page);
    const all = (theme) => Array.from({ length: n }, () => ({ resolved: theme, painted: theme }));

    // Reading without switching: the initial theme.
    assert.deepEqual(await switchAndRead(page, host, host.initial), all(host.initial), 'the initial theme');
    await expectNoViolations(page, `${host.name} (${host.initial})`);
    assert.deepEqual(await switchAndRead(page, host, other), all(other), `switched to ${other}`);
    await expectNoViolations(page, `${host.name} (${other})`);
    await rec.screenshot(`host-${host.name}-${other}`, { full: false });
    assert.deepEqual(await switchAndRead(page, host, host.initial), all(host.initial), `back to ${host.initial}`);
    // An explicit theme wins over the host's.
    await page.locator('fencing-playground').first().evaluate((el) => el.setAttribute('theme', 'dark'));
    const [first] = await switchAndRead(page, host, 'light');
    assert.deepEqual(first, { resolved: 'dark', painted: 'dark' }, 'theme="dark" followed the host');
    assertClean(rec);
  });
}

test('host page plain: a playground below the fold fetches nothing until the reader scrolls near it, and keeps its height', async ({ openPage, server }) => {
  test.setTimeout(90_000);
  const rec = await openHost(openPage, server, 'plain', 'light');
  const { page } = rec;
  const els = page.locator('fencing-playground');
  assert.equal(await els.count(), 3);
  await els.nth(0).locator('[data-testid="embed-waiting"]').waitFor();
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  const fetched = () => rec.requests.filter((u) => /\/pkg[^/]*\//.test(new URL(u).pathname));
  assert.deepEqual(fetched(), [], 'nothing of the playground is fetched before the reader scrolls');
  const reserved = await els.nth(0).evaluate((el) => el.getBoundingClientRect().height);
  assert.equal(reserved, HEIGHTS.wide.presets['gc-pause-unfenced'].compact, 'the waiting box keeps the table height');

  // Real wheel scrolling until the first is near; the third, further down, stays asleep.
  const top = async () => (await els.nth(0).boundingBox()).y;
  await page.mouse.move(400, 300);
  while ((await top()) > 900) await page.mouse.wheel(0, 600);
  await els.nth(0).locator('[data-testid="timeline"]').waitFor({ timeout: 20_000 });
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  const started = await els.nth(0).evaluate((el) => el.getBoundingClientRect().height);
  assert.ok(Math.abs(started - reserved) <= 2, `the playground jumped from ${reserved}px to ${started}px when it started`);
  assert.equal(await els.nth(2).locator('[data-testid="timeline"]').count(), 0, 'the third started before it was near');
  assert.equal(await els.nth(2).locator('[data-testid="embed-waiting"]').count(), 1);
  const wasm = fetched().filter((u) => u.endsWith('.wasm'));
  assert.deepEqual(wasm, [`${server.url}pkg/fencing_playground_bg.wasm`]);

  await startAll(page);
  assert.equal(fetched().filter((u) => u.endsWith('.wasm')).length, 1, 'the wasm is fetched once for all');
  assertClean(rec);
});

test('host page iframe: the host script sends the page theme to the frame; bad theme messages are ignored', async ({ openPage, server }) => {
  test.setTimeout(90_000);
  const rec = await openHost(openPage, server, 'iframe', 'dark');
  const { page } = rec;
  const frame = page.frameLocator('iframe[data-fencing-playground]');
  await frame.locator('[data-testid="timeline"]').waitFor({ timeout: 20_000 });
  const resolved = () => frame.locator('fencing-playground').getAttribute('data-resolved-theme');
  const follow = (want) => page.waitForFunction((w) => document.querySelector('iframe').contentDocument.querySelector('fencing-playground')?.getAttribute('data-resolved-theme') === w, want, { timeout: 10_000 });
  await follow('light');
  await expectNoViolations(page, 'iframe host (light)');
  await page.evaluate(() => document.documentElement.classList.add('theme-night'));
  await follow('dark');
  assert.equal(await page.locator('iframe').getAttribute('data-resolved-theme'), 'dark');
  await expectNoViolations(page, 'iframe host (dark)');
  await rec.screenshot('host-iframe-dark', { full: false });

  // Messages outside the list change nothing; the frame's height follows its content.
  const post = (d) => page.evaluate((m) => document.querySelector('iframe').contentWindow.postMessage(m, '*'), d);
  for (const bad of [{ type: 'fencing-playground:theme', theme: 'purple' }, { type: 'fencing-playground:theme', theme: 5 }, { type: 'fencing-playground:theme' }]) {
    await post(bad);
  }
  await post({ type: 'fencing-playground:get-height' });
  await page.waitForFunction(() => {
    const f = document.querySelector('iframe');
    return Math.abs(f.clientHeight - f.contentDocument.documentElement.getBoundingClientRect().height) <= 1;
  });
  assert.equal(await resolved(), 'dark');
  await page.evaluate(() => document.documentElement.classList.remove('theme-night'));
  await follow('light');
  assert.equal(await frame.locator('[data-testid="embed-error"]').count(), 0);
  assertClean(rec);
});

test('color-scheme set on the element wins over the page; theme="system" follows the reader\'s system setting', async ({ openPage, server }) => {
  const rec = await openPage();
  const { page } = rec;
  const url = `${server.url}__hosts/own-rules.html`;
  await page.route(url, (route) => route.fulfill({
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>own rules</title>
      <style>body { background: #fff; } #own { color-scheme: dark; }</style>
      <script type="module" src="/www/embed.js"></script></head><body><main><h1>Own rules</h1>
      <fencing-playground id="own" compact></fencing-playground>
      <fencing-playground id="sys" theme="system" compact></fencing-playground></main></body></html>`,
  }));
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(url);
  await startAll(page);
  const resolved = (id) => page.locator(`#${id}`).getAttribute('data-resolved-theme');
  assert.equal(await resolved('own'), 'dark', 'the element\'s own color-scheme');
  assert.equal(await resolved('sys'), 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => document.querySelector('#sys').getAttribute('data-resolved-theme') === 'light', null, { timeout: 10_000 });
  assert.equal(await resolved('own'), 'dark', 'the system setting overrode the element\'s own color-scheme');
  assertClean(rec);
});
