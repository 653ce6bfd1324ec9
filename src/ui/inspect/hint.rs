//! The hint under the verdict: what to try next on the scenario on screen (its preset's hint,
//! or one derived from the scenario, `sim::presets::hint_for`), with a button when one click
//! does it, or why the last edit was refused.

use crate::sim::presets::{hint_for, HintAct};
use crate::sim::Scenario;
use crate::ui::model::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HintProps {
    pub scenario: Rc<Scenario>,
    /// No "Try it" line (a read-only view or a compact embed); a notice still shows.
    pub quiet: bool,
    pub notice: Option<AttrValue>,
    pub on_action: Callback<Action>,
}

/// One line that tells a newcomer what to try, or why the last edit was refused.
#[component]
pub fn Hint(props: &HintProps) -> Html {
    if let Some(n) = &props.notice {
        return html! { <p class="fp-hint fp-notice" role="status" data-testid="notice">{ n.clone() }</p> };
    }
    if props.quiet {
        return html! {};
    }
    let h = hint_for(&props.scenario);
    html! {
        <p class="fp-hint" data-testid="hint">
            { "Try it: " }
            if let Some(b) = h.button {
                <button type="button" class="fp-hint-act" data-testid="hint-button"
                    onclick={props.on_action.reform(move |_: MouseEvent| match b.act {
                        HintAct::FenceRule(rule) => Action::SetFenceRule(rule),
                        HintAct::Preset(id) => Action::LoadPreset(id.to_string()),
                    })}>
                    { b.label }</button>
            } else {
                <b>{ h.act }</b>
            }
            { h.watch }
        </p>
    }
}
