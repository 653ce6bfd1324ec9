// Embedding: the sample blog post with three <fencing-playground> elements, the iframe form, the
// single-file build opened from file://, attribute safety (XSS, malformed input) and the CSP.
// Pages that only a test needs (a host page with an iframe, a page with odd attributes) are
// answered by page.route on the local origin, so they come from 127.0.0.1 like everything else.
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { CSP } from '../../scripts/serve.mjs';
import { assertClean, DIST, XSS, markupScenario, collectDialogs, startEmbeds } from './helpers.mjs';
import { test } from './fixtures.mjs';

const POST = 'www/blog-post.html';

/** Answers `path` on the test server's origin with `html`, optionally under the site's CSP. */
async function hostPage(rec, server, path, html, { csp = true } = {}) {
  const url = `${server.url}${path}`;
  await rec.page.route(url, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      headers: csp ? { 'Content-Security-Policy': CSP } : {},
      body: html,
    }),
  );
  return url;
}

/** A page that loads embed.js (relative to /www/) and holds `body`. */
const embedPage = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>embed test</title><script type="module" src="/www/embed.js"></script></head><body>${body}</body></html>`;

/** Records CSP violations from the first script on; read them with cspViolations(). */
async function watchCsp(rec) {
  await rec.page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
}
const cspViolations = (rec) => rec.page.evaluate(() => window.__cspViolations);

/** Starts every <fencing-playground> (`n` of them; each starts near the viewport) and waits. */
async function waitForEmbeds(page, n) {
  await startEmbeds(page, n);
  await settled(page);
}

/** Two animation frames: resize observers have fired and the renders they caused are done. */
async function settled(page) {
  for (let i = 0; i < 2; i++) {
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  }
}

/** The whole rendered playground of the n-th element, as markup. */
const snapshot = (page, n) =>
  page.locator('fencing-playground').nth(n).evaluate((el) => el.shadowRoot.querySelector('[data-testid="playground"]').outerHTML);

/** Drags the end of `scope`'s A pause with the real mouse to `fraction` of its length. */
async function dragPauseEnd(page, scope, fraction) {
  await scope.locator('[data-testid="pause-A-1"]').scrollIntoViewIfNeeded();
  const start = await scope.locator('[data-testid="pause-A-1-start"]').boundingBox();
  const end = await scope.locator('[data-testid="pause-A-1-end"]').boundingBox();
  const y = end.y + end.height / 2;
  const from = end.x + end.width / 2;
  const to = start.x + start.width / 2 + (from - start.x - start.width / 2) * fraction;
  await page.mouse.move(from, y);
  await page.mouse.down();
  await page.mouse.move((from + to) / 2, y, { steps: 5 });
  await page.mouse.move(to, y, { steps: 5 });
  await page.mouse.up();
}

test('sample post: three embeds, editing the second leaves the first and third unchanged', async ({ rec, server }) => {
  test.setTimeout(90_000);
  await watchCsp(rec);
  const { page } = rec;
  await page.goto(server.url + POST);
  await waitForEmbeds(page, 3);
  const embeds = page.locator('fencing-playground');
  const words = await embeds.locator('[data-testid="verdict-word"]').allInnerTexts();
  assert.deepEqual(words, ['✗ Unsafe', '✓ Safe', '✗ Unsafe'], 'unfenced, fenced, Redlock clock jump');
  assert.deepEqual(await embeds.locator('[data-testid="title"]').allInnerTexts(), [
    'GC pause, no fencing',
    'GC pause, fenced storage',
    'Redlock: a clock jump hands out a second lock',
  ]);

  const first = await snapshot(page, 0);
  const third = await snapshot(page, 2);
  const secondBefore = await snapshot(page, 1);
  const second = embeds.nth(1);
  const verdict = second.locator('[data-testid="verdict"]');
  const before = await verdict.innerText();

  // A real drag: A's pause now ends before its lease runs out, so its debit is on time.
  await dragPauseEnd(page, second, 0.4);
  await page.waitForFunction(
    ([el, text]) => el.shadowRoot.querySelector('[data-testid="verdict"]').innerText !== text,
    [await second.elementHandle(), before],
  );
  const afterDrag = await verdict.innerText();
  // A's watchdog renews in time, so B is refused and A's debit with fence 33 is the one that lands.
  assert.match(afterDrag, /Balance 90, last fence 33/, 'the short pause lets A keep its lease');

  // Keys on a focused event of the same embed move it too.
  const acquireB = second.locator('[data-testid="event-B-0"]');
  await acquireB.focus();
  const label = await acquireB.getAttribute('aria-label');
  await page.keyboard.press('Shift+ArrowRight');
  await page.waitForFunction(
    ([el, text]) => el.shadowRoot.querySelector('[data-testid="event-B-0"]')?.getAttribute('aria-label') !== text,
    [await second.elementHandle(), label],
  );

  await settled(page);
  assert.notEqual(await snapshot(page, 1), secondBefore, 'the second embed did not change');
  assert.equal(await snapshot(page, 0), first, 'the first embed changed');
  assert.equal(await snapshot(page, 2), third, 'the third embed changed');
  assert.deepEqual(await embeds.locator('[data-testid="verdict-word"]').allInnerTexts().then((w) => [w[0], w[2]]), ['✗ Unsafe', '✗ Unsafe']);

  // Styles stay on their side of the shadow boundary: the post's broad rules (p in Georgia,
  // uppercase buttons) reach the post but not the playground, and the playground's do not reach the post.
  const styles = await page.evaluate(() => {
    const root = document.querySelector('fencing-playground').shadowRoot;
    const cs = (el) => getComputedStyle(el);
    return {
      postP: cs(document.querySelector('article > p')).fontFamily,
      postH2: cs(document.querySelector('article h2')).fontSize,
      innerCaption: cs(root.querySelector('[data-testid="caption"]')).fontFamily,
      innerButton: root.querySelector('button') && cs(root.querySelector('button')).textTransform,
      innerSvgHeight: root.querySelector('[data-testid="timeline"]').getBoundingClientRect().height,
    };
  });
  assert.match(styles.postP, /Georgia/);
  assert.equal(styles.postH2, '21.6px'); // the post's 1.35rem, not the playground's h2 size
  assert.doesNotMatch(styles.innerCaption, /Georgia/);
  assert.notEqual(styles.innerButton, 'uppercase');
  assert.ok(styles.innerSvgHeight > 100, `the post's svg { max-height: 2em } reached the timeline (${styles.innerSvgHeight}px)`);

  assert.deepEqual(await cspViolations(rec), []);
  assertClean(rec);
});

test('three embeds fetch and compile the wasm once; nothing leaves 127.0.0.1', async ({ rec, server }) => {
  await rec.page.goto(server.url + POST);
  await waitForEmbeds(rec.page, 3);
  const wasm = rec.requests.filter((u) => new URL(u).pathname.endsWith('.wasm'));
  const glue = rec.requests.filter((u) => new URL(u).pathname.endsWith('/pkg/fencing_playground.js'));
  assert.deepEqual(wasm, [`${server.url}pkg/fencing_playground_bg.wasm`]);
  assert.equal(glue.length, 1);
  assert.ok(rec.requests.length > 3);
  assert.deepEqual(rec.outsideRequests(), []);
  assert.ok(rec.requests.every((u) => u.startsWith(server.origin + '/') || u.startsWith('data:')), rec.requests.join('\n'));
  assertClean(rec);
});

test('the sample post works from a sub-path', async ({ openPage, parentServer }) => {
  // dist/'s parent is served too (playwright.config.mjs), so the post lives at /dist/www/: any
  // absolute URL would 404.
  const rec = await openPage({ origin: parentServer.origin });
  await rec.page.goto(`${parentServer.url}dist/${POST}`);
  await waitForEmbeds(rec.page, 3);
  assert.ok(rec.requests.some((u) => u.endsWith('/dist/pkg/fencing_playground_bg.wasm')));
  assertClean(rec);
});

test('served pages carry the CSP and work under it', async ({ rec, server }) => {
  await watchCsp(rec);
  const { page } = rec;
  for (const path of [POST, 'www/embed.html', 'www/embed.js', 'www/embed-frame.js', 'index.html']) {
    const res = await page.request.get(server.url + path);
    assert.equal(res.status(), 200, path);
    assert.equal(res.headers()['content-security-policy'], CSP, path);
  }
  const res = await page.goto(server.url + 'www/embed.html?preset=bare-del');
  assert.equal(res.headers()['content-security-policy'], CSP);
  await waitForEmbeds(page, 1);
  assert.deepEqual(await cspViolations(rec), []);
  assertClean(rec);
  // The watch itself works: an inline script is refused and reported.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__ran = true';
    document.head.append(s);
  });
  await page.waitForFunction(() => window.__cspViolations.length > 0);
  assert.equal(await page.evaluate(() => window.__ran), undefined);
  assert.match((await cspViolations(rec))[0], /^script-src/);
});

test('the iframe form reports its height and the host follows it', async ({ rec, server }) => {
  test.setTimeout(90_000);
  const { page } = rec;
  // The host's own listener, as docs/embedding.md shows it; it resizes the iframe.
  await page.addInitScript(() => {
    if (window.top !== window) return;
    window.__heights = [];
    addEventListener('message', (e) => {
      const frame = document.getElementById('fp');
      if (e.source !== frame?.contentWindow || e.data?.type !== 'fencing-playground:height') return;
      if (!Number.isFinite(e.data.height)) return;
      window.__heights.push(e.data.height);
      frame.style.height = `${e.data.height}px`;
    });
  });
  const url = await hostPage(rec, server, '__test/iframe-host.html', `<!doctype html><html lang="en"><head><meta charset="utf-8">
    <title>iframe host</title></head><body><h1>Host</h1>
    <iframe id="fp" src="/www/embed.html?preset=gc-pause-fenced&readonly=1" title="playground" width="900" height="150"></iframe>
    <p>after</p></body></html>`);
  await page.goto(url);
  const frame = page.frameLocator('#fp');
  await frame.locator('[data-testid="timeline"]').waitFor({ timeout: 20_000 });

  // The frame's height and its content's, read together: the content can still grow between
  // two separate reads (the Commands view is drawn when the browser is idle, up to a second
  // after the first render).
  const follows = async () => {
    const same = await page.waitForFunction(() => {
      const f = /** @type {HTMLIFrameElement} */ (document.getElementById('fp'));
      const inner = Math.ceil(f.contentDocument.documentElement.getBoundingClientRect().height);
      return f.clientHeight === inner && inner > 300 && inner;
    });
    return Number(await same.jsonValue());
  };
  const first = await follows();
  assert.ok(first > 150, `the iframe stayed at its initial height (${first})`);

  // Loading a preset with a third client makes the timeline taller; the iframe follows.
  const post = (data) => page.evaluate((d) => document.getElementById('fp').contentWindow.postMessage(d, '*'), data);
  await post({ type: 'fencing-playground:load', preset: 'bare-del' });
  await frame.locator('[data-testid="lane-C"]').waitFor();
  await page.waitForFunction((h) => window.__heights.at(-1) > h, first);
  const second = await follows();
  assert.ok(second > first, `${second} ≤ ${first}`);

  // Malformed messages are ignored. get-height is answered after them (messages arrive in order),
  // so once the answer is in, they have all been handled.
  const title = await frame.locator('[data-testid="title"]').innerText();
  for (const bad of [
    'fencing-playground:load',
    { type: 'fencing-playground:load', preset: XSS },
    { type: 'fencing-playground:load', preset: 5 },
    { type: 'fencing-playground:load', scenario: [1, 2] },
    { type: 'fencing-playground:load', preset: 'contract-1-nx', scenario: {} },
    { type: 'fencing-playground:eval', code: 'alert(1)' },
  ]) {
    await post(bad);
  }
  const answers = await page.evaluate(() => window.__heights.length);
  await post({ type: 'fencing-playground:get-height' });
  await page.waitForFunction((n) => window.__heights.length > n, answers);
  assert.equal(await frame.locator('[data-testid="title"]').innerText(), title);
  assert.equal(await frame.locator('[data-testid="embed-error"]').count(), 0);

  // A well-formed load with a scenario object works too.
  await post({ type: 'fencing-playground:load', scenario: { version: 1, name: 'From the parent', clients: [{ name: 'P' }] } });
  await frame.locator('[data-testid="title"]', { hasText: 'From the parent' }).waitFor();
  await follows();
  assertClean(rec);
});

test('the single file opens from file:// with no network and responds to a real drag', async ({ openPage }) => {
  const fileUrl = pathToFileURL(`${DIST}fencing-playground.html`).href;
  const rec = await openPage({ origin: 'file://' });
  const { page } = rec;
  await page.goto(fileUrl);
  const timeline = page.locator('[data-testid="timeline"]');
  await timeline.or(page.locator('[data-testid="boot-error"]')).first().waitFor({ timeout: 20_000 });
  assert.equal(await page.locator('[data-testid="boot-error"]').count(), 0);
  assert.equal(await timeline.evaluate((el) => el.tagName.toLowerCase()), 'svg');

  const verdict = page.locator('[data-testid="verdict"]');
  const before = await verdict.innerText();
  await dragPauseEnd(page, page, 0.4);
  await page.waitForFunction((text) => document.querySelector('[data-testid="verdict"]').innerText !== text, before);
  // The default page has no fencing: the short pause lets A keep its lease, and only A debits.
  assert.match(await verdict.innerText(), /Balance 90/);

  // The page itself and inline data only: no script, wasm or style fetched from anywhere.
  assert.deepEqual(rec.requests.filter((u) => !u.startsWith('data:')), [fileUrl]);
  assertClean(rec);
});

test('a client named like markup shows as text and runs nothing', async ({ rec, server }) => {
  const { page } = rec;
  const dialogs = collectDialogs(page);
  const scenario = markupScenario();
  // No CSP on this page on purpose: the text must be inert on its own, not only because a
  // policy would block an injected handler.
  const url = await hostPage(rec, server, '__test/xss.html', embedPage(`<fencing-playground scenario='${JSON.stringify(scenario)}'></fencing-playground>`), { csp: false });
  await page.goto(url);
  await waitForEmbeds(page, 1);
  const el = page.locator('fencing-playground');
  assert.equal(await el.locator('[data-testid="embed-error"]').count(), 0, 'the scenario is valid');
  assert.equal(await el.locator('[data-testid="title"]').innerText(), scenario.name);
  assert.equal(await el.locator('[data-testid="caption"]').innerText(), scenario.caption);
  assert.ok((await el.getByText(XSS, { exact: true }).count()) > 0, 'the name is not shown as text');
  const markup = await el.evaluate((host) => ({
    img: host.shadowRoot.querySelectorAll('img').length,
    script: host.shadowRoot.querySelectorAll('script').length,
    b: [...host.shadowRoot.querySelectorAll('b')].filter((b) => b.textContent.includes('not bold')).length,
    svg: [...host.shadowRoot.querySelectorAll('svg')].filter((s) => s.getAttribute('onload')).length,
  }));
  assert.deepEqual(markup, { img: 0, script: 0, b: 0, svg: 0 });
  // An <img src=x> that was parsed would have asked the server for /__test/x.
  await settled(page);
  assert.deepEqual(rec.requests.filter((u) => /\/x$/.test(new URL(u).pathname)), []);
  assert.deepEqual(dialogs, []);

  // The iframe form takes the same scenario from its query string, under the site's CSP.
  await page.goto(`${server.url}www/embed.html?scenario=${encodeURIComponent(JSON.stringify(scenario))}`);
  await waitForEmbeds(page, 1);
  assert.equal(await page.locator('[data-testid="title"]').innerText(), scenario.name);
  assert.ok((await page.getByText(XSS, { exact: true }).count()) > 0);
  assert.deepEqual(dialogs, []);
  assertClean(rec);
});

test('malformed attributes name the problem and still give a working playground', async ({ openPage, server }) => {
  test.setTimeout(90_000);
  const rec = await openPage({ viewport: { width: 1280, height: 900 } });
  await watchCsp(rec);
  const { page } = rec;
  const url = await hostPage(rec, server, '__test/malformed.html', embedPage(`
    <fencing-playground id="preset" preset="gc-pause-fencd"></fencing-playground>
    <fencing-playground id="json" scenario='{"version": 1, "clients": ['></fencing-playground>
    <fencing-playground id="invalid" scenario='{"version": 1, "clients": []}'></fencing-playground>
    <fencing-playground id="look" preset="bare-del" theme="purple" height="tall" compact></fencing-playground>
    <fencing-playground id="good" preset="crash-ttl" theme="dark" height="420" readonly></fencing-playground>`));
  await page.goto(url);
  await waitForEmbeds(page, 5);
  const error = (id) => page.locator(`#${id} [data-testid="embed-error"]`);
  const title = (id) => page.locator(`#${id} [data-testid="title"]`).innerText();

  assert.match(await error('preset').innerText(), /unknown preset "gc-pause-fencd"; known: .*gc-pause-fenced/);
  assert.match(await error('json').innerText(), /scenario: not valid JSON/);
  assert.match(await error('invalid').innerText(), /clients: expected 1 to 12 clients, got 0/);
  // An unknown preset and an invalid scenario fall back to embed.js's default preset; JSON that
  // does not parse, to the app's own default page (the unfenced GC pause, where the first minute
  // starts).
  const fallbackTitle = { preset: 'GC pause, fenced storage', json: 'GC pause, no fencing', invalid: 'GC pause, fenced storage' };
  for (const id of ['preset', 'json', 'invalid']) {
    assert.match(await error(id).innerText(), /Showing the default scenario instead/, id);
    assert.equal(await title(id), fallbackTitle[id], id);
  }
  // A bad look does not cost the scenario: bare-del is still shown, with both problems named.
  const look = await error('look').innerText();
  assert.match(look, /theme: expected auto, light, dark or system, got "purple"; following the page's theme/);
  assert.match(look, /height: expected a CSS length .* got "tall"/);
  assert.equal(await title('look'), 'A bare DEL deletes the next holder\'s lease');
  assert.equal(await error('good').count(), 0);
  // readonly: no preset picker and no drag handles.
  assert.equal(await page.locator('#good [data-testid="preset"]').count(), 0);
  assert.equal(await page.locator('#good [data-part="end"]').count(), 0);
  assert.ok((await page.locator('#look [data-part="end"]').count()) > 0);

  const frame = (id) =>
    page.locator(`#${id}`).evaluate((el) => {
      const f = el.shadowRoot.querySelector('.fpe-frame');
      return { theme: f.dataset.theme, height: f.getBoundingClientRect().height, overflow: getComputedStyle(f).overflowY };
    });
  assert.deepEqual(await frame('good'), { theme: 'dark', height: 420, overflow: 'auto' });
  // theme="purple" counts as auto: the page around it sets nothing and its background is the
  // canvas's, so it follows the system, light here.
  assert.equal((await frame('look')).theme, 'light');
  assert.equal(await page.locator('#look').getAttribute('data-resolved-theme'), 'light');

  // The fallback is a real playground: a drag changes its verdict.
  const fallback = page.locator('#preset');
  const before = await fallback.locator('[data-testid="verdict"]').innerText();
  await fallback.scrollIntoViewIfNeeded();
  await dragPauseEnd(page, fallback, 0.4);
  await page.waitForFunction(
    (text) => document.querySelector('#preset').shadowRoot.querySelector('[data-testid="verdict"]').innerText !== text,
    before,
  );

  // Fixing the attribute clears the error and loads what was asked for.
  await page.locator('#preset').evaluate((el) => el.setAttribute('preset', 'gc-pause-unfenced'));
  await page.locator('#preset [data-testid="title"]', { hasText: 'GC pause, no fencing' }).waitFor();
  assert.equal(await error('preset').count(), 0);
  assert.deepEqual(await cspViolations(rec), []);
  assertClean(rec);
});

test('changing only the theme or height keeps the reader\'s edits', async ({ rec, server }) => {
  const { page } = rec;
  await page.goto(await hostPage(rec, server, '__test/live.html', embedPage('<fencing-playground preset="gc-pause-fenced"></fencing-playground>')));
  await waitForEmbeds(page, 1);
  const el = page.locator('fencing-playground');
  const before = await el.locator('[data-testid="verdict"]').innerText();
  await dragPauseEnd(page, el, 0.4);
  await page.waitForFunction(
    (text) => document.querySelector('fencing-playground').shadowRoot.querySelector('[data-testid="verdict"]').innerText !== text,
    before,
  );
  const edited = await el.locator('[data-testid="verdict"]').innerText();
  await el.evaluate((e) => {
    e.setAttribute('theme', 'dark');
    e.setAttribute('height', '30em');
  });
  await page.waitForFunction(() => document.querySelector('fencing-playground').shadowRoot.querySelector('.fpe-frame').dataset.theme === 'dark');
  assert.equal(await el.locator('[data-testid="verdict"]').innerText(), edited);
  assert.equal(await el.locator('.fpe-frame').evaluate((f) => getComputedStyle(f).overflowY), 'auto');
  assertClean(rec);
});

test('compact leaves out what docs/embedding.md says it does; the full embed beside it shows all of it', async ({ openPage, server }) => {
  test.setTimeout(90_000);
  const rec = await openPage({ viewport: { width: 1280, height: 900 } });
  const { page } = rec;
  const url = await hostPage(rec, server, '__test/compact.html', embedPage(`
    <fencing-playground id="compact" preset="gc-pause-fenced" compact loading="eager"></fencing-playground>
    <fencing-playground id="full" preset="gc-pause-fenced" loading="eager"></fencing-playground>`));
  await page.goto(url);
  await waitForEmbeds(page, 2);
  // What a reader sees of each part, by its test id (a part hidden by the sheet counts as gone).
  const seen = (id) =>
    page.locator(`#${id}`).evaluate((host) => {
      const parts = ['toolbar', 'export-json', 'import-json', 'undo', 'preset', 'service', 'caption', 'hint',
        'narration', 'commands', 'title', 'timeline', 'readout'];
      const shown = (el) => !!el && el.checkVisibility();
      const out = Object.fromEntries(parts.map((p) => [p, shown(host.shadowRoot.querySelector(`[data-testid="${p}"]`))]));
      out.verdict = shown(host.shadowRoot.querySelector('.fp-verdict'));
      out.keys = shown(host.shadowRoot.querySelector('.fp-keys'));
      return out;
    });
  const gone = ['toolbar', 'export-json', 'import-json', 'undo', 'preset', 'service', 'caption', 'hint', 'narration', 'commands', 'keys'];
  const kept = ['title', 'verdict', 'timeline', 'readout'];
  const compact = await seen('compact');
  const full = await seen('full');
  for (const part of gone) {
    assert.equal(compact[part], false, `compact shows ${part}`);
    assert.equal(full[part], true, `the full embed lacks ${part}`);
  }
  for (const part of kept) assert.equal(compact[part], true, `compact lacks ${part}`);
  assertClean(rec);
});
