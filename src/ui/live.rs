//! The live drag path: mid-drag, a pointer move is applied here, not by a Yew render. It takes
//! the move to a copy of the app's state (`model::apply`, the same function Yew's reducer runs),
//! runs the scenario and its comparison (`runs::start`, the pure core) and writes what changed
//! straight into the page with the same drawings the components draw: the lanes
//! (`lanes_view::LanesPaint`, the one lane renderer and its patcher), the message arrows
//! (`render::messages`), the verdict banner (`render::verdict`) and the playhead's reading
//! (`readout::reading_el`). Yew keeps the one state: the moves it has not seen are handed to it
//! in order when the drag ends, or before any other action, so its state is what was shown.
//!
//! What Yew draws from the state and the drag does not bring up to date (the inspector's fields,
//! a preset's caption that states the preset's outcome, the narration and the commands, which
//! lag a drag on Yew's path too) carries `data-lags`; while the shown
//! scenario differs from the one the drag began with, this path marks it `data-stale` and fills
//! its note (`[data-lag-note]`), dimmed and saying it updates when you let go. Everything it
//! marks it clears before Yew renders again.
//!
//! The path takes the drag of an event's part, a client's or a Redlock instance's (every lane
//! and Redlock's attempt brackets are the lane renderer's), on a scenario without a search's
//! marks (a Yew component), and only runs that finish at once; anything else (the playhead, a
//! read-only view, a run taken in slices) goes to Yew as before.

use super::inspect::narration::STORY_LAGS;
use super::inspect::readout::{reading, reading_el};
use super::lanes::dom::Anchor;
use super::lanes::lanes_view::{Frame, SharedPaint};
use super::lanes::patch::{drawn_root, paint_drawn, Drawn};
use super::lanes::render::messages::messages;
use super::lanes::render::verdict::banner;
use super::model::apply::apply;
use super::model::state::{Action, DragTarget, State};
use super::runs::{start, Job};
use crate::sim::Trace;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use web_sys::Element;
use yew::prelude::*;

/// The words a lagging inspector shows mid-drag.
const INSPECTOR_LAGS: &str = "updates when you let go";
/// The words over a preset's caption once the drag has edited the scenario.
pub const CAPTION_LAGS: &str =
    "Edited by this drag: the preset's description is of the preset as written · updates when you let go";

/// The live path of one mounted app, shared by the app, its timeline and the drawings it patches.
#[derive(Clone, Default)]
pub struct Live(Rc<Inner>);

impl PartialEq for Live {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

#[derive(Default)]
struct Inner {
    pub lanes: SharedPaint,
    /// Where the lanes were under the pointer at the press and the drop.
    anchor: Anchor,
    pub messages: Drawn,
    pub banner: Drawn,
    pub readout: Drawn,
    /// The playground's root, where the lagging parts are found.
    root: RefCell<NodeRef>,
    /// The state Yew rendered last, while a drag is in progress.
    seen: RefCell<Option<State>>,
    /// That state with the moves Yew has not seen, once there are any.
    shown: RefCell<Option<State>>,
    unseen: RefCell<Vec<Action>>,
    /// Frames written by this path: a prop of each drawing it writes, so Yew draws them again
    /// once it renders.
    epoch: Cell<u32>,
    /// Whether lagging parts are marked.
    marked: Cell<bool>,
}

impl Live {
    pub fn lanes(&self) -> SharedPaint {
        self.0.lanes.clone()
    }
    pub fn messages(&self) -> Drawn {
        self.0.messages.clone()
    }
    pub fn banner(&self) -> Drawn {
        self.0.banner.clone()
    }
    pub fn readout(&self) -> Drawn {
        self.0.readout.clone()
    }
    pub fn epoch(&self) -> u32 {
        self.0.epoch.get()
    }
    pub fn anchor(&self) -> &Anchor {
        &self.0.anchor
    }

    /// Yew renders `state` (while a drag is in progress, else `None`) in `root`. Once Yew has
    /// seen every move, its state is the one shown.
    pub fn sync(&self, state: Option<State>, root: &NodeRef) {
        *self.0.seen.borrow_mut() = state;
        *self.0.root.borrow_mut() = root.clone();
        if self.0.unseen.borrow().is_empty() {
            *self.0.shown.borrow_mut() = None;
        }
    }

    /// Hands Yew the moves it has not seen, in order, and clears the marks of lagging parts:
    /// called before any action reaches Yew.
    pub fn flush(&self, dispatch: &UseReducerDispatcher<State>) {
        self.mark(false);
        let unseen = std::mem::take(&mut *self.0.unseen.borrow_mut());
        for a in unseen {
            dispatch.dispatch(a);
        }
    }

    /// Applies a drag's move and writes what it changed, if this path takes it; false when Yew
    /// must (the caller dispatches it, which flushes the moves before it first).
    pub fn follow(&self, action: &Action) -> bool {
        let next = {
            let shown = self.0.shown.borrow();
            let seen = self.0.seen.borrow();
            let Some(now) = shown.as_ref().or(seen.as_ref()) else {
                return false;
            };
            if !takes(now) {
                return false;
            }
            let next = apply(now, action.clone());
            if next.scenario == now.scenario && next.selection == now.selection {
                None
            } else {
                Some(next)
            }
        };
        let state = match next {
            Some(next) => match self.draw(&next) {
                true => next,
                false => return false,
            },
            // Nothing on screen changes (the same millisecond): only Yew must hear of it.
            None => match self.0.shown.borrow().clone() {
                Some(s) => s,
                None => match self.0.seen.borrow().as_ref() {
                    Some(s) => s.clone(),
                    None => return false,
                },
            },
        };
        *self.0.shown.borrow_mut() = Some(state);
        self.0.unseen.borrow_mut().push(action.clone());
        true
    }

    /// Runs `next`'s scenario and writes its drawings; false, writing nothing, if the runs do
    /// not finish at once or a drawing is not on the page.
    fn draw(&self, next: &State) -> bool {
        let Some(last) = self.0.lanes.borrow().last().cloned() else {
            return false;
        };
        let roots = [&self.0.messages, &self.0.banner, &self.0.readout].map(drawn_root);
        let [Some(arrows), Some(verdict), Some(readout)] = roots else {
            return false;
        };
        let Job::Ready(runs) = start(&next.scenario) else {
            return false;
        };
        self.0.epoch.set(self.0.epoch.get().wrapping_add(1));
        let frame = Frame {
            scenario: Rc::new(next.scenario.clone()),
            trace: runs.trace.clone(),
            ghost: runs.ghost.clone(),
            contrast: runs.contrast.clone(),
            selection: next.selection,
            playhead_ms: next.playhead_ms,
            ..last
        };
        let (layout, uid) = (frame.layout.clone(), frame.uid.clone());
        self.0.lanes.borrow_mut().repaint(frame);
        let (t, g, c) = (&runs.trace, &runs.ghost, &runs.contrast);
        // What the last frame drew from the same parts of its runs is not drawn again.
        if last.trace.messages != t.messages {
            paint_drawn(&self.0.messages, &arrows, messages(t, &layout, &uid));
        }
        let same_words = *last.contrast == **c
            && words(&last.trace) == words(t)
            && words(&last.ghost) == words(g);
        if !same_words {
            paint_drawn(&self.0.banner, &verdict, banner(t, g, c));
        }
        let text = reading(t, next.playhead_ms);
        paint_drawn(&self.0.readout, &readout, reading_el(&text));
        let edited = next
            .drag
            .as_ref()
            .is_some_and(|d| *d.before != next.scenario);
        self.mark(edited);
        true
    }

    /// Marks the lagging parts (`data-lags`) stale, with their notes, or clears the marks.
    fn mark(&self, on: bool) {
        if self.0.marked.get() == on {
            return;
        }
        self.0.marked.set(on);
        let Some(root) = self.0.root.borrow().cast::<Element>() else {
            return;
        };
        let parts = [
            ("caption", CAPTION_LAGS),
            ("inspector", INSPECTOR_LAGS),
            ("narration", STORY_LAGS),
            ("commands", STORY_LAGS),
        ];
        for (part, words) in parts {
            let selector = format!("[data-lags=\"{part}\"]");
            let Ok(Some(el)) = root.query_selector(&selector) else {
                continue;
            };
            let _ = match on {
                true => el.set_attribute("data-stale", ""),
                false => el.remove_attribute("data-stale"),
            };
            if let Ok(Some(note)) = el.query_selector("[data-lag-note]") {
                note.set_text_content(on.then_some(words));
            }
        }
    }
}

/// What the banner says of a run.
fn words(t: &Trace) -> (&crate::sim::Verdict, i64, Option<u64>) {
    (&t.verdict, t.final_balance, t.last_fence)
}

/// Whether this path takes the drag in `s`: an event's part (a client's or an instance's), in
/// an editable scenario without a search's marks on screen.
fn takes(s: &State) -> bool {
    let item = s
        .drag
        .as_ref()
        .is_some_and(|d| matches!(d.target, DragTarget::Item(..)));
    item && !s.readonly && s.found_here().is_none()
}
