//! All of the playground's CSS, in one place, scoped under `.fp-root` so it neither leaks into
//! nor leans on the host page. The page runs under a CSP without `'unsafe-inline'` styles, so
//! the sheet is a constructed `CSSStyleSheet` adopted by the element's root (the document now,
//! a shadow root later), never a `<style>` element or a `style` attribute. Sizes are in `px`
//! (or `em` of the root's own 14 px), never `rem`: in an embed, `rem` is the host page's root
//! font size, which the playground must not follow.

/// The dark palette, written once and used twice: for `data-theme="dark"` on the mount element,
/// and for `prefers-color-scheme: dark` unless the mount element says `data-theme="light"`.
macro_rules! dark_vars {
    () => {
        "--bg: #15191e; --fg: #e6e9ee; --muted: #a3acb9; --faint: #262c34; --lane: #1b2027;
    --line: #3a424d; --good: #3fc79a; --bad: #ff8a5b; --pause: #9aa3af; --accent: #6cb6ff;
    --chip: #242a33; --focus: #6cb6ff;
    --c0: #56b4e9; --c1: #e58fc6; --c2: #f0b448; --c3: #8fd0f5; --c4: #3fc79a; --c5: #b39ddb;"
    };
}

/// The sheet as it is written, with its comments and layout; `CSS`, what ships, is this
/// minified when the crate compiles.
const SOURCE: &str = concat!(
    r#"
.fp-root {
  --bg: #ffffff; --fg: #1d232b; --muted: #5b6573; --faint: #e7eaee; --lane: #f6f7f9;
  --line: #c9ced6; --good: #007a5a; --bad: #c2410c; --pause: #6b7280; --accent: #0b63b6;
  --chip: #eef2f7; --focus: #0b63b6;
  --c0: #0072b2; --c1: #b4498c; --c2: #b57600; --c3: #2a8fc7; --c4: #007a5a; --c5: #6a4c93;
  color: var(--fg); background: var(--bg); color-scheme: light dark;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  max-width: 1400px; margin: 0 auto; padding: 14px 16px 24px; box-sizing: border-box;
}
[data-theme=light] > .fp-root { color-scheme: light; }
[data-theme=dark] > .fp-root { color-scheme: dark; "#,
    dark_vars!(),
    r#" }
@media (prefers-color-scheme: dark) {
  :not([data-theme=light]) > .fp-root { "#,
    dark_vars!(),
    r#" }
}
.fp-root *, .fp-root *::before, .fp-root *::after { box-sizing: inherit; }
.fp-root h2 { font-size: 20px; margin: 0; line-height: 1.3; }
.fp-root p { margin: 0; }
.fp-head { display: flex; flex-wrap: wrap; gap: 6px 16px; align-items: baseline; justify-content: space-between; }
.fp-caption { color: var(--muted); margin-top: 4px; max-width: 1152px; }
.fp-row { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; margin-top: 8px; }
.fp-root select, .fp-root input, .fp-root button {
  font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line);
  border-radius: 6px; padding: 3px 8px;
}
.fp-root button { background: var(--chip); cursor: pointer; }
.fp-root button:hover { border-color: var(--accent); }
.fp-root button:disabled { opacity: .5; cursor: default; }
.fp-root input[type=number] { width: 5.5em; }
.fp-root select { max-width: 100%; }
.fp-preset { min-width: 0; max-width: 100%; }
/* The longest fence rule would push the settings onto a second line at 1280 px. */
.fp-root select.fp-rule { max-width: 18em; }
.fp-preset select { max-width: calc(100vw - 110px); }
.fp-root label { display: inline-flex; gap: 6px; align-items: center; }
.fp-root :focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.fp-group { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.fp-group-name { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.fp-verdict { display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: baseline; margin-top: 8px;
  padding: 6px 12px; border-radius: 8px; border: 2px solid var(--good); }
.fp-verdict.unsafe { border-color: var(--bad); }
.fp-verdict-word { font-weight: 700; font-size: 17.6px; }
.fp-verdict.safe .fp-verdict-word { color: var(--good); }
.fp-verdict.unsafe .fp-verdict-word { color: var(--bad); }
.fp-verdict ul { margin: 0; padding-left: 1.1em; }
.fp-ghost-sum { color: var(--muted); }
.fp-ghost-sum b { color: var(--fg); }
.fp-hint { margin-top: 6px; color: var(--muted); }
.fp-hint b { color: var(--fg); }
.fp-root .fp-hint-act { font: inherit; font-weight: 600; padding: 2px 10px; min-height: 28px; border-radius: 6px;
  border: 1px solid var(--accent); background: var(--accent); color: var(--bg); cursor: pointer; }
.fp-liveness { flex-basis: 100%; display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; }
.fp-liveness-word { font-weight: 600; color: var(--fg); }
.fp-verdict-side { display: flex; flex-direction: column; gap: 2px; }
.fp-legend { margin: 0; color: var(--muted); font-size: 12px; }
.fp-legend summary { cursor: pointer; }
.fp-legend b { color: var(--fg); font-weight: 600; }
.fp-notice { color: var(--bad); }
.fp-problem { margin-top: 6px; padding: 6px 10px; border: 1px solid var(--bad); border-radius: 6px; color: var(--bad); overflow-wrap: anywhere; }
.fp-problem button { margin-left: 8px; padding: 0 6px; }
.fp-toolbar { display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; margin-left: auto; }
.fp-toolbar .fp-file { display: none; }
.fp-copied { color: var(--good); font-weight: 600; }
.fp-share-url input { width: min(576px, 70vw); }
/* The box scrolls sideways when the timeline is zoomed in. A finger on an empty part of the lanes
   pans it (or the page); a finger on something draggable drags it (touch-action below, and the
   timeline's own touchstart listener where a browser ignores touch-action inside an SVG). */
.fp-timeline-box { position: relative; margin-top: 8px; }
.fp-timeline-wrap { width: 100%; overflow-x: auto; overflow-y: hidden; border: 1px solid var(--faint); border-radius: 8px; }
.fp-timeline { display: block; touch-action: pan-x pan-y; user-select: none; -webkit-user-select: none; }
.fp-timeline .fp-ev, .fp-timeline .fp-handle, .fp-timeline .fp-iev, .fp-timeline .fp-axis-hit { touch-action: none; }
/* The zoom buttons sit in the corner above the lane names, where the axis has no ticks. */
.fp-zoom { position: absolute; top: 5px; left: 4px; display: flex; gap: 2px; z-index: 1; }
.fp-zoom button { min-width: 24px; min-height: 24px; padding: 0 4px; line-height: 1; font-weight: 600; }
.fp-timeline text { font-size: 12px; fill: var(--fg); }
.fp-timeline .muted { fill: var(--muted); }
.fp-timeline .small { font-size: 11px; }
.fp-timeline .lane-name { font-size: 13px; font-weight: 600; }
.fp-lane-bg { fill: var(--lane); }
.fp-lane-bg.alt { fill: var(--bg); }
.fp-lane-sep { stroke: var(--faint); }
.fp-grid line { stroke: var(--faint); }
.fp-axis text { fill: var(--muted); font-size: 11px; }
.fp-axis-hit { fill: transparent; cursor: ew-resize; }
.fp-c0 { --cc: var(--c0); } .fp-c1 { --cc: var(--c1); } .fp-c2 { --cc: var(--c2); }
.fp-c3 { --cc: var(--c3); } .fp-c4 { --cc: var(--c4); } .fp-c5 { --cc: var(--c5); }
.fp-swatch { fill: var(--cc); }
.fp-lease rect { fill: var(--cc); fill-opacity: .22; stroke: var(--cc); stroke-width: 1.5; }
.fp-lease text { font-weight: 600; }
.fp-lease .renewal { stroke: var(--cc); stroke-width: 2; }
.fp-belief rect.held { fill: var(--cc); fill-opacity: .35; }
.fp-belief rect.stale { stroke: var(--bad); stroke-width: 1.5; }
.fp-belief text.stale { fill: var(--bad); font-weight: 600; }
.fp-hatch-pause { stroke: var(--pause); stroke-width: 2; stroke-opacity: .55; }
.fp-hatch-stale { stroke: var(--bad); stroke-width: 2; stroke-opacity: .45; }
.fp-pause .bar { stroke: var(--pause); stroke-width: 1; }
.fp-pause text { font-weight: 600; }
.fp-ev { cursor: grab; outline: none; }
.fp-readonly .fp-ev, .fp-readonly .fp-handle { cursor: default; }
.fp-ev .shape { fill: var(--cc); stroke: var(--bg); stroke-width: 1.5; }
.fp-ev .hit { fill: transparent; }
.fp-ev:focus-visible .ring, .fp-ev.selected .ring, .fp-handle:focus-visible .ring, .fp-handle.selected .ring {
  stroke: var(--focus); stroke-width: 2; fill: none; stroke-dasharray: 3 2; }
.fp-ev .ring, .fp-handle .ring { fill: none; stroke: none; }
.fp-handle { cursor: ew-resize; outline: none; }
.fp-handle .grip { fill: var(--bg); stroke: var(--fg); stroke-width: 1.5; }
.fp-handle .hit { fill: transparent; }
.fp-wait { stroke: var(--muted); stroke-dasharray: 2 3; }
.fp-session line { stroke: var(--cc); stroke-width: 2; stroke-opacity: .7; }
.fp-pg-wait line { stroke: var(--cc); stroke-width: 1.5; stroke-dasharray: 3 3; }
.fp-failover line { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 4 2; }
.fp-lease.lost rect { stroke: var(--bad); stroke-dasharray: 3 2; }
.fp-lease-row.free rect { fill: none; stroke: var(--muted); stroke-dasharray: 2 2; }
.fp-lease-expiry { stroke: var(--fg); stroke-width: 1.5; }
.fp-lease-watch line { stroke: var(--cc); stroke-width: 1.5; stroke-dasharray: 3 3; }
.fp-zk-session .ping { stroke-width: 1.2; stroke-opacity: 1; }
.fp-zk-session .expired line { stroke: var(--bad); stroke-width: 2; stroke-opacity: 1; }
.fp-zk-partition rect { fill: var(--bad); fill-opacity: .16; }
.fp-zk-state line { stroke: var(--bad); stroke-width: 2.5; }
.fp-zk-state.suspended line { stroke-dasharray: 5 3; }
.fp-zk-parent line { stroke: var(--muted); stroke-width: 1.5; stroke-dasharray: 2 2; }
.fp-timeline text.halo { paint-order: stroke; stroke: var(--bg); stroke-width: 3px; }
.fp-flight { stroke: var(--cc); stroke-width: 2; stroke-dasharray: 6 3; }
.fp-badge.good text { fill: var(--good); }
.fp-badge.bad text { fill: var(--bad); font-weight: 600; }
.fp-badge.neutral text { fill: var(--muted); }
.fp-msg { stroke: var(--cc); stroke-opacity: .6; stroke-width: 1.5; fill: none; }
.fp-arrowhead { fill: var(--muted); }
.fp-write .good { fill: var(--good); }
.fp-write .bad { fill: var(--bad); }
.fp-write .neutral { fill: var(--muted); }
.fp-write text.good { fill: var(--good); } .fp-write text.bad { fill: var(--bad); font-weight: 600; }
.fp-balance { stroke: var(--fg); stroke-width: 1.5; fill: none; }
.fp-ghost .fp-balance { stroke: var(--muted); stroke-dasharray: 4 3; }
.fp-ghost-bg { fill: var(--bg); }
.fp-playhead line { stroke: var(--accent); stroke-width: 1.5; }
.fp-playhead path { fill: var(--accent); }
.fp-remove { cursor: pointer; }
.fp-remove circle { fill: var(--chip); stroke: var(--line); }
.fp-remove text { fill: var(--muted); font-size: 12px; }
.fp-remove:hover circle, .fp-remove:focus-visible circle { stroke: var(--bad); }
.fp-key rect { fill: var(--cc); fill-opacity: .22; stroke: var(--cc); stroke-width: 1.2; }
.fp-key text { font-weight: 600; }
.fp-key.forgotten rect { stroke: var(--bad); stroke-dasharray: 3 2; }
.fp-timeline text.bad { fill: var(--bad); font-weight: 600; }
.fp-iev { cursor: grab; outline: none; }
.fp-readonly .fp-iev { cursor: default; }
.fp-iev .hit { fill: transparent; }
.fp-iev text.halo { paint-order: stroke; stroke: var(--bg); stroke-width: 3px; }
.fp-iev .ring { fill: none; stroke: none; }
.fp-iev:focus-visible .ring, .fp-iev.selected .ring { stroke: var(--focus); stroke-width: 2; stroke-dasharray: 3 2; }
.fp-jump .shape { fill: none; stroke: var(--accent); stroke-width: 2.5; stroke-linejoin: round; }
.fp-slew { stroke: var(--accent); stroke-width: 2; stroke-dasharray: 1 3; }
.fp-crash .bar { stroke: var(--pause); stroke-width: 1; }
.fp-cut .bar { fill: var(--bad); fill-opacity: .08; stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 5 3; }
.fp-attempt .bracket { fill: none; stroke: var(--muted); stroke-width: 1.5; }
.fp-attempt.good text { fill: var(--good); }
.fp-attempt.bad text { fill: var(--bad); font-weight: 600; }
.fp-imark path { fill: var(--muted); }
.fp-inspector-row { min-height: 32px; }
.fp-inspector-row .fp-hint { margin-top: 0; }
.fp-edit-line { display: flex; flex-wrap: wrap; gap: 2px 12px; align-items: center; min-height: 28px; }
.fp-edit-line input, .fp-edit-line select, .fp-edit-line button { padding: 0 6px; line-height: 1.3; }
.fp-edit-line .fp-key-input { width: 8em; }
/* What lags a drag (the inspector's fields, a preset's caption, see ui/live.rs): its note lies
   over it, so nothing moves under the pointer; the caption is covered, the fields dimmed. */
.fp-caption, .fp-edit-line { position: relative; }
.fp-lag-note { position: absolute; top: 0; right: 0; padding: 0 6px; background: var(--bg); color: var(--fg); font-style: italic; }
.fp-lag-note:empty { display: none; }
.fp-caption .fp-lag-note { left: 0; bottom: 0; padding: 0; overflow: hidden; }
.fp-edit-line[data-stale] > :not(.fp-lag-note) { opacity: .45; }
.fp-msg.lost { stroke-dasharray: 2 3; stroke-opacity: .45; }
.fp-readout { margin-top: 6px; display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; align-items: center; }
.fp-readout input[type=range] { width: 100%; }
.fp-readout-text { grid-column: 1 / -1; }
.fp-narration { margin-top: 14px; }
.fp-narration h3 { font-size: 16px; margin: 0 0 4px; }
.fp-narration ol { margin: 0; padding-left: 1.4em; }
.fp-narration li { margin: 1px 0; }
.fp-story { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.3fr); gap: 16px; }
.fp-commands { margin-top: 14px; min-width: 0; }
.fp-commands h3 { font-size: 16px; margin: 0 0 4px; display: flex; gap: 8px; align-items: center; }
.fp-commands h3 button { font-size: 12px; }
.fp-stale > :not(h3), [data-stale].fp-narration > :not(h3), [data-stale].fp-commands > :not(h3) { opacity: .45; }
.fp-stale-note { font-weight: 400; color: var(--muted); }
.fp-cmd-scroll { height: 320px; overflow: auto; border: 1px solid var(--line); border-radius: 4px; }
.fp-cmd-table { border-collapse: collapse; width: 100%; font-size: 12px; }
.fp-cmd-table td { padding: 1px 6px; vertical-align: top; white-space: nowrap; }
.fp-cmd-table td.fp-cmd-text { white-space: pre-wrap; overflow-wrap: anywhere; }
.fp-cmd-table code, .fp-cmd-lua { font: 11.5px ui-monospace, monospace; }
.fp-cmd-table tr { cursor: pointer; }
.fp-cmd-table tr:hover { background: rgba(127, 127, 127, .12); }
.fp-cmd-table tr.fp-cmd-lit { background: rgba(250, 200, 60, .28); }
.fp-cmd-table tr.fp-cmd-lit td, .fp-cmd-table tr.fp-cmd-lit code { color: var(--fg); }
.fp-cmd-note code { color: var(--muted); }
.fp-cmd-at, .fp-cmd-who { color: var(--muted); }
.fp-cmd-manual { width: 100%; height: 8em; font: 11px ui-monospace, monospace; }
.fp-cmd-lua { margin: 4px 0; white-space: pre-wrap; }
.fp-repro { margin: 2px 0 6px; font-size: 12px; }
.fp-repro summary { cursor: pointer; color: var(--good); font-weight: 600; }
.fp-repro-table { border-collapse: collapse; font-size: 11px; }
.fp-repro-table td, .fp-repro-table th { border-top: 1px solid var(--line); padding: 1px 6px; text-align: left; vertical-align: top; }
@media (max-width: 900px) { .fp-story { grid-template-columns: 1fr; } }
.fp-keys { color: var(--muted); font-size: 12px; margin-top: 6px; }
.fp-keys kbd { font: 11px ui-monospace, monospace; border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
.fp-compact .fp-caption, .fp-compact .fp-narration, .fp-compact .fp-commands, .fp-compact .fp-keys { display: none; }
"#,
    // The double-click tool is marked by a bar under it and named in words (.fp-dbl), unlike
    // the focus ring, which goes all round. An edited preset's caption folds its original away.
    // (These notes stay out of the string: it ships in the wasm.)
    r#"
.fp-tool[aria-pressed=true] { box-shadow: inset 0 -3px 0 var(--accent); }
.fp-dbl { color: var(--muted); font-size: 12px; }
.fp-dbl b { color: var(--fg); }
.fp-edited details { margin-top: 2px; }
.fp-edited summary { cursor: pointer; width: max-content; }
"#,
    // A lane's event takes the pointer only on its hit areas (`lanes::hits`), which never
    // overlap: not on its shape, label or ring, which may reach over a neighbour's.
    r#".fp-ev > :not(.hit), .fp-iev > :not(.hit), .fp-handle > :not(.hit) { pointer-events: none; }
"#,
    // The timeline's lines (arrows, playhead, waits) are drawn under the lanes' labels, and
    // every label sits on a halo of the background, so no line runs through text (see
    // tests/e2e/drawing). The storage lane still draws a background of its own, which the
    // backdrop has drawn already.
    r#".fp-timeline text { paint-order: stroke; stroke: var(--bg); stroke-width: 3px; stroke-linejoin: round; }
.fp-storage-lane > .fp-lane-bg { fill: none; }
.fp-storage-lane > .fp-lane-sep { stroke: none; }
"#,
    // Mid-drag the verdict is live but its slot keeps its height (`dom::hold_height`): a longer
    // verdict floats over the controls below instead of pushing the timeline down.
    r#".fp-verdict-slot { display: flow-root; position: relative; }
.fp-verdict-slot[data-held] > .fp-verdict { position: absolute; top: 0; left: 0; right: 0; z-index: 2;
  background: var(--bg); }
/* ---- Narrow screens and touch (phones) ----------------------------------------------------
   Below 600 px the timeline comes first: the verdict, the hint, the timeline and the playhead,
   then the controls, folded under one button (the app puts `fp-folded` on the root until it is
   pressed), then the caption and the narration. Unlisted children keep the hint's place. */
.fp-find { margin-top: 8px; border: 1px solid var(--line); border-radius: 8px; padding: 4px 10px; }
.fp-find > summary { cursor: pointer; font-weight: 600; padding: 2px 0; }
.fp-find-body > * { margin-top: 6px; }
.fp-find-intro, .fp-find-detail { color: var(--muted); }
.fp-root .fp-find input[type=number] { width: 8em; }
.fp-find-kinds { display: flex; flex-wrap: wrap; gap: 4px 14px; border: 0; padding: 0; margin-left: 0; margin-right: 0; }
.fp-find-kinds legend { padding: 0; margin-bottom: 2px; color: var(--muted); }
.fp-root .fp-find-go { font-weight: 600; border-color: var(--accent); }
.fp-find-status p { overflow-wrap: anywhere; }
.fp-timeline .fp-found-frame { fill: none; stroke: var(--accent); stroke-width: 2px; stroke-dasharray: 5 3; }
.fp-timeline .fp-found-label { font-size: 10px; fill: var(--accent); font-weight: 600;
  paint-order: stroke; stroke: var(--bg); stroke-width: 3px; }
.fp-found-marks { pointer-events: none; }
.fp-controls-toggle { display: none; }
@media (max-width: 600px) {
  .fp-root { padding: 10px 8px 20px; font-size: 13px; display: flex; flex-direction: column; }
  .fp-root h2 { font-size: 16.8px; }
  .fp-root > * { order: 3; }
  .fp-root > .fp-head { order: 0; }
  .fp-root > .fp-problem { order: 1; }
  .fp-root > .fp-verdict-slot { order: 2; }
  .fp-root > .fp-timeline-box { order: 4; }
  .fp-root > .fp-inspector-row { order: 5; }
  .fp-root > .fp-readout { order: 6; }
  .fp-root > .fp-controls-toggle { order: 7; display: block; align-self: flex-start; margin-top: 10px; }
  .fp-root > .fp-controls { order: 8; }
  .fp-root > .fp-find { order: 8; }
  .fp-root > .fp-caption { order: 9; margin-top: 10px; }
  .fp-root > .fp-story, .fp-root > .fp-keys { order: 10; }
  .fp-folded .fp-controls, .fp-folded .fp-toolbar { display: none; }
  .fp-controls-toggle::after { content: " ▸"; }
  .fp-controls-toggle[aria-expanded=true]::after { content: " ▾"; }
  .fp-preset select { max-width: calc(100vw - 120px); }
  .fp-cmd-table tr { display: grid; grid-template-columns: auto 1fr; column-gap: 6px; }
  .fp-cmd-table td:empty { display: none; }
  .fp-cmd-table td.fp-cmd-text, .fp-cmd-table td.fp-cmd-reply { grid-column: 1 / -1; padding-left: 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
}
/* Fingers: every control at least 44 px tall where a row has the room, and every draggable
   part of the timeline at least 24 × 24 px (WCAG 2.5.8). An SVG stroke takes pointer events
   even when transparent, so a wide one grows a hit area on every side without moving it. */
@media (pointer: coarse) {
  .fp-root button, .fp-root select, .fp-root input[type=number], .fp-root input[type=text] { min-height: 44px; }
  .fp-root .fp-zoom button { min-height: 24px; min-width: 26px; }
  .fp-root input[type=checkbox], .fp-root input[type=radio] { width: 24px; height: 24px; margin: 0; }
  .fp-root input[type=range] { height: 32px; }
  .fp-timeline .hit { stroke: transparent; stroke-width: 10px; }
}
/* Keyboard help is for keyboards: a touch screen without a pointer that hovers has none. */
@media (hover: none) and (pointer: coarse) {
  .fp-keys { display: none; }
}
"#
);

/// The sheet the page adopts: `SOURCE` without its comments and layout (about 2.6 KB of the
/// wasm), computed by the compiler, so the source keeps its notes and the wasm does not.
pub const CSS: &str = {
    const LEN: usize = minify(SOURCE.as_bytes(), &mut []);
    const BYTES: [u8; LEN] = {
        let mut out = [0; LEN];
        minify(SOURCE.as_bytes(), &mut out);
        out
    };
    match std::str::from_utf8(&BYTES) {
        Ok(css) => css,
        Err(_) => panic!("the minified CSS is not UTF-8"),
    }
};

/// Writes `css` into `out` without comments, with each run of whitespace (and comment) cut to
/// one space, and with none after `{ } ; , :` or before `{ } ; ,`; text in quotes is kept as
/// it is. Returns the length of the result, of which it writes what fits in `out` (call it
/// with an empty `out` to size the buffer). A space before `:` stays: `a :hover` is not
/// `a:hover`.
const fn minify(css: &[u8], out: &mut [u8]) -> usize {
    const fn put(out: &mut [u8], n: usize, c: u8) -> usize {
        if n < out.len() {
            out[n] = c;
        }
        n + 1
    }
    let (mut i, mut n) = (0, 0);
    let (mut space, mut quote, mut last) = (false, 0u8, 0u8);
    while i < css.len() {
        let c = css[i];
        i += 1;
        if quote != 0 {
            n = put(out, n, c);
            if c == b'\\' && i < css.len() {
                n = put(out, n, css[i]);
                i += 1;
            } else if c == quote {
                quote = 0;
            }
            continue;
        }
        if c == b'/' && i < css.len() && css[i] == b'*' {
            i += 1;
            while i < css.len() && !(css[i - 1] == b'*' && css[i] == b'/') {
                i += 1;
            }
            i += 1;
            space = true;
            continue;
        }
        if matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
            space = true;
            continue;
        }
        let tight_after = matches!(last, 0 | b'{' | b'}' | b';' | b',' | b':');
        if space && !tight_after && !matches!(c, b'{' | b'}' | b';' | b',') {
            n = put(out, n, b' ');
        }
        space = false;
        if c == b'"' || c == b'\'' {
            quote = c;
        }
        n = put(out, n, c);
        last = c;
    }
    n
}

#[cfg(target_arch = "wasm32")]
mod adopt {
    use js_sys::{Array, Reflect};
    use wasm_bindgen::{JsCast, JsValue};

    thread_local! {
        static SHEET: Option<web_sys::CssStyleSheet> = {
            let sheet = web_sys::CssStyleSheet::new().ok();
            if let Some(s) = &sheet {
                let _ = s.replace_sync(super::CSS);
            }
            sheet
        };
    }

    /// Adds the sheet to the document or shadow root that holds `element`, once per root.
    pub fn adopt(element: &web_sys::Element) -> Result<(), String> {
        let root: JsValue = element.get_root_node().into();
        let key = JsValue::from_str("adoptedStyleSheets");
        SHEET.with(|sheet| {
            let Some(sheet) = sheet else {
                return Err("this browser cannot construct style sheets".to_string());
            };
            let current = Reflect::get(&root, &key)
                .ok()
                .and_then(|v| v.dyn_into::<Array>().ok())
                .ok_or("this browser cannot adopt style sheets")?;
            if current.includes(sheet, 0) {
                return Ok(());
            }
            let next = Array::from(&current);
            next.push(sheet);
            Reflect::set(&root, &key, &next)
                .map(|_| ())
                .map_err(|_| "could not adopt the style sheet".to_string())
        })
    }
}

#[cfg(target_arch = "wasm32")]
pub use adopt::adopt;

#[cfg(test)]
mod tests {
    use super::*;

    fn min(css: &str) -> String {
        let mut out = vec![0; minify(css.as_bytes(), &mut [])];
        minify(css.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn minify_drops_comments_and_layout_only() {
        assert_eq!(
            min("/* a note */\n.a > :not(.b), .c :hover {\n  color: red; /* why */ margin: 0 auto;\n}\n"),
            ".a > :not(.b),.c :hover{color:red;margin:0 auto;}"
        );
        assert_eq!(
            min(".t::after { content: \" ▸ /* kept */\"; }\n@media (pointer: coarse) { .x { width: calc(100vw - 120px); } }"),
            ".t::after{content:\" ▸ /* kept */\";}@media (pointer:coarse){.x{width:calc(100vw - 120px);}}"
        );
    }

    #[test]
    fn no_size_follows_the_host_pages_root_font() {
        let rem = SOURCE
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
            .filter(|word| {
                word.strip_suffix("rem")
                    .is_some_and(|n| !n.is_empty() && n.parse::<f64>().is_ok())
            })
            .collect::<Vec<_>>();
        assert!(rem.is_empty(), "sizes in rem: {rem:?}");
    }

    #[test]
    fn the_shipped_sheet_is_the_source_minified() {
        assert_eq!(CSS, min(SOURCE));
        assert!(
            CSS.len() < SOURCE.len() * 9 / 10,
            "{} of {}",
            CSS.len(),
            SOURCE.len()
        );
        for gone in ["/*", "\n", "  ", "{ ", " }"] {
            assert!(!CSS.contains(gone), "{gone:?} left in the sheet");
        }
        let rules = |s: &str| (s.matches('{').count(), s.matches('}').count());
        assert_eq!(rules(CSS), rules(SOURCE));
        assert!(CSS.contains("content:\" ▸\""));
    }
}
