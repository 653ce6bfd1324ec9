//! The preset picker: every preset from the core, by title, and the empty Redlock scenario.
//! Once a person has picked an option, the browser no longer follows the `selected` attribute,
//! so after an undo the picker kept naming the preset undone. The option that is selected
//! has a key of its own: when the selection changes, the two options whose state changed are
//! made anew, and a new option with `selected` is the one the browser shows.

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
                    <option key={if p.id == current { format!("*{}", p.id) } else { p.id.to_string() }}
                        value={p.id} selected={p.id == current}>{ p.scenario.name.clone() }</option>
                }) }
            </select>
        </label>
    }
}
