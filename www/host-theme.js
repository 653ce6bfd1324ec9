// @ts-check
// The host page's theme, as a `<fencing-playground theme="auto">` reads it, and one watcher that
// tells every such element when it may have changed.
//
// Docs and blog generators mark their theme in different ways, so the theme is read in this
// order, the first answer wins:
//   1. the element's computed `color-scheme` (most generators set it on the root, and it is
//      inherited); `normal` and `light dark` say nothing about which one is showing;
//   2. the generators' own markers on <html> and <body> (mdBook's classes, `data-theme`,
//      VitePress's `.dark`, MkDocs Material's `data-md-color-scheme`, Quarto's classes);
//   3. the luminance of the first opaque background behind the element;
//   4. the reader's system setting (inside an iframe, Chromium 129+ and Firefox 105+ give the
//      frame the `color-scheme` of its <iframe> element here).
// The watcher is one MutationObserver for the whole page (attributes of <html> and <body>, the
// stylesheets coming and going, a stylesheet's href or media changing) plus the media query; the
// changes of a frame are handled once, in the next animation frame, before it is painted.

/** @typedef {'light' | 'dark'} Scheme */

const DARK_QUERY = '(prefers-color-scheme: dark)';

/**
 * What a computed `color-scheme` value says, or null if it names both or neither.
 * @param {string} value
 * @returns {Scheme | null}
 */
export function schemeFromColorScheme(value) {
  const words = value.trim().toLowerCase().split(/\s+/);
  const light = words.includes('light');
  const dark = words.includes('dark');
  if (light === dark) return null;
  return dark ? 'dark' : 'light';
}

/** mdBook's theme classes on <html>. */
const MDBOOK = /** @type {const} */ ({ light: 'light', rust: 'light', coal: 'dark', navy: 'dark', ayu: 'dark' });

/**
 * What a `data-theme` value says: Docusaurus, Starlight and PaperMod write light or dark, Furo
 * also auto (which says nothing).
 * @param {string | null | undefined} value
 * @returns {Scheme | null}
 */
function schemeFromDataTheme(value) {
  const v = value?.trim().toLowerCase();
  return v === 'dark' || v === 'light' ? v : null;
}

/**
 * The theme the generators' markers on <html> and <body> name, or null.
 * @param {Document} doc
 * @returns {Scheme | null}
 */
export function schemeFromMarkers(doc) {
  const html = doc.documentElement;
  const body = doc.body;
  for (const [name, scheme] of Object.entries(MDBOOK)) {
    if (html.classList.contains(name)) return /** @type {Scheme} */ (scheme);
  }
  const dataTheme = schemeFromDataTheme(html.getAttribute('data-theme')) ?? schemeFromDataTheme(body?.getAttribute('data-theme'));
  if (dataTheme) return dataTheme;
  if (html.classList.contains('dark')) return 'dark'; // VitePress
  const md = (body?.getAttribute('data-md-color-scheme') ?? html.getAttribute('data-md-color-scheme'))?.trim().toLowerCase();
  if (md === 'slate') return 'dark'; // MkDocs Material
  if (md === 'default') return 'light';
  if (body?.classList.contains('quarto-dark')) return 'dark';
  if (body?.classList.contains('quarto-light')) return 'light';
  return null;
}

/**
 * The red, green, blue (0-255) and alpha of a computed colour in rgb()/rgba() form, or null for
 * any other form.
 * @param {string} text
 * @returns {[number, number, number, number] | null}
 */
export function parseRgb(text) {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/i.exec(text.trim());
  if (!m) return null;
  let alpha = m[4] === undefined ? 1 : parseFloat(m[4]);
  if (m[4]?.endsWith('%')) alpha /= 100;
  return [Number(m[1]), Number(m[2]), Number(m[3]), alpha];
}

/**
 * WCAG's relative luminance of an sRGB colour (0 black, 1 white).
 * @param {number} r
 * @param {number} g
 * @param {number} b
 */
export function luminance(r, g, b) {
  const lin = (/** @type {number} */ c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * Dark if the first opaque background from `el` up is darker than the middle grey (luminance
 * 0.18, where white text and black text have the same contrast), null if none is opaque.
 * @param {Element} el
 * @returns {Scheme | null}
 */
export function schemeFromBackground(el) {
  for (let node = /** @type {Element | null} */ (el); node; node = node.parentElement) {
    const rgb = parseRgb(getComputedStyle(node).backgroundColor);
    if (rgb && rgb[3] >= 0.99) return luminance(rgb[0], rgb[1], rgb[2]) < 0.18 ? 'dark' : 'light';
  }
  return null;
}

/** @returns {Scheme} */
export function systemScheme() {
  return matchMedia(DARK_QUERY).matches ? 'dark' : 'light';
}

/**
 * The host's theme around `el`, and which of the four steps gave it.
 * @param {Element} el
 * @returns {{ scheme: Scheme, from: 'color-scheme' | 'marker' | 'background' | 'system' }}
 */
export function hostScheme(el) {
  const cs = schemeFromColorScheme(getComputedStyle(el).colorScheme || 'normal');
  if (cs) return { scheme: cs, from: 'color-scheme' };
  const marked = schemeFromMarkers(el.ownerDocument);
  if (marked) return { scheme: marked, from: 'marker' };
  const behind = schemeFromBackground(el.parentElement ?? el);
  if (behind) return { scheme: behind, from: 'background' };
  return { scheme: systemScheme(), from: 'system' };
}

/** @type {Set<() => void>} */
const listeners = new Set();
/** @type {MutationObserver | undefined} */
let observer;
let queued = false;

function queue() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    for (const listener of listeners) listener();
  });
}

/** Watches a stylesheet <link> or <style> for the changes that switch a theme. */
const STYLE_ATTRIBUTES = ['href', 'media', 'disabled', 'rel', 'class', 'title'];

/** @param {MutationObserver} mo */
function observeStyles(mo) {
  for (const node of document.querySelectorAll('link[rel~="stylesheet"], style')) {
    mo.observe(node, { attributes: true, attributeFilter: STYLE_ATTRIBUTES });
  }
}

function start() {
  observer = new MutationObserver((records) => {
    // A stylesheet added later is watched from then on.
    if (records.some((r) => r.type === 'childList') && observer) observeStyles(observer);
    queue();
  });
  const html = document.documentElement;
  observer.observe(html, { attributes: true });
  if (document.body) observer.observe(document.body, { attributes: true });
  if (document.head) observer.observe(document.head, { childList: true });
  observeStyles(observer);
  // A stylesheet that has just been added or had its href changed applies when it has loaded;
  // load events do not bubble, but they pass the document on the way down.
  document.addEventListener('load', (e) => {
    if (e.target instanceof HTMLLinkElement || e.target instanceof HTMLStyleElement) queue();
  }, true);
  matchMedia(DARK_QUERY).addEventListener('change', queue);
}

/**
 * Calls `listener` in the animation frame after any change that may switch the host's theme,
 * once per frame however many changes there were. Returns the function that stops it.
 * @param {() => void} listener
 */
export function watchHostTheme(listener) {
  if (!observer) start();
  listeners.add(listener);
  return () => listeners.delete(listener);
}
