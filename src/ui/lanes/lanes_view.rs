//! The full page's lanes as drawn by the one lane renderer (`render`): a thin component that
//! owns one `<g>` (given to Yew as a node reference) and, in each of its renders, has the
//! patcher write only what changed since the last frame. Every lane is in it, Redlock's per
//! instance and its attempt brackets too. Yew never looks inside that `<g>`: it keeps the
//! controls, the inspectors and the rest of the timeline. The painter and its last frame are
//! shared (`LanesPaint`) with the live drag path (`ui/live.rs`), which paints the same `<g>`
//! mid-drag without a Yew render; whichever paints next diffs against what is on the page. The
//! props compare the runs by identity, so the lanes are drawn again only when the run, the
//! layout, the selection, the playhead (an instance lane's clock reading), the mode or the live
//! path's count of frames changes.

use super::geometry::Layout;
use super::patch::Painter;
use super::render::View;
use crate::sim::compare::Contrast;
use crate::sim::{Scenario, Trace};
use crate::ui::model::selection::Selection;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::Element;
use yew::prelude::*;

/// What one frame of the lanes is drawn from.
#[derive(Clone)]
pub struct Frame {
    pub scenario: Rc<Scenario>,
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    pub contrast: Rc<Contrast>,
    pub layout: Rc<Layout>,
    pub uid: AttrValue,
    pub selection: Selection,
    pub playhead_ms: u64,
    pub readonly: bool,
}

impl PartialEq for Frame {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.scenario, &o.scenario)
            && Rc::ptr_eq(&self.trace, &o.trace)
            && Rc::ptr_eq(&self.ghost, &o.ghost)
            && Rc::ptr_eq(&self.contrast, &o.contrast)
            && self.layout == o.layout
            && self.uid == o.uid
            && self.selection == o.selection
            && self.playhead_ms == o.playhead_ms
            && self.readonly == o.readonly
    }
}

impl Frame {
    pub fn view(&self) -> View<'_> {
        View {
            scenario: &self.scenario,
            trace: &self.trace,
            ghost: &self.ghost,
            contrast: &self.contrast,
            layout: &self.layout,
            uid: &self.uid,
            selection: self.selection,
            playhead_ms: self.playhead_ms,
            handles: !self.readonly,
            keyboard: true,
        }
    }
}

/// The painter, the `<g>` it paints and the frame it painted last: a lane whose part of the
/// frame did not change is not drawn again.
#[derive(Default)]
pub struct LanesPaint {
    painter: Painter,
    root: Option<Element>,
    last: Option<Frame>,
}

impl LanesPaint {
    /// Paints `next` into `root`, writing only what changed since the last frame.
    pub fn paint(&mut self, root: &Element, next: Frame) {
        self.painter.paint(
            root,
            &next.view(),
            self.last.as_ref().map(Frame::view).as_ref(),
        );
        self.root = Some(root.clone());
        self.last = Some(next);
    }

    /// The last frame painted, if its `<g>` is on the page.
    pub fn last(&self) -> Option<&Frame> {
        self.root.as_ref().filter(|r| r.is_connected())?;
        self.last.as_ref()
    }

    /// Paints `next` into the `<g>` painted last (the live drag path).
    pub fn repaint(&mut self, next: Frame) {
        if let Some(root) = self.root.clone() {
            self.paint(&root, next);
        }
    }
}

/// The painter, shared by the component and the live drag path.
pub type SharedPaint = Rc<RefCell<LanesPaint>>;

#[derive(Properties, Clone)]
pub struct LanesProps {
    pub frame: Frame,
    pub paint: SharedPaint,
    /// The live drag path's count of frames: after one, the lanes are painted again.
    pub epoch: u32,
}

impl PartialEq for LanesProps {
    fn eq(&self, o: &Self) -> bool {
        self.frame == o.frame && Rc::ptr_eq(&self.paint, &o.paint) && self.epoch == o.epoch
    }
}

#[component]
pub fn Lanes(props: &LanesProps) -> Html {
    // The lanes' own `<g>`, made once and handed to Yew as a node of ours (`VNode::VRef`): Yew
    // places it and never looks inside.
    let root = use_memo((), |_| svg_g("fp-lanes"));
    let Some(root) = root.as_ref() else {
        return html! {};
    };
    // Painted here, in the render, not in an effect: Yew may yield to the browser between a
    // long render and its effects, and a frame must never show the rest of the page's new run
    // beside the lanes of the old one.
    props.paint.borrow_mut().paint(root, props.frame.clone());
    Html::VRef(root.clone().into())
}

/// A `<g>` of `class` in the SVG namespace, for a drawing of the renderer's.
pub(super) fn svg_g(class: &str) -> Option<web_sys::Element> {
    let doc = web_sys::window()?.document()?;
    let g = doc
        .create_element_ns(Some("http://www.w3.org/2000/svg"), "g")
        .ok()?;
    g.set_attribute("class", class).ok()?;
    Some(g)
}
