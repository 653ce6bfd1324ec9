//! The timeline SVG: axis, lanes, arrows and playhead, plus the pointer handling for all of
//! them. One handler on the SVG finds what was grabbed from the target's `data-ev` (a client's
//! event) or `data-iev` (an instance's) and `data-part` attributes, which the lane renderer
//! draws, and captures the pointer on the SVG, so a drag keeps going when the pointer leaves
//! the element (and touch works); every move re-runs the simulation, on the live drag path
//! (`ui/live.rs`) when it takes the move. Zoomed
//! in, the SVG is drawn wider than its box, which scrolls sideways (a finger pans it from any
//! empty part of the lanes); the zoom buttons sit in the corner above the lane names.

use super::dom;
use super::found::FoundMarks;
use super::frames::{claim_touches, forget_box_on_scroll, listen_moves, FrameLoop, MoveTo};
use super::geometry::{axis_end_ms, centre_ms, scroll_to_centre, Layout, Zoom, HEADER_PX};
use super::ground_view::Ground;
use super::lanes_view::Frame;
use super::lanes_view::Lanes;
use super::messages::Messages;
use super::playhead::Playhead;
use super::redlock_view::lock_view;
use crate::sim::{Scenario, Trace};
use crate::ui::controls::palette::TOOL_DRAG_TYPE;
use crate::ui::controls::palette_instance::INSTANCE_TOOL_DRAG_TYPE;
use crate::ui::live::Live;
use crate::ui::model::selection::Selection;
use crate::ui::model::state::{Action, DragTarget, InstanceAction};
use crate::ui::model::tools::{InstanceTool, Tool};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub scenario: Rc<Scenario>,
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    /// What the ghost run changes, in words.
    pub contrast: Rc<crate::sim::compare::Contrast>,
    /// The selected event, of a client or of an instance.
    pub selection: Selection,
    pub playhead_ms: u64,
    /// The axis end while a drag is in progress, so the scale does not move under the pointer.
    pub frozen_axis_ms: Option<u64>,
    pub dragging: bool,
    pub readonly: bool,
    /// What a double-click on a client lane adds.
    pub tool: Tool,
    pub width_px: u32,
    pub uid: AttrValue,
    pub on_action: Callback<Action>,
    /// Redlock: what a double-click on an instance lane adds, and whether the instances share
    /// one lane.
    #[prop_or(InstanceTool::ClockJump)]
    pub instance_tool: InstanceTool,
    #[prop_or_default]
    pub collapsed: bool,
    /// The faults a search injected into this scenario, marked "found by search".
    #[prop_or_default]
    pub found: Option<Rc<Vec<crate::ui::model::found::Mark>>>,
    /// The live drag path, which takes a drag's moves when it can (`ui/live.rs`), and its
    /// count of frames.
    pub live: Live,
    pub epoch: u32,
}

#[component]
pub fn Timeline(props: &TimelineProps) -> Html {
    let wrap = use_node_ref();
    let svg = use_node_ref();
    let end_ms = props
        .frozen_axis_ms
        .unwrap_or_else(|| axis_end_ms(props.trace.end_ms, props.scenario.horizon_ms()));
    let lock = lock_view(&props.scenario, props.collapsed);
    // View state, like the width: zooming is no edit, so it is not undone and not shared.
    let zoom = use_state(Zoom::default);
    let drawn_px = zoom.drawn_px(props.width_px);
    let layout = use_memo(
        (drawn_px, props.scenario.clients.len(), lock, end_ms),
        |&(w, n, lock, end)| Layout::with_lock(w, n, lock, true, end),
    );
    // The instant to keep in the middle of the box when the zoom changes, and the effect that
    // scrolls it there once the wider (or narrower) timeline is drawn.
    let anchor_ms = use_mut_ref(|| None::<u64>);
    {
        let (wrap, anchor_ms, layout) = (wrap.clone(), anchor_ms.clone(), layout.clone());
        use_effect_with(drawn_px, move |_| {
            let anchor = anchor_ms.borrow_mut().take();
            if let (Some(t), Some(el)) = (anchor, wrap.cast::<web_sys::Element>()) {
                let left = scroll_to_centre(&layout.axis, t, el.client_width(), layout.width_px);
                el.set_scroll_left(left);
            }
        });
    }
    let zoom_to = |next: Option<Zoom>| {
        let (wrap, anchor_ms, layout, zoom) = (
            wrap.clone(),
            anchor_ms.clone(),
            layout.clone(),
            zoom.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let (Some(next), Some(el)) = (next, wrap.cast::<web_sys::Element>()) else {
                return;
            };
            let middle = centre_ms(&layout.axis, el.scroll_left(), el.client_width());
            *anchor_ms.borrow_mut() = Some(middle);
            zoom.set(next);
        })
    };
    let (zoom_in, zoom_out) = (zoom.zoom_in(props.width_px), zoom.zoom_out());

    // Measure the width the timeline has, now and whenever it changes.
    {
        let wrap = wrap.clone();
        let on_action = props.on_action.clone();
        use_effect_with((), move |_| {
            let observer = watch_width(&wrap, on_action);
            move || {
                if let Some((o, _)) = observer {
                    o.disconnect();
                }
            }
        });
    }

    // A finger on a draggable part drags it; anywhere else it pans (the SVG's touch-action).
    // Chromium ignores touch-action on SVG children and Yew's touch listeners are passive, so a
    // touch that starts on a part is claimed by a listener of our own that cancels the panning.
    {
        let svg = svg.clone();
        use_effect_with(props.readonly, move |&readonly| {
            let claim = claim_touches(&svg, readonly);
            move || {
                if let Some((el, f)) = claim {
                    let _ = el.remove_event_listener_with_callback(
                        "touchstart",
                        f.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }

    let onpointerdown = {
        let (svg, layout, on_action) = (svg.clone(), layout.clone(), props.on_action.clone());
        let (readonly, live) = (props.readonly, props.live.clone());
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            let Some((t, y)) = dom::pointer(&svg, &layout, None, e.client_x(), e.client_y()) else {
                return;
            };
            let target = match dom::grab(&e) {
                Some((el, target)) if !readonly => {
                    if let Ok(el) = el.dyn_into::<web_sys::SvgElement>() {
                        let _ = el.focus();
                    }
                    target
                }
                Some(_) => return,
                None if y < HEADER_PX => DragTarget::Playhead,
                None => {
                    on_action.emit(Action::Select(Selection::None));
                    return;
                }
            };
            e.prevent_default();
            if let Some(el) = svg.cast::<web_sys::Element>() {
                let _ = el.set_pointer_capture(e.pointer_id());
            }
            // The press may change what is above the lanes (the selected event's inspector).
            live.anchor().note(&svg);
            on_action.emit(Action::DragStart {
                target,
                pointer_ms: t,
                axis_end_ms: layout.axis.end_ms,
            });
        })
    };
    // Pointer moves come faster than frames: keep only the latest and apply it once per frame,
    // so a burst of moves costs one simulation and one render. The frame callback is made once
    // for the timeline's life (a move only asks for a frame with it) and applies the move with
    // the latest render's layout.
    let pending = use_mut_ref(|| None::<(i32, i32)>);
    // The SVG's box, read on a drag's first move and kept to its end (the lanes keep their
    // heights while a drag lasts); a scroll or a resize anywhere empties it.
    let svg_box: Rc<dom::BoxCache> = use_memo((), |_| dom::BoxCache::default());
    if !props.dragging {
        svg_box.replace(None);
    }
    // A move goes to the live path, which writes its frame without a Yew render, or else to Yew.
    let move_to: MoveTo = {
        let (svg, layout, on_action) = (svg.clone(), layout.clone(), props.on_action.clone());
        let (live, svg_box) = (props.live.clone(), svg_box.clone());
        Rc::new(move |(x, y): (i32, i32)| {
            // Where the pointer is over the lanes as they lay at the press (`dom::Anchor`).
            let y = y.saturating_add(live.anchor().shift().round() as i32);
            if let Some((pointer_ms, y)) = dom::pointer(&svg, &layout, Some(&svg_box), x, y) {
                let action = Action::DragMove {
                    pointer_ms,
                    client: layout.client_at(y),
                    instance: layout.instance_core_at(y),
                };
                if !live.follow(&action) {
                    on_action.emit(action);
                }
            }
        })
    };
    let frames = {
        let pending = pending.clone();
        use_memo((), move |_| FrameLoop::new(pending))
    };
    frames.latest.replace(Some(move_to.clone()));
    frames.dragging.set(props.dragging);
    // The moves are heard by a listener of our own on the SVG: a move mid-drag costs no pass
    // through Yew's event delegation, only a note of the position and a frame asked for.
    {
        let (svg, frames, svg_box) = (svg.clone(), frames.clone(), svg_box.clone());
        use_effect_with((), move |_| {
            let listener = listen_moves(&svg, frames);
            let forget = forget_box_on_scroll(svg_box);
            move || {
                if let Some((el, f)) = listener {
                    let _ = el.remove_event_listener_with_callback(
                        "pointermove",
                        f.as_ref().unchecked_ref(),
                    );
                }
                drop(forget);
            }
        });
    }
    let end_drag = {
        let on_action = props.on_action.clone();
        let dragging = props.dragging;
        let (svg, live) = (svg.clone(), props.live.clone());
        Callback::from(move |_: PointerEvent| {
            if dragging {
                // The last move may still wait for its frame: apply it before the drop.
                let latest = pending.borrow_mut().take();
                if let Some(p) = latest {
                    move_to(p);
                }
                // The drop brings the verdict and the caption up to date above the lanes.
                live.anchor().note(&svg);
                on_action.emit(Action::DragEnd);
            }
        })
    };
    let ondblclick = {
        let (svg, layout, on_action) = (svg.clone(), layout.clone(), props.on_action.clone());
        let (readonly, tool, itool) = (props.readonly, props.tool, props.instance_tool);
        Callback::from(move |e: MouseEvent| {
            if readonly || dom::grab(&e).is_some() {
                return;
            }
            if let Some((t, y)) = dom::pointer(&svg, &layout, None, e.client_x(), e.client_y()) {
                if let Some(client) = layout.client_at(y) {
                    on_action.emit(Action::Add {
                        client,
                        tool,
                        at_ms: t,
                    });
                } else if let Some(instance) = layout.instance_at(y) {
                    on_action.emit(Action::Instance(InstanceAction::Add {
                        instance,
                        tool: itool,
                        at_ms: t,
                    }));
                }
            }
        })
    };
    // A palette button dropped on a client's lane (an instance palette button on an instance's
    // lane) adds its event there, at the drop's instant.
    let ondragover = {
        let readonly = props.readonly;
        Callback::from(move |e: DragEvent| {
            let ours = e.data_transfer().is_some_and(|d| {
                let types = d.types();
                types.includes(&TOOL_DRAG_TYPE.into(), 0)
                    || types.includes(&INSTANCE_TOOL_DRAG_TYPE.into(), 0)
            });
            if ours && !readonly {
                // Accepting the drag is what lets it drop here.
                e.prevent_default();
                if let Some(d) = e.data_transfer() {
                    d.set_drop_effect("copy");
                }
            }
        })
    };
    let ondrop = {
        let (svg, layout, on_action) = (svg.clone(), layout.clone(), props.on_action.clone());
        let readonly = props.readonly;
        Callback::from(move |e: DragEvent| {
            let Some(data) = e.data_transfer() else {
                return;
            };
            let label = |kind: &str| data.get_data(kind).ok().filter(|l| !l.is_empty());
            let tool = label(TOOL_DRAG_TYPE).and_then(|l| Tool::from_label(&l));
            let itool = label(INSTANCE_TOOL_DRAG_TYPE).and_then(|l| InstanceTool::from_label(&l));
            if tool.is_none() && itool.is_none() {
                return;
            }
            e.prevent_default();
            if readonly {
                return;
            }
            let Some((at_ms, y)) = dom::pointer(&svg, &layout, None, e.client_x(), e.client_y())
            else {
                return;
            };
            match (tool, itool, layout.client_at(y), layout.instance_at(y)) {
                (Some(tool), _, Some(client), _) => on_action.emit(Action::Add {
                    client,
                    tool,
                    at_ms,
                }),
                (_, Some(tool), _, Some(instance)) => {
                    on_action.emit(Action::Instance(InstanceAction::Add {
                        instance,
                        tool,
                        at_ms,
                    }))
                }
                _ => {}
            }
        })
    };
    let onfocusin = {
        let on_action = props.on_action.clone();
        let selection = props.selection;
        Callback::from(move |e: FocusEvent| {
            if let Some((_, DragTarget::Item(r, _))) = dom::grab(&e) {
                if selection != r.into() {
                    on_action.emit(Action::Select(r.into()));
                }
            }
        })
    };

    let uid = &props.uid;
    let (w, h) = (layout.width_px, layout.height_px);
    html! {
        <div class="fp-timeline-box" data-zoom={zoom.factor().to_string()}>
        <div class="fp-zoom" role="group" aria-label="Zoom the time axis">
            <button type="button" aria-label="Zoom out" title="Zoom out" data-testid="zoom-out"
                disabled={zoom_out.is_none()} onclick={zoom_to(zoom_out)}>{ "−" }</button>
            <button type="button" aria-label="Zoom in" title="Zoom in" data-testid="zoom-in"
                disabled={zoom_in.is_none()} onclick={zoom_to(zoom_in)}>{ "+" }</button>
        </div>
        <div class="fp-timeline-wrap" ref={wrap}>
            <svg class="fp-timeline" ref={svg} data-testid="timeline" role="group"
                aria-label="Timeline: lock service, clients and storage over time"
                viewBox={format!("0 0 {w} {h}")} width={w.to_string()} height={h.to_string()}
                {onpointerdown} onpointerup={end_drag.clone()}
                onpointercancel={end_drag} {ondblclick} {onfocusin} {ondragover} {ondrop} tabindex="-1">
                <defs>
                    <pattern id={format!("{uid}-hatch-pause")} patternUnits="userSpaceOnUse" width="7" height="7"
                        patternTransform="rotate(45)">
                        <line x1="0" y1="0" x2="0" y2="7" class="fp-hatch-pause" />
                    </pattern>
                    <pattern id={format!("{uid}-hatch-stale")} patternUnits="userSpaceOnUse" width="6" height="6"
                        patternTransform="rotate(-45)">
                        <line x1="0" y1="0" x2="0" y2="6" class="fp-hatch-stale" />
                    </pattern>
                    <marker id={format!("{uid}-arrow")} viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7"
                        markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L8,4 L0,8 z" class="fp-arrowhead" />
                    </marker>
                </defs>
                // Backgrounds first, then the lines that cross lanes (arrows, playhead), then the
                // lanes: every label is drawn over the lines, on a halo of the background, so no
                // line runs through text.
                <Ground layout={layout.clone()} />
                <Messages trace={props.trace.clone()} layout={layout.clone()} uid={uid.clone()}
                    drawn={props.live.messages()} epoch={props.epoch} />
                <Playhead layout={layout.clone()} at_ms={props.playhead_ms} />
                // Every lane (the lock service's, Redlock's per instance, the clients', the
                // storage's) and Redlock's attempt brackets: the one lane renderer, patched in
                // place frame after frame.
                <Lanes frame={Frame { scenario: props.scenario.clone(), trace: props.trace.clone(),
                    ghost: props.ghost.clone(), contrast: props.contrast.clone(), layout: layout.clone(),
                    uid: uid.clone(), selection: props.selection, playhead_ms: props.playhead_ms,
                    readonly: props.readonly }}
                    paint={props.live.lanes()} epoch={props.epoch} />
                if let Some(marks) = props.found.clone() {
                    <FoundMarks {marks} scenario={props.scenario.clone()} layout={layout.clone()} />
                }
            </svg>
        </div>
        </div>
    }
}

/// A resize observer and the callback it calls.
type WidthWatch = (web_sys::ResizeObserver, Closure<dyn FnMut(js_sys::Array)>);

/// Observes the wrapper's width and reports it; returns the observer and its callback, which
/// must live as long as the observation.
fn watch_width(wrap: &NodeRef, on_action: Callback<Action>) -> Option<WidthWatch> {
    let el = wrap.cast::<web_sys::Element>()?;
    let report = {
        let on_action = on_action.clone();
        move |el: &web_sys::Element| {
            let w = el.client_width();
            if w > 0 {
                on_action.emit(Action::Resize(w as u32));
            }
        }
    };
    report(&el);
    let watched = el.clone();
    let closure = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| {
        report(&watched);
    });
    let observer = web_sys::ResizeObserver::new(closure.as_ref().unchecked_ref()).ok()?;
    observer.observe(&el);
    Some((observer, closure))
}
