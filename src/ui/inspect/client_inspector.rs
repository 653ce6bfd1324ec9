//! The selected client event's fields, for what a drag cannot say: a debit's amount,
//! idempotency key and network delay, a check-then-write's gap, a pause's cause and length, a
//! release's mode (where the lock service has a bare `DEL`), a clock jump's size. It sends the
//! text as typed; `apply` refuses what is no valid value with a notice naming the field, so
//! every change is one validated, undoable edit.

use super::instance_inspector;
use crate::sim::scenario::{Control, Offers};
use crate::sim::Event as SimEvent;
use crate::ui::model::fields::{Field, CAUSES, MODES};
use crate::ui::model::item::LaneItem;
use crate::ui::model::selection::EventRef;
use crate::ui::model::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ClientInspectorProps {
    pub target: EventRef,
    pub name: AttrValue,
    pub event: Rc<SimEvent>,
    /// What the lock service offers: a release's mode is a choice only where a bare `DEL` is.
    pub offers: Offers,
    pub on_change: Callback<Action>,
}

#[component]
pub fn ClientInspector(props: &ClientInspectorProps) -> Html {
    let ev = &props.event;
    let target = props.target;
    let input = |f: Field| {
        let onchange = props.on_change.reform(move |e: Event| Action::SetField {
            target: target.into(),
            field: f,
            value: instance_inspector::value(&e).unwrap_or_default(),
        });
        let v = ev.value(f).unwrap_or_default();
        let testid = format!("edit-{}", f.attr());
        let control = match f {
            Field::Cause => html! {
                <select {onchange} data-testid={testid}>
                    { for CAUSES.iter().map(|(c, name)| html! {
                        <option value={*name} selected={v == *name}>{ c.label() }</option>
                    }) }
                </select>
            },
            Field::Mode => html! {
                <select {onchange} data-testid={testid}>
                    { for MODES.iter().map(|(_, name, words)| html! {
                        <option value={*name} selected={v == *name}>{ *words }</option>
                    }) }
                </select>
            },
            Field::Key => html! {
                <input type="text" class="fp-key-input" value={v} placeholder="none" {onchange} data-testid={testid} />
            },
            Field::By => {
                html! { <input type="number" value={v} {onchange} data-testid={testid} /> }
            }
            Field::Duration => {
                html! { <input type="number" min="1" value={v} {onchange} data-testid={testid} /> }
            }
            _ => {
                html! { <input type="number" min="0" value={v} {onchange} data-testid={testid} /> }
            }
        };
        html! {
            <label><span class="fp-group-name">{ f.label() }</span>{ control }</label>
        }
    };
    let remove = props
        .on_change
        .reform(move |_: MouseEvent| Action::Remove(target.into()));
    html! {
        <div class="fp-group fp-inspector" role="group" aria-label="Selected event" data-testid="client-inspector">
            <b>{ format!("{}: {} at {} ms", props.name, ev.kind_label(), ev.at_ms()) }</b>
            { for ev.fields().iter().filter(|&&f| f != Field::Mode || props.offers.has(Control::BareDel)).map(|&f| input(f)) }
            <button type="button" onclick={remove} data-testid="edit-remove">{ "Remove" }</button>
        </div>
    }
}
