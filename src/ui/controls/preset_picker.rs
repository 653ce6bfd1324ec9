//! The preset picker: every preset from the core, by title, and the empty Redlock scenario.

use crate::sim::presets::presets;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PresetPickerProps {
    pub current: Option<AttrValue>,
    pub on_pick: Callback<String>,
}

#[component]
pub fn PresetPicker(props: &PresetPickerProps) -> Html {
    let list = use_memo((), |_| presets());
    let onchange = {
        let on_pick = props.on_pick.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            {
                on_pick.emit(select.value());
            }
        })
    };
    let current = props.current.as_deref().unwrap_or("");
    html! {
        <label class="fp-preset">
            <span class="fp-group-name">{ "Preset" }</span>
            <select {onchange} data-testid="preset">
                if props.current.is_none() {
                    <option value="" selected=true disabled=true>{ "custom scenario" }</option>
                }
                { for list.iter().map(|p| html! {
                    <option value={p.id} selected={p.id == current}>{ p.scenario.name.clone() }</option>
                }) }
            </select>
        </label>
    }
}
