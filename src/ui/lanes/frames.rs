//! The timeline's own listeners on its SVG, outside Yew's: pointer moves mid-drag (each notes
//! the latest position and asks for an animation frame, in which the latest move is applied by
//! the live drag path, `ui/live.rs`, or else by Yew, so a burst of moves costs one simulation
//! and one drawing a frame), and touches that start on a draggable part (not panned).

use super::dom;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::NodeRef;

/// A listener and the element it listens on.
pub(super) type Listener = (web_sys::Element, Closure<dyn FnMut(web_sys::Event)>);

/// Listens for pointer moves on the SVG: mid-drag each one is noted and a frame asked for, in
/// which the latest is applied. The listener must live as long as the SVG.
pub(super) fn listen_moves(svg: &NodeRef, frames: Rc<FrameLoop>) -> Option<Listener> {
    let el = svg.cast::<web_sys::Element>()?;
    let f = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        if !frames.dragging.get() {
            return;
        }
        if let Some(e) = e.dyn_ref::<web_sys::PointerEvent>() {
            *frames.pending.borrow_mut() = Some((e.client_x(), e.client_y()));
            frames.request();
        }
    });
    el.add_event_listener_with_callback("pointermove", f.as_ref().unchecked_ref())
        .ok()?;
    Some((el, f))
}

/// Empties the kept SVG box whenever anything on the page scrolls (a scroll event does not
/// bubble, so it is heard in the capture phase) or the window resizes, for as long as the
/// guard lives.
pub(super) fn forget_box_on_scroll(cache: Rc<super::dom::BoxCache>) -> Option<WindowListener> {
    let window = web_sys::window()?;
    let f = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| {
        cache.replace(None);
    });
    let options = web_sys::AddEventListenerOptions::new();
    options.set_capture(true);
    options.set_passive(true);
    for kind in ["scroll", "resize"] {
        window
            .add_event_listener_with_callback_and_add_event_listener_options(
                kind,
                f.as_ref().unchecked_ref(),
                &options,
            )
            .ok()?;
    }
    Some(WindowListener { window, f })
}

/// Window listeners for scrolls and resizes, removed when dropped.
pub(super) struct WindowListener {
    window: web_sys::Window,
    f: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for WindowListener {
    fn drop(&mut self) {
        for kind in ["scroll", "resize"] {
            let _ = self.window.remove_event_listener_with_callback_and_bool(
                kind,
                self.f.as_ref().unchecked_ref(),
                true,
            );
        }
    }
}

/// Listens for touches that start on something a finger drags (an event's part, unless the
/// timeline is read-only, or the axis strip, where the playhead is grabbed) and cancels the
/// browser's panning for them; the listener must live as long as the SVG.
pub(super) fn claim_touches(svg: &NodeRef, readonly: bool) -> Option<Listener> {
    let el = svg.cast::<web_sys::Element>()?;
    let parts = if readonly {
        ".fp-axis-hit"
    } else {
        "[data-ev], [data-iev], .fp-axis-hit"
    };
    let f = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        let grabbed = dom::target_element(&e)
            .and_then(|t| t.closest(parts).ok().flatten())
            .is_some();
        if grabbed && e.cancelable() {
            e.prevent_default();
        }
    });
    el.add_event_listener_with_callback("touchstart", f.as_ref().unchecked_ref())
        .ok()?;
    Some((el, f))
}

/// What applies a pointer move: the pointer's position in the viewport.
pub(super) type MoveTo = Rc<dyn Fn((i32, i32))>;

/// The frame callback that applies the latest pointer move, made once per timeline: asking for
/// a frame costs no new JavaScript closure per move. At most one frame is requested at a time;
/// a request still pending when the timeline goes away is cancelled, so the callback is never
/// called after it is dropped.
pub(super) struct FrameLoop {
    /// The latest pointer position not applied yet.
    pub(super) pending: Rc<std::cell::RefCell<Option<(i32, i32)>>>,
    /// The move to apply with, from the latest render (its layout and its `on_action`).
    pub(super) latest: Rc<std::cell::RefCell<Option<MoveTo>>>,
    /// The pending request's id, if a frame is requested.
    requested: Rc<std::cell::Cell<Option<i32>>>,
    /// Whether a drag is in progress, as of the latest render.
    pub(super) dragging: std::cell::Cell<bool>,
    on_frame: Closure<dyn FnMut()>,
}

impl FrameLoop {
    pub(super) fn new(pending: Rc<std::cell::RefCell<Option<(i32, i32)>>>) -> Self {
        let latest: Rc<std::cell::RefCell<Option<MoveTo>>> = Rc::default();
        let requested: Rc<std::cell::Cell<Option<i32>>> = Rc::default();
        let on_frame = {
            let (pending, latest, requested) = (pending.clone(), latest.clone(), requested.clone());
            Closure::<dyn FnMut()>::new(move || {
                requested.set(None);
                apply_latest(&pending, &latest);
            })
        };
        FrameLoop {
            pending,
            latest,
            requested,
            dragging: std::cell::Cell::new(false),
            on_frame,
        }
    }

    /// Asks for a frame unless one is already asked for; without a window, applies the move now.
    pub(super) fn request(&self) {
        if self.requested.get().is_some() {
            return;
        }
        let id = web_sys::window().and_then(|w| {
            w.request_animation_frame(self.on_frame.as_ref().unchecked_ref())
                .ok()
        });
        match id {
            Some(id) => self.requested.set(Some(id)),
            None => apply_latest(&self.pending, &self.latest),
        }
    }
}

/// Applies the latest pointer position, if any, with the latest render's move.
fn apply_latest(
    pending: &std::cell::RefCell<Option<(i32, i32)>>,
    latest: &std::cell::RefCell<Option<MoveTo>>,
) {
    let point = pending.borrow_mut().take();
    // Out of the cell before the call: the move renders, and a render replaces it.
    let move_to = latest.borrow().clone();
    if let (Some(p), Some(move_to)) = (point, move_to) {
        move_to(p);
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        if let (Some(id), Some(w)) = (self.requested.take(), web_sys::window()) {
            let _ = w.cancel_animation_frame(id);
        }
    }
}
