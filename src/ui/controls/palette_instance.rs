//! The instance palette, shown for Redlock: pick an instance, then a button adds that event to
//! it at the playhead and makes it the kind a double-click on an instance lane adds; a button
//! dragged onto an instance's lane adds its event there instead. Beside it,
//! the picked instance's own settings: whether it expires keys by a monotonic clock (which its
//! clock jumps do not move) and its one-way latency.

use crate::ui::model::state::{Action, InstanceAction};
use crate::ui::model::tools::InstanceTool;

/// The drag data type an instance palette button carries; its value is the tool's label.
pub const INSTANCE_TOOL_DRAG_TYPE: &str = "application/x-fencing-playground-instance-tool";
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InstancePaletteProps {
    pub names: Rc<Vec<String>>,
    pub tool: InstanceTool,
    pub playhead_ms: u64,
    pub on_add: Callback<Action>,
    /// Per instance: (monotonic clock, latency ms).
    pub clocks: Rc<Vec<(bool, u64)>>,
}

#[component]
pub fn InstancePalette(props: &InstancePaletteProps) -> Html {
    let target = use_state(|| 0usize);
    let instance = (*target).min(props.names.len().saturating_sub(1));
    let onchange = {
        let target = target.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .and_then(|s| s.value().parse::<usize>().ok());
            if let Some(i) = v {
                target.set(i);
            }
        })
    };
    let (monotonic, latency_ms) = props.clocks.get(instance).copied().unwrap_or((false, 1));
    let on_monotonic = props.on_add.reform(move |e: Event| {
        let on = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .is_some_and(|i| i.checked());
        Action::Instance(InstanceAction::SetMonotonic { instance, on })
    });
    let on_latency = props.on_add.reform(move |e: Event| {
        let value = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .map(|i| i.value())
            .unwrap_or_default();
        Action::Instance(InstanceAction::SetLatency { instance, value })
    });
    html! {
        <div class="fp-group" role="group" aria-label="Add an instance event" data-testid="instance-palette">
            <label>
                <span class="fp-group-name">{ "Add to instance" }</span>
                <select {onchange} data-testid="instance-target">
                    { for props.names.iter().enumerate().map(|(i, n)| html! {
                        <option value={i.to_string()} selected={i == instance}>{ n.clone() }</option>
                    }) }
                </select>
            </label>
            { for InstanceTool::ALL.iter().map(|&tool| {
                let on_add = props.on_add.clone();
                let at_ms = props.playhead_ms;
                let onclick = Callback::from(move |_: MouseEvent| {
                    on_add.emit(Action::Instance(InstanceAction::Add { instance, tool, at_ms }))
                });
                let pressed = if tool == props.tool { "true" } else { "false" };
                let ondragstart = Callback::from(move |e: DragEvent| {
                    if let Some(data) = e.data_transfer() {
                        let _ = data.set_data(INSTANCE_TOOL_DRAG_TYPE, tool.label());
                        data.set_effect_allowed("copy");
                    }
                });
                html! {
                    <button type="button" class="fp-tool" aria-pressed={pressed} {onclick}
                        draggable="true" {ondragstart} title="Click to add to the chosen instance at the playhead, or drag onto an instance's lane"
                        data-testid={format!("itool-{}", tool.label().split(' ').next().unwrap_or_default())}>
                        { tool.label() }
                    </button>
                }
            }) }
            <span class="fp-dbl" data-testid="double-click-itool">
                { "Double-click an instance lane adds: " }<b>{ props.tool.label() }</b>
            </span>
            <label>
                <input type="checkbox" checked={monotonic} onchange={on_monotonic} data-testid="instance-monotonic" />
                { "monotonic clock" }
            </label>
            <label>
                <span class="fp-group-name">{ "latency ms" }</span>
                <input type="number" min="0" value={latency_ms.to_string()} onchange={on_latency} data-testid="instance-latency" />
            </label>
        </div>
    }
}
