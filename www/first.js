// @ts-check
// The first stage of the page (src/first/): a first visit, or a visit by a link or with a saved
// scenario that it can draw, downloads a small wasm that draws the scenario's verdict and
// timeline and lets the reader drag its events, while the full playground loads behind it. Every verdict comes from the core; this file only puts the
// markup the wasm writes on the page and hands it the pointer; mid-drag the wasm patches only
// what changed in the lanes (the full page's lane renderer and patcher, src/ui/lanes/). `startFirst` resolves once the
// stage can be dragged; `handOver()` waits until no drag is under way, stops listening, leaves
// the reader's edit in the address (the full page reads its scenario from there) and removes
// the stage, so the full page can be mounted in its place.

/**
 * Shows the first stage in `app`; resolves with `{ handOver }` once it can be dragged, or with
 * null when the wasm cannot draw the link or saved scenario after all (it is not a single lock
 * service, its run is too long for one go, or it cannot be read): the full page then opens it.
 * @param {HTMLElement} app
 * @param {{ link?: string, saved?: string }} from the share link (the hash) or the saved JSON;
 *   neither for the default scenario of a first visit
 */
export async function startFirst(app, from = {}) {
  const { default: init, FirstStage, adoptStyle } = await import('../pkg-first/first.js');
  await init();
  adoptStyle(app);

  const root = document.createElement('div');
  root.className = 'fp-root fp-first';
  root.dataset.testid = 'first-stage';
  // The stage's parts are the root's own children, as the full page's are (its style sheet
  // orders them on a phone): the heading's elements, the verdict, the hint, the timeline, a note.
  root.innerHTML =
    '<div class="fp-verdict-slot"><div role="status" aria-live="polite" data-testid="verdict"></div></div>' +
    '<div class="fp-timeline-box"><div class="fp-timeline-wrap"></div></div>' +
    '<p class="fp-first-note" role="status" data-testid="first-note">The rest of the playground (presets, settings, ' +
    'the narration, keyboard editing) is loading; you can already drag the events on the timeline.</p>';
  /** @param {string} selector the root's part, written just above */
  const part = (selector) => {
    const e = root.querySelector(selector);
    if (!(e instanceof HTMLElement)) throw new Error(`the first stage has no ${selector}`);
    return e;
  };
  const [slot, box, wrap] = ['.fp-verdict-slot', '.fp-timeline-box', '.fp-timeline-wrap'].map(part);
  const banner = part('.fp-verdict-slot > div');
  /**
   * Puts `html` in place of whatever lies between `after` (or the start) and `before`.
   * @param {Element | null} after
   * @param {Element} before
   * @param {string} html
   */
  const between = (after, before, html) => {
    while (before.previousSibling && before.previousSibling !== after) before.previousSibling.remove();
    before.insertAdjacentHTML('beforebegin', html);
  };

  // In the page before the first drawing, so the timeline is laid out for the box's width.
  document.getElementById('boot-loading')?.remove();
  app.replaceChildren(root);
  // The core's geometry keeps the width in its range (ui::lanes::geometry::Layout).
  const width = wrap.clientWidth;
  const stage =
    from.link !== undefined ? FirstStage.fromLink(from.link, width)
    : from.saved !== undefined ? FirstStage.fromSaved(from.saved, width)
    : new FirstStage(width);
  if (!stage) {
    root.remove();
    return null;
  }
  let shownVerdict = '';
  /** @type {Element | null} the lanes' group, which a drag's frames patch in place */
  let lanes = null;
  /**
   * @param {boolean} all the heading and the hint too, not only the timeline and verdict
   * @param {boolean} [lanesOnly] mid-drag: the axis keeps its length, only the lanes change
   */
  const draw = (all, lanesOnly = false) => {
    if (lanesOnly && lanes?.isConnected) {
      stage.paint(lanes);
    } else {
      wrap.innerHTML = stage.timeline();
      lanes = wrap.querySelector('.fp-lanes');
      if (lanes) stage.adopt(lanes);
    }
    const v = stage.verdict();
    if (v !== shownVerdict) {
      banner.className = stage.verdictClass();
      banner.innerHTML = v;
      shownVerdict = v;
    }
    if (all) {
      between(null, slot, stage.head());
      between(slot, box, stage.hint());
    }
  };

  // The pointer's place goes to the core as it is; the core's geometry turns it into time.
  const rect = () => (wrap.firstElementChild ?? wrap).getBoundingClientRect();
  let frame = 0;
  /** @type {{ x: number, left: number, width: number } | null} */
  let pending = null;
  /** @param {PointerEvent} e */
  const onDown = (e) => {
    if (e.button !== 0 || !wrap.firstElementChild) return;
    const r = rect();
    if (!stage.grab(e.clientX, e.clientY, r.left, r.top, r.width, r.height)) return;
    e.preventDefault();
    wrap.setPointerCapture?.(e.pointerId);
  };
  // One run of the scenario per frame, for the pointer's last place.
  const apply = () => {
    frame = 0;
    const p = pending;
    pending = null;
    if (p && stage.dragging() && stage.follow(p.x, p.left, p.width)) draw(false, true);
  };
  /** @param {PointerEvent} e */
  const onMove = (e) => {
    if (!stage.dragging()) return;
    const r = rect();
    pending = { x: e.clientX, left: r.left, width: r.width };
    frame ||= requestAnimationFrame(apply);
  };
  /** @type {() => void} */
  let settled = () => {};
  const onUp = () => {
    if (!stage.dragging()) return;
    if (frame) cancelAnimationFrame(frame);
    apply();
    stage.release();
    draw(true);
    const link = stage.link();
    if (link) history.replaceState(history.state, '', `#${link}`);
    settled();
  };
  // A finger on an event drags it instead of panning the page.
  /** @param {TouchEvent} e */
  const onTouch = (e) => {
    if (e.target instanceof Element && e.target.closest('[data-ev]') && e.cancelable) e.preventDefault();
  };
  const resize = new ResizeObserver(() => {
    if (wrap.clientWidth > 0 && !stage.dragging() && stage.resize(wrap.clientWidth)) draw(false);
  });
  // One signal removes every listener at the hand-over.
  const listening = new AbortController();
  const options = { passive: false, signal: listening.signal };

  draw(true);
  wrap.addEventListener('pointerdown', onDown, options);
  wrap.addEventListener('pointermove', onMove, options);
  wrap.addEventListener('pointerup', onUp, options);
  wrap.addEventListener('pointercancel', onUp, options);
  wrap.addEventListener('touchstart', onTouch, options);
  resize.observe(wrap);

  return {
    /** Resolves once no drag is under way, with the stage gone from the page. */
    async handOver() {
      if (stage.dragging()) await new Promise((resolve) => (settled = () => resolve(undefined)));
      resize.disconnect();
      listening.abort();
      root.remove();
      stage.free();
    },
  };
}
