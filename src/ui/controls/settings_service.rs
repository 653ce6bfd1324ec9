//! The lock service: a single Redis, or Redlock over 3, 5 or 7 instances. Switching is one
//! undoable edit; instances that remain keep their events.

use crate::ui::model::service::SERVICE_SIZES;
use crate::ui::model::state::{Action, InstanceAction};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ServiceSettingsProps {
    /// 0 for a single Redis.
    pub instances: usize,
    pub on_change: Callback<Action>,
}

#[component]
pub fn ServiceSettings(props: &ServiceSettingsProps) -> Html {
    let n = props.instances;
    let onchange = props.on_change.reform(|e: Event| {
        let n = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            .and_then(|s| s.value().parse::<usize>().ok())
            .unwrap_or(0);
        Action::Instance(InstanceAction::SetService(n))
    });
    html! {
        <label class="fp-preset">
            <span class="fp-group-name">{ "Lock service" }</span>
            <select {onchange} data-testid="service">
                <option value="0" selected={n == 0}>{ "single Redis" }</option>
                { for SERVICE_SIZES.iter().map(|&k| html! {
                    <option value={k.to_string()} selected={n == k}>{ format!("Redlock, {k} instances") }</option>
                }) }
                if n > 0 && !SERVICE_SIZES.contains(&n) {
                    <option value={n.to_string()} selected=true>{ format!("Redlock, {n} instances") }</option>
                }
            </select>
        </label>
    }
}
