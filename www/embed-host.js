// @ts-check
// The optional host script for the iframe form (embed.html): put it once on a page whose
// playgrounds are iframes marked `data-fencing-playground`,
//
//   <script type="module" src="fencing-playground/www/embed-host.js"></script>
//   <iframe data-fencing-playground src="fencing-playground/www/embed.html?preset=gc-pause-fenced"
//           title="Fencing tokens playground" width="100%" height="640" loading="lazy"></iframe>
//
// and each frame follows the page's theme (read as <fencing-playground theme="auto"> reads it,
// ./host-theme.js, and sent as { type: 'fencing-playground:theme', theme }) and its own height
// ({ type: 'fencing-playground:height', height } from the frame). Messages go only to the
// frame's origin, and only messages from a marked frame's window and origin are read.
import { hostScheme, watchHostTheme } from './host-theme.js';

const PREFIX = 'fencing-playground:';

/** @returns {HTMLIFrameElement[]} */
function frames() {
  return [...document.querySelectorAll('iframe[data-fencing-playground]')].filter((f) => f instanceof HTMLIFrameElement);
}

/** @param {HTMLIFrameElement} frame */
function originOf(frame) {
  try {
    return new URL(frame.src, location.href).origin;
  } catch {
    return null;
  }
}

/** @type {WeakMap<HTMLIFrameElement, string>} */
const sent = new WeakMap();

/**
 * Tells the frame the host's theme around it (again only if it changed, or `force`).
 * @param {HTMLIFrameElement} frame
 * @param {boolean} [force]
 */
function sendTheme(frame, force = false) {
  const origin = originOf(frame);
  if (!origin || !frame.contentWindow) return;
  const theme = hostScheme(frame).scheme;
  frame.dataset.resolvedTheme = theme;
  if (!force && sent.get(frame) === theme) return;
  sent.set(frame, theme);
  // A frame still on about:blank is of another origin than `origin`: the browser drops the
  // message, and the frame's load event sends it again.
  frame.contentWindow.postMessage({ type: `${PREFIX}theme`, theme }, origin === 'null' ? '*' : origin);
}

/** @type {WeakSet<HTMLIFrameElement>} */
const known = new WeakSet();
function update() {
  for (const frame of frames()) {
    if (!known.has(frame)) {
      known.add(frame);
      frame.addEventListener('load', () => sendTheme(frame, true));
    }
    sendTheme(frame);
  }
}

addEventListener('message', (event) => {
  const data = event.data;
  if (typeof data !== 'object' || data === null || data.type !== `${PREFIX}height`) return;
  const frame = frames().find((f) => f.contentWindow === event.source);
  if (!frame || event.origin !== originOf(frame)) return;
  if (typeof data.height === 'number' && Number.isFinite(data.height) && data.height > 0 && data.height < 100_000) {
    frame.style.height = `${Math.ceil(data.height)}px`;
  }
});

watchHostTheme(update);
update();
