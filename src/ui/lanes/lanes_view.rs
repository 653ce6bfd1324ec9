//! The full page's lanes as drawn by the one lane renderer (`render`): a thin component that
//! owns one `<g>` (given to Yew as a node reference) and, in each of its renders, has the
//! patcher write only what changed since the last frame. Yew never looks inside that `<g>`: it
//! keeps the controls, the inspectors and the rest of the timeline. The props compare the runs by identity, so the
//! lanes are drawn again only when the run, the layout, the selection or the mode changes.

use super::geometry::Layout;
use super::patch::Painter;
use super::render::View;
use crate::sim::compare::Contrast;
use crate::sim::{Scenario, Trace};
use crate::ui::model::selection::EventRef;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, Clone)]
pub struct LanesProps {
    pub scenario: Rc<Scenario>,
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    pub contrast: Rc<Contrast>,
    pub layout: Rc<Layout>,
    pub uid: AttrValue,
    pub selected: Option<EventRef>,
    pub readonly: bool,
}

impl PartialEq for LanesProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.scenario, &o.scenario)
            && Rc::ptr_eq(&self.trace, &o.trace)
            && Rc::ptr_eq(&self.ghost, &o.ghost)
            && Rc::ptr_eq(&self.contrast, &o.contrast)
            && self.layout == o.layout
            && self.uid == o.uid
            && self.selected == o.selected
            && self.readonly == o.readonly
    }
}

impl LanesProps {
    fn view(&self) -> View<'_> {
        View {
            scenario: &self.scenario,
            trace: &self.trace,
            ghost: &self.ghost,
            contrast: &self.contrast,
            layout: &self.layout,
            uid: &self.uid,
            selected: self.selected,
            handles: !self.readonly,
            keyboard: true,
            // Every lock lane but Redlock's per instance: without room for one lane (Redlock's
            // instances each get theirs) the layout has no lock lane at all.
            lock_lane: true,
        }
    }
}

#[component]
pub fn Lanes(props: &LanesProps) -> Html {
    // The lanes' own `<g>`, made once and handed to Yew as a node of ours (`VNode::VRef`): Yew
    // places it and never looks inside.
    let root = use_memo((), |_| svg_g("fp-lanes"));
    // The painter, and the props of its last paint: a lane whose part of them did not change
    // is not drawn again.
    let painter = use_mut_ref(|| (Painter::default(), None::<LanesProps>));
    let Some(root) = root.as_ref() else {
        return html! {};
    };
    // Painted here, in the render, not in an effect: Yew may yield to the browser between a
    // long render and its effects, and a frame must never show the rest of the page's new run
    // beside the lanes of the old one.
    {
        let mut state = painter.borrow_mut();
        let (painter, last) = &mut *state;
        painter.paint(
            root,
            &props.view(),
            last.as_ref().map(LanesProps::view).as_ref(),
        );
        *last = Some(props.clone());
    }
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
