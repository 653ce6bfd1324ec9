// @ts-check
// Boots the wasm app. No inline script anywhere, so the page runs under a strict CSP
// (script-src 'self' 'wasm-unsafe-eval'). Paths are relative so dist/ works from any sub-path:
// dist/index.html loads dist/www/main.js, which loads dist/pkg/.
//
// The glue is imported dynamically (not `import init, { mount } from ...`) so that a missing
// file or a missing export lands in the catch below and is shown on the page; a failing
// static import would kill this module before any of it runs, leaving a silent blank page.
const app = document.getElementById('app') ?? document.body;

/** @param {unknown} err */
function showError(err) {
  console.error('fencing playground failed to start:', err);
  const box = document.createElement('pre');
  box.className = 'boot-error';
  box.setAttribute('role', 'alert');
  box.dataset.testid = 'boot-error';
  box.textContent = `The playground failed to start.\n\n${err instanceof Error && err.stack ? err.stack : String(err)}`;
  app.replaceChildren(box);
}

// A first visit gets the first stage: a small wasm that draws the scenario and can be dragged
// while the full playground downloads (www/first.js). So does a visit by a share link or with a
// saved scenario, when the first stage can draw it: one Redis, not Redlock or etcd. That is read
// here from the link's JSON (src/link.rs: #s=1.<base64url of the scenario JSON>) before any wasm
// is fetched, so a Redlock or etcd link does not wait for a first stage it cannot use; the first stage's
// wasm decides for good (a run too long for one go, or an old version it migrates, goes to the
// full page too). Any other visit, or a first stage that fails, goes straight to the full page,
// which reads the link or the save and says what is wrong with it, if anything.
// The key is persist::STORAGE_KEY (src/ui/model/persist.rs): this file needs it before any wasm
// is fetched, so it cannot ask the wasm; tests/node/shared.test.mjs checks that the two agree.
const STORAGE_KEY = 'fencing-playground:v1';
const saved = () => {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
};
// The lock settings of one Redis, the only service the first stage draws: a lock naming any
// other key (a service's: redlock, etcd, advisory, zookeeper, lease, or one added later) goes to
// the full page at once, so its link never downloads a first stage that would refuse it. Keep in
// step with `lock`'s keys in src/sim/scenario/read.rs (tests/e2e/first-stage.test.mjs opens a
// link of every service).
const SINGLE_LOCK_KEYS = ['ttlMs', 'firstFence', 'fencing', 'watchdog', 'clock'];
/** @param {string} json @returns {boolean} whether it is an object whose lock is one Redis */
const singleLock = (json) => {
  try {
    const s = JSON.parse(json);
    if (typeof s !== 'object' || s === null) return false;
    const lock = s.lock && typeof s.lock === 'object' ? s.lock : {};
    const storage = s.storage && typeof s.storage === 'object' ? s.storage : {};
    // A key set to null is absent, as the reader takes it. The lease's fence check sits in the
    // storage's settings.
    return Object.entries(lock).every(([k, v]) => v === null || SINGLE_LOCK_KEYS.includes(k)) && (storage.leaseGuard ?? null) === null;
  } catch {
    return false;
  }
};
/** @param {string} hash without `#` @returns {string | null} the link's JSON, if it is a link */
const linkJson = (hash) => {
  const m = /^s=1\.([A-Za-z0-9_-]+)$/.exec(hash.trim());
  if (!m) return null;
  try {
    const bytes = Uint8Array.from(atob(m[1].replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
};
/** What the first stage draws, or null for the full page at once. @type {{ link?: string, saved?: string } | null} */
const staged = (() => {
  const hash = location.hash.slice(1);
  if (hash) {
    const json = linkJson(hash);
    return json !== null && singleLock(json) ? { link: hash } : null;
  }
  const text = saved();
  if (text === null) return {};
  return singleLock(text) ? { saved: text } : null;
})();

// index.html preloads the first stage's files, which a first visit needs before anything else.
// Any other visit needs the full page's glue and wasm: they are asked for here at once, together
// (one round trip, not two: the glue would otherwise ask for the wasm only once it has run).
// The first stage's preloads are then wasted (about 80 KB; index.html has no script of its own
// under the page's CSP to choose). The single-file build has its wasm inlined (#fp-wasm).
if (!staged && !document.getElementById('fp-wasm')) {
  for (const [href, rel] of [['../pkg/fencing_playground.js', 'modulepreload'], ['../pkg/fencing_playground_bg.wasm', 'preload']]) {
    const link = document.createElement('link');
    link.href = new URL(href, import.meta.url).href;
    link.rel = rel;
    if (rel === 'preload') Object.assign(link, { as: 'fetch', type: 'application/wasm', crossOrigin: 'anonymous' });
    document.head.append(link);
  }
}

/** @type {{ handOver(): Promise<void> } | null} */
let first = null;
if (staged) {
  try {
    const { startFirst } = await import('./first.js');
    first = await startFirst(app, staged);
  } catch (err) {
    console.warn('fencing playground: the first stage did not start; loading the full page', err);
  }
}

// "Find a failure" (www/on-demand.js): nothing of the search is fetched until the reader opens
// the panel or presses Search. The small module that holds its place is asked for beside the
// glue; should it fail, the page works without the panel, and the console says why.
const finder = import('./on-demand.js').then(
  ({ lazyFinder }) => lazyFinder(),
  (err) => {
    console.warn('fencing playground: "Find a failure" is not available', err);
    return undefined;
  },
);

try {
  const { default: init, mount } = await import('../pkg/fencing_playground.js');
  if (typeof mount !== 'function') throw new Error('the wasm module does not export mount()');
  await init();
  // The first stage leaves the reader's edit in the address, where the full page reads it.
  await first?.handOver();
  document.getElementById('boot-loading')?.remove();
  mount(app, { share: true, autosave: true, finder: await finder });
} catch (err) {
  // The error shown is the one that stopped the page; a second one from the hand-over is logged.
  await first?.handOver().catch((e) => console.warn('fencing playground: the first stage did not hand over:', e));
  showError(err);
}
