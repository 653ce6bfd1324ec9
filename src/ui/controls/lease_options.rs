//! A database lease row's settings: whose clock judges that a lease has run out (the
//! database's `now()` or the waiter's own), and where the debit checks the generation besides
//! the account row (a ledger's unique constraint, the live lease in the write's statement).
//! Each change is one undoable edit.

use crate::sim::scenario::{LeaseExpiry, LeaseGuard};
use crate::ui::model::state::{Action, InstanceAction};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LeaseOptionsProps {
    pub expiry: LeaseExpiry,
    pub guard: LeaseGuard,
    pub on_change: Callback<Action>,
}

fn value_of(e: &Event) -> String {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
        .map(|s| s.value())
        .unwrap_or_default()
}

#[component]
pub fn LeaseOptions(props: &LeaseOptionsProps) -> Html {
    let on = &props.on_change;
    let expiry = on.reform(|e: Event| {
        Action::Instance(InstanceAction::SetLeaseExpiry(
            if value_of(&e) == "waiter" {
                LeaseExpiry::Waiter
            } else {
                LeaseExpiry::Database
            },
        ))
    });
    let guard = on.reform(|e: Event| {
        Action::Instance(InstanceAction::SetLeaseGuard(match value_of(&e).as_str() {
            "unique_ledger" => LeaseGuard::UniqueLedger,
            "live_lease" => LeaseGuard::LiveLease,
            _ => LeaseGuard::None,
        }))
    });
    let waiter = props.expiry == LeaseExpiry::Waiter;
    let g = props.guard;
    html! {
        <div class="fp-group" role="group" aria-label="Lease row" data-testid="lease-options">
            <label>
                <span class="fp-group-name">{ "Expiry judged by" }</span>
                <select onchange={expiry} data-testid="lease-expiry">
                    <option value="database" selected={!waiter}>{ "the database's now()" }</option>
                    <option value="waiter" selected={waiter}>{ "the waiter's own clock" }</option>
                </select>
            </label>
            <label>
                <span class="fp-group-name">{ "Also checked" }</span>
                <select onchange={guard} data-testid="lease-guard">
                    <option value="none" selected={g == LeaseGuard::None}>{ "only the account row" }</option>
                    <option value="unique_ledger" selected={g == LeaseGuard::UniqueLedger}>{ "ledger UNIQUE(account, generation)" }</option>
                    <option value="live_lease" selected={g == LeaseGuard::LiveLease}>{ "the live lease, in the write" }</option>
                </select>
            </label>
        </div>
    }
}
