//! The verdict banner's component: the drawing of `lanes::render::verdict` (the verdict, what
//! the work lost, the comparison and the legend, every word from the traces), in one `<div>` of
//! its own handed to Yew as a node reference and shared (`Drawn`) with the live drag path
//! (`ui/live.rs`), which writes the same drawing mid-drag; only what changed is written.

use crate::sim::compare::Contrast;
use crate::sim::Trace;
use crate::ui::lanes::patch::{paint_drawn, Drawn};
use crate::ui::lanes::render::verdict::banner;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct BannerProps {
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    pub contrast: Rc<Contrast>,
    pub drawn: Drawn,
    /// The live drag path's count of frames: after one, the banner is drawn again.
    pub epoch: u32,
}

impl PartialEq for BannerProps {
    fn eq(&self, other: &Self) -> bool {
        fn words(t: &Trace) -> (&crate::sim::Verdict, i64, Option<u64>) {
            (&t.verdict, t.final_balance, t.last_fence)
        }
        self.contrast == other.contrast
            && self.epoch == other.epoch
            && Rc::ptr_eq(&self.drawn, &other.drawn)
            && super::same_part(&self.trace, &other.trace, words)
            && super::same_part(&self.ghost, &other.ghost, words)
    }
}

#[component]
pub fn Banner(props: &BannerProps) -> Html {
    let root = use_memo((), |_| {
        web_sys::window()?.document()?.create_element("div").ok()
    });
    let Some(root) = root.as_ref() else {
        return html! {};
    };
    paint_drawn(
        &props.drawn,
        root,
        banner(&props.trace, &props.ghost, &props.contrast),
    );
    Html::VRef(root.clone().into())
}
