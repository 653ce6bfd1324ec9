// @ts-check
// <fencing-playground>: the playground as a custom element, for blog posts and docs pages.
//
//   <script type="module" src="./www/embed.js"></script>
//   <fencing-playground preset="gc-pause-unfenced"></fencing-playground>
//
// Attributes: preset, scenario (JSON text), height (CSS length; a bare number means px),
// readonly, compact, theme (light | dark | auto). Each element renders into its own shadow root,
// so the page's styles and the playground's do not touch. The wasm is fetched and compiled once
// per page however many elements there are. A malformed attribute is reported inside the element
// and the default scenario is shown instead, so a typo never leaves a hole in the post.
// No inline script or style is needed: the page can run under
// `script-src 'self' 'wasm-unsafe-eval'` (styles are constructed sheets, which CSP allows).

import { lazyFinder } from './on-demand.js';

/** @typedef {import('../pkg/fencing_playground.js')} Glue */
/** @typedef {import('../pkg/fencing_playground.js').MountOptions} MountOptions */

const GLUE_URL = new URL('../pkg/fencing_playground.js', import.meta.url).href;
export const DEFAULT_PRESET = 'gc-pause-fenced';
/**
 * The themes mount() takes, as its declaration says (MountOptions in src/api/mod.rs): the type
 * checker refuses this list if it misses one or names one more.
 * @type {{ [T in NonNullable<MountOptions['theme']>]: T }}
 */
const THEME_NAMES = { light: 'light', dark: 'dark', auto: 'auto' };
/** @type {string[]} */
const THEMES = Object.values(THEME_NAMES);
const OBSERVED = ['preset', 'scenario', 'height', 'readonly', 'compact', 'theme'];

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
const HOST_CSS = `
:host { all: initial; display: block; contain: content; }
:host([hidden]) { display: none; }
.fpe-frame { display: block; color-scheme: light dark; }
.fpe-frame[data-theme="light"] { color-scheme: light; }
.fpe-frame[data-theme="dark"] { color-scheme: dark; }
.fpe-frame.fpe-fixed { height: var(--fpe-height); overflow: auto; }
.fpe-note, .fpe-error {
  margin: 0 0 8px; padding: 8px 12px; border-radius: 6px;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
.fpe-note { color: #5b6573; }
.fpe-error { color: #8a1c12; background: #fdecea; border: 1px solid #e0a59f; white-space: pre-wrap; overflow-wrap: anywhere; }
@media (prefers-color-scheme: dark) {
  .fpe-note { color: #a3acb9; }
  .fpe-error { color: #ffd2cc; background: #3a1d1a; border-color: #8a3b31; }
}`;
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
  let theme = (el.getAttribute('theme') ?? 'auto').trim().toLowerCase();
  if (!THEMES.includes(theme)) {
    problems.push(`theme: expected ${THEMES.slice(0, -1).join(', ')} or ${THEMES.at(-1)}, got ${JSON.stringify(el.getAttribute('theme'))}`);
    theme = 'auto';
  }
  /** @type {string | null} */
  let height = null;
  const heightText = el.getAttribute('height');
  if (heightText !== null) {
    const h = parseHeight(heightText);
    if (h.error !== undefined) problems.push(h.error);
    else height = h.value;
  }
  return { options, theme, height, problems };
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

  constructor() {
    super();
    this.#shadow = this.attachShadow({ mode: 'open' });
    this.#shadow.adoptedStyleSheets = [hostStyles()];
  }

  connectedCallback() {
    this.#schedule();
  }

  attributeChangedCallback() {
    if (this.isConnected) this.#schedule();
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
    if (!this.#frame) this.#showNote('Loading the playground…');
    const glue = await loadPlayground();
    // From here on nothing awaits, so the attributes cannot change under this render.
    const { options, theme, height, problems } = readAttributes(this);
    const key = JSON.stringify(options);
    if (key === this.#mountedKey) {
      // Only the look changed: keep the reader's edits.
      this.#style(theme, height);
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
    this.#style(theme, height);
    this.#showProblems(problems);
  }

  /**
   * @param {string} theme
   * @param {string | null} height
   */
  #style(theme, height) {
    if (!this.#frame) return;
    this.#frame.dataset.theme = theme;
    this.#frame.classList.toggle('fpe-fixed', height !== null);
    if (height !== null) this.#frame.style.setProperty('--fpe-height', height);
    else this.#frame.style.removeProperty('--fpe-height');
  }

  /** @param {string} text */
  #showNote(text) {
    const note = document.createElement('p');
    note.className = 'fpe-note';
    note.textContent = text;
    this.#shadow.replaceChildren(note);
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
