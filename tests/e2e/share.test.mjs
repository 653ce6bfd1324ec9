// Sharing and keeping work, against the release build with a real mouse: the URL hash round
// trip, Copy link, JSON export and import, autosave, bad links and bad saved data, the XSS name
// through a link, SVG and PNG export, themes, mount()'s handle and errors, and embeds leaving
// their host's hash and storage alone.
import assert from 'node:assert/strict';
import { readFile, copyFile } from 'node:fs/promises';
import { assertClean, SCREENSHOTS, tid, centre, xOf, XSS, markupScenario, collectDialogs, startEmbeds } from './helpers.mjs';
import { test } from './fixtures.mjs';

const KEY = 'fencing-playground:v1';

/** The hash a scenario's link has, made here independently of the wasm: `#s=1.<base64url JSON>`. */
const hashOf = (scenario) => `#s=1.${Buffer.from(JSON.stringify(scenario)).toString('base64url')}`;

/** Opens `url` (the main page by default: '/' is the served dist/) and waits for the timeline. */
async function boot(page, url = '/') {
  await page.goto(url);
  const bootError = page.locator(tid('boot-error'));
  await page.locator(tid('timeline')).or(bootError).first().waitFor({ timeout: 20_000 });
  if (await bootError.count()) assert.fail(await bootError.innerText());
}

/** Polls until `read()` satisfies `ok` (renders and effects are asynchronous). */
async function until(what, read, ok) {
  const deadline = Date.now() + 5_000;
  let got;
  while (Date.now() < deadline) {
    got = await read().catch(() => undefined);
    if (got !== undefined && ok(got)) return got;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`${what}: last value ${JSON.stringify(got)}`);
}

const text = (page, id) => page.locator(tid(id)).textContent();
const expectText = (page, id, want) => until(`${id} containing ${JSON.stringify(want)}`, () => text(page, id), (t) => t?.includes(want));

/** Drags the end of A's GC pause to `ms` with the mouse. */
async function dragPauseEndTo(page, ms) {
  const from = await centre(page, 'pause-A-1-end');
  const toX = await xOf(page, ms);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + ((toX - from.x) * i) / 10, from.y);
  await page.mouse.up();
}

const pauseEnd = async (page) => Number(await page.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'));

/** What a person sees of the run: verdict, badges and where A's pause ends on screen. */
async function picture(page) {
  const badges = await page.locator('[data-testid^="step-"]').evaluateAll((els) => els.map((e) => `${e.dataset.testid}: ${e.textContent}`));
  const box = await page.locator(tid('pause-A-1-end')).boundingBox();
  return {
    title: await text(page, 'title'),
    verdict: await text(page, 'verdict'),
    badges,
    pauseEnd: await pauseEnd(page),
    handleX: Math.round(box.x),
  };
}

const problem = (page) => text(page, 'problem');
const hash = (page) => page.evaluate(() => location.hash);

/** Clicks `id` and returns the download it starts. */
async function downloadFrom(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(tid(id)).click()]);
  return { name: dl.suggestedFilename(), path: await dl.path() };
}

test('URL round trip: a dragged edit lands in the hash and opens the same picture elsewhere', async ({ rec, openPage, server }) => {
  const { page } = rec;
  await boot(page);
  await dragPauseEndTo(page, 20);
  await until('pause end near 20', () => pauseEnd(page), (v) => Math.abs(v - 20) <= 1);
  const end = await pauseEnd(page);
  const h = await until('hash holds the edit', () => hash(page), (v) => v.startsWith('#s=1.') && v.includes('.'));
  const decoded = JSON.parse(Buffer.from(h.slice(5), 'base64url').toString('utf8'));
  const pause = decoded.clients[0].events.find((e) => e.kind === 'pause');
  assert.equal(pause.atMs + pause.durationMs, end, 'the hash carries the dragged pause');
  const want = await picture(page);

  // A fresh context: no localStorage, so only the link can restore it.
  const other = await openPage();
  await boot(other.page, `${server.url}${h}`);
  assert.deepEqual(await picture(other.page), want);
  assert.equal(await other.page.locator(tid('problem')).count(), 0);
  assertClean(rec);
  assertClean(other);
});

test('Copy link copies the full URL and says so; without a clipboard the link is shown', async ({ rec, openPage, server }) => {
  const { page, context } = rec;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await boot(page);
  await dragPauseEndTo(page, 25);
  await until('hash settles', () => hash(page), (v) => v.length > 10);
  await page.locator(tid('copy-link')).click();
  await expectText(page, 'link-copied', 'Link copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, page.url());
  assert.ok(copied.startsWith(`${server.url}#s=1.`), copied);
  // An edit makes the confirmation stale, so it goes.
  await dragPauseEndTo(page, 45);
  await until('confirmation gone', () => page.locator(tid('link-copied')).count(), (n) => n === 0);

  const bare = await openPage();
  await bare.page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
  await boot(bare.page);
  await bare.page.locator(tid('copy-link')).click();
  const field = bare.page.locator(tid('share-url'));
  await field.waitFor();
  assert.equal(await field.inputValue(), bare.page.url());
  await field.focus();
  const selected = await field.evaluate((el) => el.value.slice(el.selectionStart, el.selectionEnd));
  assert.equal(selected, bare.page.url(), 'focusing the field selects the whole link');
  assertClean(rec);
  assertClean(bare);
});

test('Export JSON, change the scenario, Import JSON: the same run; a malformed file names the field and changes nothing', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  await dragPauseEndTo(page, 20);
  await until('pause end near 20', () => pauseEnd(page), (v) => Math.abs(v - 20) <= 1);
  const want = await picture(page);
  const file = await downloadFrom(page, 'export-json');
  assert.equal(file.name, 'scenario.json');
  const json = JSON.parse(await readFile(file.path, 'utf8'));
  assert.equal(json.version, 1);
  assert.deepEqual(json.clients.map((c) => c.name), ['A', 'B']);

  await page.selectOption(tid('preset'), 'bare-del');
  await expectText(page, 'title', 'DEL');
  await page.locator(tid('import-file')).setInputFiles(file.path);
  await until('imported run', () => picture(page), (p) => JSON.stringify(p) === JSON.stringify(want));
  assert.equal(await page.locator(tid('problem')).count(), 0);
  // The import is one undo step.
  await page.locator(tid('undo')).click();
  await expectText(page, 'title', 'DEL');
  await page.locator(tid('redo')).click();
  await until('redo', () => picture(page), (p) => JSON.stringify(p) === JSON.stringify(want));

  const bad = structuredClone(json);
  bad.clients[1].events[0].atMs = 'soon';
  await page.locator(tid('import-file')).setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
  const p = await until('problem shown', () => problem(page), (v) => v.includes('broken.json'));
  assert.match(p, /^broken\.json could not be imported: clients\[1\]\.events\[0\]/);
  assert.deepEqual(await picture(page), want, 'the scenario is kept');

  await page.locator(tid('import-file')).setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await until('problem for text', () => problem(page), (v) => v.startsWith('notes.txt could not be imported'));
  assert.deepEqual(await picture(page), want);
  await page.locator(tid('dismiss-problem')).click();
  assert.equal(await page.locator(tid('problem')).count(), 0, 'the notice can be dismissed');
  assertClean(rec);
});

test('a scenario file dropped on the playground is imported; a malformed one names the field and changes nothing', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  // Browsers cannot be handed an OS file drag by a script, so the drop is dispatched with a real
  // DataTransfer holding a real File, as the browser would after a drag from the desktop.
  const drop = async (name, text) => {
    const data = await page.evaluateHandle(([name, text]) => {
      const d = new DataTransfer();
      d.items.add(new File([text], name, { type: 'application/json' }));
      return d;
    }, [name, text]);
    await page.dispatchEvent(tid('timeline'), 'dragover', { dataTransfer: data });
    await page.dispatchEvent(tid('timeline'), 'drop', { dataTransfer: data });
  };
  const mine = {
    version: 1,
    name: 'Dropped from the desktop',
    clients: [{ name: 'Z', events: [{ kind: 'acquire', atMs: 5 }, { kind: 'debit', atMs: 9, amount: 7 }] }],
  };
  await drop('mine.json', JSON.stringify(mine));
  await until('title', () => text(page, 'title'), (v) => v === 'Dropped from the desktop');
  await until('Z\'s debit', () => text(page, 'step-Z-1'), (v) => v.includes('accepted, balance 93'));
  assert.equal(await page.locator(tid('problem')).count(), 0);

  mine.clients[0].events[1].amount = 'lots';
  await drop('broken.json', JSON.stringify(mine));
  const p = await until('problem shown', () => problem(page), (v) => v.includes('broken.json'));
  assert.match(p, /clients\[0\]\.events\[1\]\.amount: expected a whole number, got text "lots"/);
  assert.equal(await text(page, 'title'), 'Dropped from the desktop', 'the scenario on screen is kept');
  assertClean(rec);
});

test('a reload restores the last scenario from localStorage', async ({ rec, server }) => {
  const { page } = rec;
  await boot(page);
  await page.selectOption(tid('preset'), 'gc-pause-unfenced');
  await dragPauseEndTo(page, 22);
  await until('pause end near 22', () => pauseEnd(page), (v) => Math.abs(v - 22) <= 1);
  const want = await picture(page);
  const saved = await until('saved', () => page.evaluate((k) => localStorage.getItem(k), KEY), (v) => v?.includes('"pause"'));
  assert.equal(JSON.parse(saved).storage.fenceRule, 'off');
  // No hash: only the saved scenario can bring the edit back.
  await boot(page, server.url);
  assert.deepEqual(await picture(page), want);
  assert.equal(await page.locator(tid('problem')).count(), 0);
  assertClean(rec);
});

test('corrupt or incompatible saved data: a notice naming the problem and the default preset', async ({ rec, server }) => {
  const { page } = rec;
  await boot(page);
  const cases = [
    ['{"version":1,"clients":[{"name":"A","events":[{"kind":"warp","atMs":1}]}]}', 'clients[0].events[0]'],
    ['{{ not json', 'Your saved scenario could not be restored ('],
    ['{"version":99,"clients":[{"name":"A"}]}', 'version'],
  ];
  for (const [saved, want] of cases) {
    await page.evaluate(([k, v]) => localStorage.setItem(k, v), [KEY, saved]);
    await boot(page, server.url);
    const p = await until('problem', () => problem(page), (v) => v.includes(want));
    assert.match(p, /^Your saved scenario could not be restored \(.+\)\. Showing the default scenario instead\.$/);
    assert.equal(await page.locator(tid('preset')).inputValue(), 'gc-pause-unfenced');
    await expectText(page, 'verdict-word', '✗ Unsafe');
  }
  // The default it fell back to works: a drag changes the run.
  await dragPauseEndTo(page, 20);
  await expectText(page, 'step-A-2', 'accepted, balance 90');
  assertClean(rec);
});

test('a malformed hash names the problem and gives a working default; a bad hashchange keeps the scenario', async ({ rec, server }) => {
  const { page } = rec;
  await boot(page, `${server.url}#s=1.!!!`);
  assert.match(await problem(page), /^This link could not be opened \(link: the data is damaged/);
  assert.equal(await page.locator(tid('preset')).inputValue(), 'gc-pause-unfenced');
  await dragPauseEndTo(page, 20);
  await expectText(page, 'step-A-2', 'accepted, balance 90');

  const invalid = hashOf({ version: 1, clients: [{ name: 'A', events: [{ kind: 'debit', atMs: 5, amount: -3 }] }] });
  await boot(page, `${server.url}${invalid}`);
  assert.match(await problem(page), /clients\[0\]\.events\[0\]\.amount/);

  const before = await picture(page);
  await page.evaluate(() => { location.hash = '#not-a-link'; });
  await until('hashchange problem', () => problem(page), (v) => v.includes('link: not a playground link') && v.includes('left as it was'));
  assert.deepEqual(await picture(page), before);

  // A good link pasted into the address bar loads.
  const two = { version: 1, name: 'From a link', clients: [{ name: 'A', events: [{ kind: 'acquire', atMs: 0 }, { kind: 'pause', atMs: 1, durationMs: 10, cause: 'gc' }, { kind: 'debit', atMs: 2, amount: 10 }] }] };
  await page.evaluate((h) => { location.hash = h; }, hashOf(two));
  await expectText(page, 'title', 'From a link');
  assert.equal(await page.locator(tid('problem')).count(), 0);
  assertClean(rec);
});

test('an XSS client name in a link renders as text and runs nothing', async ({ rec, server }) => {
  const { page } = rec;
  const dialogs = collectDialogs(page);
  const scenario = markupScenario();
  await boot(page, `${server.url}${hashOf(scenario)}`);
  assert.equal(await text(page, 'title'), scenario.name);
  assert.equal(await text(page, 'caption'), scenario.caption);
  assert.ok((await page.getByText(XSS, { exact: true }).count()) > 0, 'the name shows as text');
  const markup = await page.evaluate(() => ({
    img: document.querySelectorAll('#app img').length,
    script: document.querySelectorAll('#app script').length,
    b: [...document.querySelectorAll('#app b')].filter((b) => b.textContent.includes('not bold')).length,
  }));
  assert.deepEqual(markup, { img: 0, script: 0, b: 0 });
  // The SVG export carries the name as text too.
  const svg = await readFile((await downloadFrom(page, 'export-svg')).path, 'utf8');
  assert.ok(svg.includes('&lt;img src=x onerror=alert(1)&gt;'), 'escaped in the SVG');
  assert.ok(!svg.includes('<img'), 'no markup in the SVG');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.deepEqual(rec.requests.filter((u) => /\/x$/.test(new URL(u).pathname)), []);
  assert.deepEqual(dialogs, []);
  assertClean(rec);
});

test('SVG and PNG export: a standalone SVG with the lane labels in light colours, and a 2x PNG', async ({ rec, browser, server }) => {
  const { page } = rec;
  // Dark page: the exports still use the light palette.
  await page.emulateMedia({ colorScheme: 'dark' });
  await boot(page);
  const bg = await page.locator(tid('playground')).evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.equal(bg, 'rgb(21, 25, 30)', 'the page is dark');

  const svgFile = await downloadFrom(page, 'export-svg');
  assert.equal(svgFile.name, 'timeline.svg');
  const svg = await readFile(svgFile.path, 'utf8');
  const facts = await page.evaluate((src) => {
    const doc = new DOMParser().parseFromString(src, 'image/svg+xml');
    const root = doc.documentElement;
    return {
      error: doc.getElementsByTagName('parsererror').length,
      root: root.localName,
      ns: root.namespaceURI,
      width: root.getAttribute('width'),
      labels: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      background: root.firstElementChild.getAttribute('fill'),
      usesVars: src.includes('var(--'),
    };
  }, svg);
  assert.equal(facts.error, 0, 'the SVG parses');
  assert.equal(facts.root, 'svg');
  assert.equal(facts.ns, 'http://www.w3.org/2000/svg');
  for (const label of ['lock', 'A', 'B', 'storage']) assert.ok(facts.labels.includes(label), `lane label ${label}`);
  assert.equal(facts.background, 'rgb(255, 255, 255)', 'light background');
  assert.equal(facts.usesVars, false, 'no CSS variables left to resolve');
  assert.equal(await page.locator(tid('playground')).evaluate((el) => getComputedStyle(el).backgroundColor), bg, 'the page theme is put back');

  // Standalone: open the file itself and look at it.
  // (A context of its own: the recorded ones abort everything but the test server.)
  await copyFile(svgFile.path, `${SCREENSHOTS}export.svg`);
  const viewer = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const view = await viewer.newPage();
    await view.goto(`file://${SCREENSHOTS}export.svg`);
    const shown = await view.evaluate(() => ({ root: document.documentElement.localName, width: document.documentElement.getBoundingClientRect().width }));
    assert.deepEqual(shown, { root: 'svg', width: Number(facts.width) });
    await view.screenshot({ path: `${SCREENSHOTS}export-svg-standalone.png` });
  } finally {
    await viewer.close();
  }

  const pngFile = await downloadFrom(page, 'export-png');
  assert.equal(pngFile.name, 'timeline.png');
  const png = await readFile(pngFile.path);
  assert.ok(png.length > 1000, `PNG of ${png.length} bytes`);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(png.readUInt32BE(16), 2 * Number(facts.width), 'drawn at 2x');
  await copyFile(pngFile.path, `${SCREENSHOTS}export-png.png`);
  assertClean(rec);
});

test('data-theme on the mount element overrides prefers-color-scheme; auto follows it', async ({ rec }) => {
  const { page } = rec;
  await page.emulateMedia({ colorScheme: 'dark' });
  await boot(page);
  const bg = () => page.locator(tid('playground')).evaluate((el) => getComputedStyle(el).backgroundColor);
  const setTheme = (v) => page.evaluate((v) => document.getElementById('app').setAttribute('data-theme', v), v);
  assert.equal(await bg(), 'rgb(21, 25, 30)');
  await setTheme('light');
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  await setTheme('auto');
  assert.equal(await bg(), 'rgb(21, 25, 30)');
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  await setTheme('dark');
  assert.equal(await bg(), 'rgb(21, 25, 30)');
  await page.screenshot({ path: `${SCREENSHOTS}theme-dark-forced.png` });
  assertClean(rec);
});

test('mount(): option errors name the field, detached elements are refused, destroy() unmounts', async ({ rec }) => {
  const { page } = rec;
  await boot(page);
  const out = await page.evaluate(async () => {
    const glue = await import('/pkg/fencing_playground.js');
    await glue.default();
    const err = (f) => {
      try {
        f();
        return 'no error';
      } catch (e) {
        return e.message;
      }
    };
    const host = document.createElement('div');
    document.body.append(host);
    const themed = document.createElement('div');
    document.body.append(themed);
    const handle = glue.mount(host, { preset: 'bare-del', readonly: true });
    await new Promise((r) => setTimeout(r, 50));
    const before = host.querySelectorAll('[data-testid="timeline"]').length;
    const toolbar = host.querySelectorAll('[data-testid="toolbar"]').length;
    handle.destroy();
    handle.destroy();
    await new Promise((r) => setTimeout(r, 50));
    glue.mount(themed, { theme: 'dark' });
    return {
      detached: err(() => glue.mount(document.createElement('div'), {})),
      theme: err(() => glue.mount(host, { theme: 'purple' })),
      share: err(() => glue.mount(host, { share: 'yes' })),
      autosave: err(() => glue.mount(host, { autosave: 1 })),
      before,
      toolbar,
      after: host.childElementCount,
      themed: themed.dataset.theme,
    };
  });
  assert.deepEqual(out, {
    detached: 'mount: mount the element into a document first',
    theme: 'mount: options.theme: expected "light", "dark" or "auto"',
    share: 'mount: options.share: expected true or false',
    autosave: 'mount: options.autosave: expected true or false',
    before: 1,
    toolbar: 0,
    after: 0,
    themed: 'dark',
  });
  assertClean(rec);
});

test('embeds on the sample post leave the page hash and localStorage alone; keys keep focus in shadow DOM', async ({ rec, server }) => {
  test.setTimeout(90_000);
  const { page } = rec;
  await page.goto(`${server.url}www/blog-post.html`);
  const second = page.locator('fencing-playground').nth(1);
  await startEmbeds(page, 3);
  assert.equal(await second.locator(tid('copy-link')).count(), 0, 'embeds offer no page link');
  await second.locator(tid('pause-A-1')).scrollIntoViewIfNeeded();
  const start = await second.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow');
  const box = await second.locator(tid('pause-A-1-end')).boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x - 60, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await until('the drag moved the pause', () => second.locator(tid('pause-A-1-end')).getAttribute('aria-valuenow'), (v) => v !== start);

  // Keyboard: the focus stays on the moved event inside the shadow root.
  await second.locator(tid('event-A-2')).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const focused = await second.evaluate((host) => host.shadowRoot.activeElement?.dataset.testid);
  assert.equal(focused, 'event-A-2');

  const page_state = await page.evaluate(() => ({ hash: location.hash, stored: localStorage.length }));
  assert.deepEqual(page_state, { hash: '', stored: 0 });
  assertClean(rec);
});
