// @ts-check
// The iframe form of the playground (embed.html). It builds one <fencing-playground> from the
// query string, reports its height to the parent page whenever it changes, and accepts a few
// validated messages from the parent. Messages are data: nothing in them is ever run or parsed
// as markup, and anything malformed is ignored.
//
// To the parent:   { type: 'fencing-playground:height', height }          (CSS pixels)
// From the parent: { type: 'fencing-playground:load', preset: 'gc-pause-unfenced' }
//                  { type: 'fencing-playground:load', scenario: {...} or 'JSON text' }
//                  { type: 'fencing-playground:get-height' }             (asks for a report now)
//                  { type: 'fencing-playground:theme', theme: 'dark' }   (light, dark, auto or system;
//                                                     www/embed-host.js sends the host's theme)
// With theme=auto (the default) and no message the frame follows its own page, whose
// prefers-color-scheme is the <iframe> element's color-scheme in Chromium 129+ and Firefox 105+.
// With ?origin=https://blog.example only that origin is listened to and told the height;
// without it the height (which is not secret) goes to any parent and any parent may load.
import { THEMES } from './embed.js';

const PREFIX = 'fencing-playground:';
const MAX_SCENARIO_CHARS = 200_000;
const params = new URLSearchParams(location.search);
const parentOrigin = params.get('origin');

// The page has no stylesheet of its own (no inline styles under the CSP), so it is built here.
const sheet = new CSSStyleSheet();
sheet.replaceSync(`html, body { margin: 0; padding: 0; background: transparent; }
.fp-frame-title { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip-path: inset(50%); white-space: nowrap; border: 0; }`);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const el = document.createElement('fencing-playground');
for (const name of ['preset', 'scenario', 'theme']) {
  const value = params.get(name);
  if (value !== null) el.setAttribute(name, value);
}
for (const name of ['readonly', 'compact']) {
  const value = params.get(name);
  if (value !== null) el.setAttribute(name, value === '0' ? 'false' : value);
}
(document.querySelector('main') ?? document.body).append(el);

let lastHeight = -1;
function postHeight(force = false) {
  if (window.parent === window) return;
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastHeight && !force) return;
  lastHeight = height;
  window.parent.postMessage({ type: `${PREFIX}height`, height }, parentOrigin ?? '*');
}
new ResizeObserver(() => postHeight()).observe(document.documentElement);

/**
 * The parent's message as a list of attribute changes, or null if it is not one we accept.
 * @param {unknown} message
 * @returns {{ getHeight: true } | { theme: string } | { preset: string } | { scenario: string } | null}
 */
export function parseMessage(message) {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  // Any object: each field is checked before it is used.
  const data = /** @type {Record<string, unknown>} */ (message);
  if (data.type === `${PREFIX}get-height`) return { getHeight: true };
  if (data.type === `${PREFIX}theme`) {
    return typeof data.theme === 'string' && THEMES.includes(data.theme) ? { theme: data.theme } : null;
  }
  if (data.type !== `${PREFIX}load`) return null;
  const hasPreset = Object.hasOwn(data, 'preset');
  const hasScenario = Object.hasOwn(data, 'scenario');
  if (hasPreset === hasScenario) return null;
  if (hasPreset) {
    if (typeof data.preset !== 'string' || !/^[a-z0-9-]{1,100}$/.test(data.preset)) return null;
    return { preset: data.preset };
  }
  let text = data.scenario;
  if (typeof text === 'object' && text !== null && !Array.isArray(text)) {
    try {
      text = JSON.stringify(text);
    } catch {
      return null;
    }
  }
  if (typeof text !== 'string' || text.length > MAX_SCENARIO_CHARS) return null;
  return { scenario: text };
}

window.addEventListener('message', (event) => {
  if (event.source !== window.parent || window.parent === window) return;
  if (parentOrigin && event.origin !== parentOrigin) return;
  const msg = parseMessage(event.data);
  if (!msg) {
    if (typeof event.data?.type === 'string' && event.data.type.startsWith(PREFIX)) {
      console.warn('fencing-playground: ignored a malformed message', event.data.type);
    }
    return;
  }
  if ('getHeight' in msg) return postHeight(true);
  if ('theme' in msg) return el.setAttribute('theme', msg.theme);
  if ('preset' in msg) {
    el.removeAttribute('scenario');
    el.setAttribute('preset', msg.preset);
  } else {
    el.removeAttribute('preset');
    el.setAttribute('scenario', msg.scenario);
  }
});
