//! The run told in plain sentences (`sim::narrate`), as an ordered list.
//!
//! Each item carries its number in `value`. Yew keeps the `<li>` elements when the list
//! changes and removes the surplus from the front, and Chromium does not renumber the items
//! that moved up: after a switch from the default preset to "Redlock: a clock jump…" the list
//! read 2, 3, … 12, and the one-line empty Redlock read "12.". An explicit `value` changes on
//! every item that moved, so the browser has to draw its new number.
//!
//! The page's runs leave the narration out (`engine::Words::Steps`): it is told here, from the
//! trace, when it shows. Mid-drag it keeps the run the drag began with and catches up on the
//! drop: telling a run in words costs more than a frame can spare on a slow phone. While it
//! lags it says so in its heading ("updates when you let go") and is dimmed, so it never
//! passes for the run on the timeline.

use crate::sim::narrate::narrate;
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrationProps {
    pub trace: Rc<Trace>,
    /// The timeline shows a newer run than `trace` (mid-drag): say so.
    #[prop_or_default]
    pub stale: bool,
}

#[component]
pub fn Narration(props: &NarrationProps) -> Html {
    // A trace that carries its narration (a whole `sim::run`) is told as it is.
    let lines = use_memo(props.trace.clone(), |t| {
        if t.narration.is_empty() {
            narrate(t)
        } else {
            t.narration.clone()
        }
    });
    html! {
        <section class={classes!("fp-narration", props.stale.then_some("fp-stale"))} data-testid="narration"
            data-lags="narration">
            <h3>{ "What happened" }{ stale_note(props.stale) }</h3>
            <ol>{ for lines.iter().enumerate().map(|(i, l)| html! {
                <li value={(i + 1).to_string()}>{ l.clone() }</li>
            }) }</ol>
        </section>
    }
}

/// The words a lagging story carries in its heading (the heading's line is there anyway, so
/// nothing moves): this render's, when it draws a run older than the timeline's, and the live
/// drag path's (`ui/live.rs`, which fills the span Yew keeps empty while the lanes run ahead).
pub(super) fn stale_note(stale: bool) -> Html {
    html! { <>
        if stale {
            <span class="fp-stale-note" data-testid="stale-note">{ STORY_LAGS }</span>
        }
        <span class="fp-stale-note" data-lag-note="" data-testid="stale-note-live"></span>
    </> }
}

/// The words of a lagging story.
pub const STORY_LAGS: &str = " · updates when you let go";
