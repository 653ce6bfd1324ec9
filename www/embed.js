// @ts-check
// <fencing-playground>: the playground as a custom element, for blog posts and docs pages.
//
//   <script type="module" src="./www/embed.js"></script>
//   <fencing-playground preset="gc-pause-unfenced"></fencing-playground>
//
// Attributes: preset, scenario (JSON text), height (CSS length; a bare number means px),
// readonly, compact, theme (auto | light | dark | system), loading (lazy | eager). Each element
// renders into its own shadow root, so the page's styles and the playground's do not touch.
// The wasm is fetched and compiled once per page however many elements there are, and not before
// an element comes near the viewport (one IntersectionObserver for the page): a long post with
// many playgrounds downloads nothing for those the reader never scrolls to. Until then the
// element keeps the height the playground will have (./embed-heights.js; ./embed.css, which the
// host page links, gives it the same height before this script has run), so nothing jumps.
// The element's own children (the snippet's "The playground loads here…" text) show until this
// script upgrades it: a script that cannot be loaded leaves that text, never a silent hole.
// theme="auto" (the default) follows the host page's theme (./host-theme.js) and says which it
// chose in the element's data-resolved-theme attribute. A malformed attribute is reported
// inside the element and the default scenario is shown instead, so a typo never leaves a hole
// in the post.
// No inline script or style is needed: the page can run under
// `script-src 'self' 'wasm-unsafe-eval'` (styles are constructed sheets, which CSP allows).

import { lazyFinder } from './on-demand.js';
import { hostScheme, systemScheme, watchHostTheme } from './host-theme.js';
import { HEIGHTS, NARROW_MEDIA } from './embed-heights.js';

/** @typedef {import('../pkg/fencing_playground.js')} Glue */
/** @typedef {import('../pkg/fencing_playground.js').MountOptions} MountOptions */

const GLUE_URL = new URL('../pkg/fencing_playground.js', import.meta.url).href;
export const DEFAULT_PRESET = 'gc-pause-fenced';
/**
 * The theme attribute's values: `auto` follows the host page, `system` the reader's system
 * setting, `light` and `dark` are what they say.
 */
export const THEMES = ['auto', 'light', 'dark', 'system'];
const OBSERVED = ['preset', 'scenario', 'height', 'readonly', 'compact', 'theme', 'loading'];
/** How near the viewport (above or below) an element starts: about a screen ahead of a reader. */
const NEAR = '800px 0px';

/**
 * "Find a failure" (./on-demand.js), shared by every element of the page and loaded only when a
 * reader opens a panel or presses Search. On a page of another origin no worker can start from
 * here, and the finder searches on the main thread in short slices instead.
 */
const finder = lazyFinder();

/** @type {Promise<Glue> | undefined} */
let wasmReady;
/** The initialised wasm module; every element on the page shares the one fetch and compile. */
export function loadPlayground() {
  wasmReady ??= import(GLUE_URL).then(async (/** @type {Glue} */ glue) => {
    await glue.default();
    return glue;
  });
  return wasmReady;
}

// Host-level styles only: the playground brings its own sheet and adopts it into the shadow root.
// color-scheme is inherited from the page (not reset by `all`), so the element's computed value
// is the host's, which theme="auto" reads first.
const HOST_CSS = `
:host { all: initial; color-scheme: inherit; display: block; contain: content; }
:host([hidden]) { display: none; }
.fpe-wait { display: flex; align-items: center; justify-content: center; box-sizing: border-box;
  min-height: var(--fpe-reserve, 120px); margin: 0; border-radius: 6px; background: #f6f7f9; color: #5b6573;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
:host([data-resolved-theme="dark"]) .fpe-wait { background: #1b2027; color: #a3acb9; }
.fpe-frame { display: block; color-scheme: light dark; }
.fpe-frame[data-theme="light"] { color-scheme: light; }
.fpe-frame[data-theme="dark"] { color-scheme: dark; }
.fpe-frame.fpe-fixed { height: var(--fpe-height); overflow: auto; }
.fpe-error {
  margin: 0 0 8px; padding: 8px 12px; border-radius: 6px;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
.fpe-error { color: #8a1c12; background: #fdecea; border: 1px solid #e0a59f; white-space: pre-wrap; overflow-wrap: anywhere; }
:host([data-resolved-theme="dark"]) .fpe-error { color: #ffd2cc; background: #3a1d1a; border-color: #8a3b31; }`;
/** @type {CSSStyleSheet | undefined} */
let hostSheet;
function hostStyles() {
  if (!hostSheet) {
    hostSheet = new CSSStyleSheet();
    hostSheet.replaceSync(HOST_CSS);
  }
  return hostSheet;
}

/**
 * `true` for a present boolean attribute, except the explicit text "false".
 * @param {Element} el
 * @param {string} name
 */
function flag(el, name) {
  const v = el.getAttribute(name);
  return v !== null && v.trim().toLowerCase() !== 'false';
}

/**
 * A CSS length for the `height` attribute, or an error message.
 * @param {string} raw
 * @returns {{ value: string, error?: undefined } | { error: string, value?: undefined }}
 */
export function parseHeight(raw) {
  const text = raw.trim();
  const value = /^\d+(\.\d+)?$/.test(text) ? `${text}px` : text;
  if (value && CSS.supports('height', value) && !/^(auto|inherit|initial|unset|revert)/i.test(value)) {
    return { value };
  }
  return { error: `height: expected a CSS length such as 600px or 70vh, got ${JSON.stringify(raw)}` };
}

/**
 * The options for mount() from the attributes, and every problem found on the way. Problems
 * that mount() itself finds (an unknown preset, a scenario that fails validation) come later.
 * @param {Element} el
 */
export function readAttributes(el) {
  /** @type {string[]} */
  const problems = [];
  /** @type {MountOptions} */
  const options = { readonly: flag(el, 'readonly'), compact: flag(el, 'compact') };
  const scenario = el.getAttribute('scenario');
  const preset = el.getAttribute('preset');
  if (scenario !== null) {
    try {
      options.scenario = JSON.parse(scenario);
    } catch (e) {
      const instead = preset === null ? 'the default scenario' : `preset ${JSON.stringify(preset)}`;
      problems.push(`scenario: not valid JSON (${e instanceof Error ? e.message : e}). Showing ${instead} instead.`);
    }
  }
  if (options.scenario === undefined && preset !== null) options.preset = preset.trim();
  const theme = readTheme(el);
  if (theme === null) {
    problems.push(`theme: expected ${THEMES.slice(0, -1).join(', ')} or ${THEMES.at(-1)}, got ${JSON.stringify(el.getAttribute('theme'))}; following the page's theme`);
  }
  /** @type {string | null} */
  let height = null;
  const heightText = el.getAttribute('height');
  if (heightText !== null) {
    const h = parseHeight(heightText);
    if (h.error !== undefined) problems.push(h.error);
    else height = h.value;
  }
  return { options, theme: theme ?? 'auto', height, problems };
}

/**
 * The theme attribute, `auto` if absent, null if it is none of THEMES.
 * @param {Element} el
 */
function readTheme(el) {
  const theme = (el.getAttribute('theme') ?? 'auto').trim().toLowerCase();
  return THEMES.includes(theme) ? theme : null;
}

/**
 * The height (a CSS length) the element keeps before it starts: its `height` attribute, or the
 * playground's height from the table of heights, narrow or wide as embed.css picks it (null
 * if the table has no row for it, as for a `scenario`: then only a small box is kept).
 * @param {Element} el
 */
export function reservedHeight(el) {
  const heightText = el.getAttribute('height');
  if (heightText !== null) return parseHeight(heightText).value ?? null;
  if (el.hasAttribute('scenario')) return null;
  const preset = (el.getAttribute('preset') ?? DEFAULT_PRESET).trim();
  const view = flag(el, 'compact') ? 'compact' : 'full';
  const table = matchMedia(NARROW_MEDIA).matches ? HEIGHTS.narrow : HEIGHTS.wide;
  const row = /** @type {Record<string, { compact: number, full: number }>} */ (table.presets)[preset];
  return row ? `${row[view]}px` : null;
}

/** @type {WeakMap<Element, () => void>} */
const waiting = new WeakMap();
/** @type {IntersectionObserver | undefined} */
let nearObserver;
/**
 * Calls `start` once `el` comes within NEAR of the viewport. One observer serves the page.
 * @param {Element} el
 * @param {() => void} start
 */
function whenNear(el, start) {
  if (typeof IntersectionObserver !== 'function') return start();
  nearObserver ??= new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const go = waiting.get(entry.target);
      nearObserver?.unobserve(entry.target);
      waiting.delete(entry.target);
      go?.();
    }
  }, { rootMargin: NEAR });
  waiting.set(el, start);
  nearObserver.observe(el);
}

export class FencingPlayground extends HTMLElement {
  static observedAttributes = OBSERVED;

  #shadow;
  /** @type {HTMLDivElement | null} */
  #frame = null;
  /** @type {import('../pkg/fencing_playground.js').Playground | null} */
  #app = null; // what mount() returned; destroy() unmounts it before a remount
  /** @type {string | null} */
  #mountedKey = null;
  #pending = false;
  #near = false; // came near the viewport (or loading="eager"): may fetch and mount
  /** @type {(() => void) | null} */
  #unwatch = null;

  constructor() {
    super();
    this.#shadow = this.attachShadow({ mode: 'open' });
    this.#shadow.adoptedStyleSheets = [hostStyles()];
  }

  connectedCallback() {
    this.#unwatch ??= watchHostTheme(() => this.#applyTheme());
    this.#applyTheme();
    if (this.#near || this.getAttribute('loading')?.trim().toLowerCase() === 'eager') {
      this.#near = true;
      this.#schedule();
      return;
    }
    if (!this.#frame) this.#showWaiting();
    whenNear(this, () => {
      this.#near = true;
      if (this.isConnected) this.#schedule();
    });
  }

  disconnectedCallback() {
    this.#unwatch?.();
    this.#unwatch = null;
    nearObserver?.unobserve(this);
  }

  attributeChangedCallback(/** @type {string} */ name) {
    if (!this.isConnected) return;
    if (name === 'theme') this.#applyTheme();
    if (this.#near) this.#schedule();
    else if (!this.#frame) this.#showWaiting();
  }

  /**
   * Works out the theme to show and, if it changed, shows it: on the element as
   * data-resolved-theme (light or dark; for the page's CSS and for tests) and on the playground.
   */
  #applyTheme() {
    const theme = readTheme(this) ?? 'auto';
    const resolved = theme === 'light' || theme === 'dark' ? theme : theme === 'system' ? systemScheme() : hostScheme(this).scheme;
    if (this.getAttribute('data-resolved-theme') !== resolved) this.setAttribute('data-resolved-theme', resolved);
    // With theme="system" the playground's CSS follows the media query itself.
    const shown = theme === 'system' ? 'auto' : resolved;
    if (this.#frame && this.#frame.dataset.theme !== shown) this.#frame.dataset.theme = shown;
  }

  // Attributes set one after another in the same task cause one render.
  #schedule() {
    if (this.#pending) return;
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      this.#render().catch((err) => this.#showProblems([`the playground failed to start: ${err instanceof Error ? err.message : err}`]));
    });
  }

  async #render() {
    if (!this.#frame) this.#showWaiting('Loading the playground…');
    const glue = await loadPlayground();
    // From here on nothing awaits, so the attributes cannot change under this render.
    const { options, height, problems } = readAttributes(this);
    const key = JSON.stringify(options);
    if (key === this.#mountedKey) {
      // Only the look changed: keep the reader's edits.
      this.#style(height);
      this.#showProblems(problems);
      return;
    }
    this.#mountedKey = key;
    // A fresh container per mount, attached before mounting (the playground adopts its style
    // sheet into the container's root node), so a failed mount leaves nothing half-built behind.
    /** @param {MountOptions} opts */
    const attempt = (opts) => {
      const frame = document.createElement('div');
      frame.className = 'fpe-frame';
      frame.part = 'playground';
      this.#app?.destroy();
      this.#app = null;
      this.#shadow.replaceChildren(frame);
      this.#app = glue.mount(frame, { ...opts, finder });
      return frame;
    };
    let frame;
    try {
      frame = attempt(options);
    } catch (err) {
      // mount() prefixes its messages for API callers; a writer needs only the attribute's part.
      const message = err instanceof Error ? err.message : String(err);
      problems.push(`${message.replace(/^mount: (options\.)?/, '')}. Showing the default scenario instead.`);
      frame = attempt({ ...options, scenario: undefined, preset: DEFAULT_PRESET });
    }
    this.#frame = frame;
    this.#style(height);
    this.#showProblems(problems);
  }

  /** @param {string | null} height */
  #style(height) {
    if (!this.#frame) return;
    this.#applyTheme();
    this.#frame.classList.toggle('fpe-fixed', height !== null);
    if (height !== null) this.#frame.style.setProperty('--fpe-height', height);
    else this.#frame.style.removeProperty('--fpe-height');
  }

  // Before the playground is mounted: a box as tall as it will be.
  #showWaiting(text = 'The playground starts when you scroll to it.') {
    const box = document.createElement('p');
    box.className = 'fpe-wait';
    box.dataset.testid = 'embed-waiting';
    box.textContent = text;
    const reserve = reservedHeight(this);
    if (reserve !== null) box.style.setProperty('--fpe-reserve', reserve);
    this.#shadow.replaceChildren(box);
  }

  // Problems are text, never markup: attribute values are echoed back in them.
  /** @param {string[]} problems */
  #showProblems(problems) {
    this.#shadow.querySelector('.fpe-error')?.remove();
    if (!problems.length) return;
    const box = document.createElement('p');
    box.className = 'fpe-error';
    box.setAttribute('role', 'alert');
    box.dataset.testid = 'embed-error';
    box.textContent = `<fencing-playground>: ${problems.join('\n')}`;
    this.#shadow.prepend(box);
  }
}

if (!customElements.get('fencing-playground')) {
  customElements.define('fencing-playground', FencingPlayground);
}
