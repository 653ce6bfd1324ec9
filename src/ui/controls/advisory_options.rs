//! A PostgreSQL advisory lock's settings: held by the session or by one transaction, the two
//! idle timeouts that end a session (and with it the lock), and whether the debit is an
//! `UPDATE` on the lock holder's own session. Each change is one undoable edit.

use crate::sim::scenario::{Advisory, AdvisoryLevel};
use crate::ui::model::state::{Action, InstanceAction};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AdvisoryOptionsProps {
    pub advisory: Rc<Advisory>,
    pub in_transaction: bool,
    pub on_change: Callback<Action>,
}

fn input_of(e: &Event) -> Option<web_sys::HtmlInputElement> {
    e.target()?.dyn_into().ok()
}

#[component]
pub fn AdvisoryOptions(props: &AdvisoryOptionsProps) -> Html {
    let a = &props.advisory;
    let on = &props.on_change;
    let level = on.reform(|e: Event| {
        let v = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            .map(|s| s.value())
            .unwrap_or_default();
        Action::Instance(InstanceAction::SetAdvisoryLevel(if v == "transaction" {
            AdvisoryLevel::Transaction
        } else {
            AdvisoryLevel::Session
        }))
    });
    let timeout = |in_transaction: bool| {
        on.reform(move |e: Event| {
            Action::Instance(InstanceAction::SetIdleTimeout {
                in_transaction,
                value: input_of(&e).map(|i| i.value()).unwrap_or_default(),
            })
        })
    };
    let ms = |v: Option<u64>| v.unwrap_or(0).to_string();
    let in_session = on.reform(|e: Event| {
        Action::Instance(InstanceAction::SetWriteInSession(
            input_of(&e).is_some_and(|i| i.checked()),
        ))
    });
    let transaction = a.level == AdvisoryLevel::Transaction;
    html! {
        <div class="fp-group" role="group" aria-label="Advisory lock" data-testid="advisory-options">
            <label>
                <span class="fp-group-name">{ format!("Advisory lock {}", a.lock_id) }</span>
                <select onchange={level} data-testid="advisory-level">
                    <option value="session" selected={!transaction}>{ "session: pg_advisory_lock" }</option>
                    <option value="transaction" selected={transaction}>{ "transaction: pg_advisory_xact_lock" }</option>
                </select>
            </label>
            <label title="0 is PostgreSQL's default: never">
                <span class="fp-group-name">{ "idle_session_timeout ms" }</span>
                <input type="number" min="0" value={ms(a.idle_session_timeout_ms)}
                    onchange={timeout(false)} data-testid="idle-session-timeout" />
            </label>
            <label title="0 is PostgreSQL's default: never">
                <span class="fp-group-name">{ "idle_in_transaction ms" }</span>
                <input type="number" min="0" value={ms(a.idle_in_transaction_timeout_ms)}
                    onchange={timeout(true)} data-testid="idle-in-transaction-timeout" />
            </label>
            <label>
                <input type="checkbox" checked={props.in_transaction} onchange={in_session} data-testid="write-in-session" />
                { "debit on the lock's own session" }
            </label>
        </div>
    }
}
