// The first stage of the page (src/first/): a first visit downloads a small wasm that draws the
// default scenario's verdict and timeline and lets the reader drag its events, while the full
// playground loads behind it. Every verdict comes from the core; this file only puts the
// markup the wasm writes on the page and hands it the pointer. `startFirst` resolves once the
// stage can be dragged; `handOver()` waits until no drag is under way, stops listening, leaves
// the reader's edit in the address (the full page reads its scenario from there) and removes
// the stage, so the full page can be mounted in its place.

/** Shows the first stage in `app`; resolves with `{ handOver }` once it can be dragged. */
export async function startFirst(app) {
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
  const [slot, box, wrap] = ['.fp-verdict-slot', '.fp-timeline-box', '.fp-timeline-wrap'].map((s) => root.querySelector(s));
  const banner = slot.firstElementChild;
  /** Puts `html` in place of whatever lies between `after` (or the start) and `before`. */
  const between = (after, before, html) => {
    while (before.previousSibling && before.previousSibling !== after) before.previousSibling.remove();
    before.insertAdjacentHTML('beforebegin', html);
  };

  // In the page before the first drawing, so the timeline is laid out for the box's width.
  document.getElementById('boot-loading')?.remove();
  app.replaceChildren(root);
  const stage = new FirstStage(Math.max(wrap.clientWidth, 240));
  let shownVerdict = '';
  const draw = (all) => {
    wrap.innerHTML = stage.timeline();
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
  const rect = () => wrap.firstElementChild.getBoundingClientRect();
  let frame = 0;
  let pending = null;
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
    if (p && stage.dragging() && stage.follow(p.x, p.left, p.width)) draw(false);
  };
  const onMove = (e) => {
    if (!stage.dragging()) return;
    const r = rect();
    pending = { x: e.clientX, left: r.left, width: r.width };
    frame ||= requestAnimationFrame(apply);
  };
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
  const onTouch = (e) => {
    if (e.target.closest?.('[data-ev]') && e.cancelable) e.preventDefault();
  };
  const resize = new ResizeObserver(() => {
    if (wrap.clientWidth > 0 && !stage.dragging() && stage.resize(wrap.clientWidth)) draw(false);
  });
  const listeners = [['pointerdown', onDown], ['pointermove', onMove], ['pointerup', onUp], ['pointercancel', onUp], ['touchstart', onTouch]];

  draw(true);
  for (const [type, f] of listeners) wrap.addEventListener(type, f, { passive: false });
  resize.observe(wrap);

  return {
    /** Resolves once no drag is under way, with the stage gone from the page. */
    async handOver() {
      if (stage.dragging()) await new Promise((resolve) => (settled = resolve));
      resize.disconnect();
      for (const [type, f] of listeners) wrap.removeEventListener(type, f);
      root.remove();
      stage.free();
    },
  };
}
