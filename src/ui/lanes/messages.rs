//! The message arrows' component: the drawing of `render::messages`, in one `<g>` of its own
//! handed to Yew as a node reference and shared (`Drawn`) with the live drag path
//! (`ui/live.rs`), which writes the same drawing mid-drag; only what changed is written.

use super::geometry::Layout;
use super::patch::{paint_drawn, Drawn};
use super::render::messages::messages;
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct MessagesProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
    pub uid: AttrValue,
    pub drawn: Drawn,
    /// The live drag path's count of frames: after one, the arrows are drawn again.
    pub epoch: u32,
}

impl PartialEq for MessagesProps {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && self.uid == other.uid
            && self.epoch == other.epoch
            && Rc::ptr_eq(&self.drawn, &other.drawn)
            && super::same_part(&self.trace, &other.trace, |t| &t.messages)
    }
}

#[component]
pub fn Messages(props: &MessagesProps) -> Html {
    let root = use_memo((), |_| super::lanes_view::svg_g("fp-messages"));
    let Some(root) = root.as_ref() else {
        return html! {};
    };
    paint_drawn(
        &props.drawn,
        root,
        messages(&props.trace, &props.layout, &props.uid),
    );
    Html::VRef(root.clone().into())
}
