//! The run told in plain sentences (the trace's own narration), as an ordered list.
//!
//! Each item carries its number in `value`. Yew keeps the `<li>` elements when the list
//! changes and removes the surplus from the front, and Chromium does not renumber the items
//! that moved up: after a switch from the default preset to "Redlock: a clock jump…" the list
//! read 2, 3, … 12, and the one-line empty Redlock read "12.". An explicit `value` changes on
//! every item that moved, so the browser has to draw its new number.

use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct NarrationProps {
    pub trace: Rc<Trace>,
}

/// Equal when the words are: mid-drag most frames leave the narration as it was.
impl PartialEq for NarrationProps {
    fn eq(&self, other: &Self) -> bool {
        super::same_part(&self.trace, &other.trace, |t| &t.narration)
    }
}

#[component]
pub fn Narration(props: &NarrationProps) -> Html {
    html! {
        <section class="fp-narration" data-testid="narration">
            <h3>{ "What happened" }</h3>
            <ol>{ for props.trace.narration.iter().enumerate().map(|(i, l)| html! {
                <li value={(i + 1).to_string()}>{ l.clone() }</li>
            }) }</ol>
        </section>
    }
}
