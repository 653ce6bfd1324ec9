//! Redlock's switches: sequential or parallel requests, the non-standard variant whose
//! instances mint a fence, and whether the instances get a lane each or share one (a view
//! choice, not an edit of the scenario).

use crate::ui::model::state::{Action, InstanceAction};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RedlockOptionsProps {
    pub parallel: bool,
    pub fence: bool,
    pub collapsed: bool,
    pub on_change: Callback<Action>,
}

fn checked(e: &Event) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .is_some_and(|i| i.checked())
}

#[component]
pub fn RedlockOptions(props: &RedlockOptionsProps) -> Html {
    let on = &props.on_change;
    html! {
        <div class="fp-group" role="group" aria-label="Redlock" data-testid="redlock-options">
            <span class="fp-group-name">{ "Redlock" }</span>
            <label>
                <input type="checkbox" checked={props.parallel} data-testid="parallel"
                    onchange={on.reform(|e: Event| Action::Instance(InstanceAction::SetParallel(checked(&e))))} />
                { "ask all instances at once" }
            </label>
            <label>
                <input type="checkbox" checked={props.fence} data-testid="redlock-fence"
                    onchange={on.reform(|e: Event| Action::Instance(InstanceAction::SetFence(checked(&e))))} />
                { "non-standard: instances mint a fence" }
            </label>
            <label>
                <input type="checkbox" checked={props.collapsed} data-testid="collapse"
                    onchange={on.reform(|e: Event| Action::SetCollapsed(checked(&e)))} />
                { "one lane for the whole service" }
            </label>
        </div>
    }
}
