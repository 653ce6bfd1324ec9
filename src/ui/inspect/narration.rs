//! The run told in plain sentences (the trace's own narration), as an ordered list.

use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrationProps {
    pub trace: Rc<Trace>,
}

#[component]
pub fn Narration(props: &NarrationProps) -> Html {
    html! {
        <section class="fp-narration" data-testid="narration">
            <h3>{ "What happened" }</h3>
            <ol>{ for props.trace.narration.iter().map(|l| html! { <li>{ l.clone() }</li> }) }</ol>
        </section>
    }
}
