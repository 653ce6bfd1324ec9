//! The selected instance event's fields, for what a drag cannot say: how far a clock jumps and
//! whether it slews, whether a crash keeps its keys, which client a partition cuts off, and
//! exact times. Like the client inspector it sends the text as typed; `apply` refuses what is
//! no valid value with a notice naming the field, so every change is one validated, undoable
//! edit.

use crate::sim::scenario::InstanceEvent;
use crate::ui::model::fields::Field;
use crate::ui::model::selection::InstanceRef;
use crate::ui::model::state::Action;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub target: InstanceRef,
    pub name: AttrValue,
    pub event: Rc<InstanceEvent>,
    pub clients: Rc<Vec<String>>,
    pub on_change: Callback<Action>,
}

/// The value of the input or select an event came from.
pub(super) fn value(e: &Event) -> Option<String> {
    let t = e.target()?;
    match t.dyn_ref::<web_sys::HtmlInputElement>() {
        Some(i) if i.type_() == "checkbox" => Some(i.checked().to_string()),
        Some(i) => Some(i.value()),
        None => t
            .dyn_into::<web_sys::HtmlSelectElement>()
            .ok()
            .map(|s| s.value()),
    }
}

#[component]
pub fn Inspector(props: &InspectorProps) -> Html {
    let ev = props.event.clone();
    let target = props.target;
    let field = |field: Field| {
        props.on_change.reform(move |e: Event| Action::SetField {
            target: target.into(),
            field,
            value: value(&e).unwrap_or_default(),
        })
    };
    let number = |label: &'static str, f: Field, id: &'static str, v: String, min: &'static str| {
        html! {
            <label>
                <span class="fp-group-name">{ label }</span>
                <input type="number" min={min} value={v} onchange={field(f)} data-testid={format!("inspect-{id}")} />
            </label>
        }
    };
    let (kind, fields) = match &*ev {
        InstanceEvent::ClockJump { by_ms, over_ms, .. } => (
            "clock jump",
            html! { <>
                { number("by ms", Field::By, "by", by_ms.to_string(), "-10000000") }
                { number("slewed over ms (0: a step)", Field::Over, "over", over_ms.to_string(), "0") }
            </> },
        ),
        InstanceEvent::Crash {
            down_ms,
            persistent,
            ..
        } => (
            "crash",
            html! { <>
                { number("down for ms", Field::Duration, "len", down_ms.to_string(), "1") }
                <label>
                    <input type="checkbox" checked={*persistent} onchange={field(Field::Keep)} data-testid="inspect-keep" />
                    { "keeps its keys (persistence)" }
                </label>
            </> },
        ),
        InstanceEvent::Partition {
            duration_ms,
            client,
            ..
        } => (
            "partition",
            html! { <>
                { number("for ms", Field::Duration, "len", duration_ms.to_string(), "1") }
                <label>
                    <span class="fp-group-name">{ "cut off from" }</span>
                    <select onchange={field(Field::Who)} data-testid="inspect-who">
                        <option value="" selected={client.is_none()}>{ "every client" }</option>
                        { for props.clients.iter().map(|c| html! {
                            <option value={c.clone()} selected={client.as_deref() == Some(c.as_str())}>{ c.clone() }</option>
                        }) }
                    </select>
                </label>
            </> },
        ),
    };
    let remove = props
        .on_change
        .reform(move |_: MouseEvent| Action::Remove(target.into()));
    html! {
        <div class="fp-group fp-inspector" role="group" aria-label="Selected instance event" data-testid="inspector">
            <b>{ format!("{}: {kind}", props.name) }</b>
            { number("at ms", Field::At, "at", ev.at_ms().to_string(), "0") }
            { fields }
            <button type="button" onclick={remove} data-testid="inspect-remove">{ "Remove" }</button>
        </div>
    }
}
