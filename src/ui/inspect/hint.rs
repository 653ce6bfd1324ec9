//! The hint under the verdict: what a newcomer should drag first, or why the last edit was
//! refused.

use crate::sim::{self, Scenario};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HintProps {
    pub scenario: Rc<Scenario>,
    pub readonly: bool,
    pub notice: Option<AttrValue>,
}

/// One line that tells a newcomer what to drag, or why the last edit was refused.
#[component]
pub fn Hint(props: &HintProps) -> Html {
    if let Some(n) = &props.notice {
        return html! { <p class="fp-hint fp-notice" role="status" data-testid="notice">{ n.clone() }</p> };
    }
    if props.readonly {
        return html! {};
    }
    let pause = props.scenario.clients.iter().find_map(|c| {
        c.events.iter().find_map(|e| match e {
            sim::Event::Pause { cause, .. } => Some((c.name.clone(), cause.label())),
            _ => None,
        })
    });
    html! {
        <p class="fp-hint" data-testid="hint">
            { "Try it: " }
            if let Some((who, cause)) = pause {
                <b>{ format!("drag the right edge of {who}'s {cause} pause to the left") }</b>
                { format!(", so {who} wakes before its lease runs out, and watch the verdicts change.") }
            } else {
                <b>{ "drag any event along its lane" }</b>
                { ", or drop it on another client's lane, and watch the verdicts change." }
            }
        </p>
    }
}
