//! The verdict banner: "✓ Safe" or "✗ Unsafe" with the checker's violations and notes, and
//! the ghost run's outcome beside it ("Without fencing: balance 80, ✗ unsafe"), so the point
//! is made before anyone clicks. Every word comes from the two traces.

use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct BannerProps {
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    pub ghost_fenced: bool,
}

impl PartialEq for BannerProps {
    fn eq(&self, other: &Self) -> bool {
        fn words(t: &Trace) -> (&crate::sim::Verdict, i64, Option<u64>) {
            (&t.verdict, t.final_balance, t.last_fence)
        }
        self.ghost_fenced == other.ghost_fenced
            && super::same_part(&self.trace, &other.trace, words)
            && super::same_part(&self.ghost, &other.ghost, words)
    }
}

#[component]
pub fn Banner(props: &BannerProps) -> Html {
    let v = &props.trace.verdict;
    let (class, word) = if v.safe {
        ("safe", "✓ Safe")
    } else {
        ("unsafe", "✗ Unsafe")
    };
    let ghost = &props.ghost;
    let ghost_word = if ghost.verdict.safe {
        "✓ safe"
    } else {
        "✗ unsafe"
    };
    let ghost_name = if props.ghost_fenced {
        "With strict fencing"
    } else {
        "Without fencing"
    };
    html! {
        <div class={classes!("fp-verdict", class)} role="status" aria-live="polite" data-testid="verdict">
            <span class="fp-verdict-word" data-testid="verdict-word">{ word }</span>
            <span>{ format!("Balance {}", props.trace.final_balance) }
                { props.trace.last_fence.map(|f| format!(", last fence {f}")).unwrap_or_default() }</span>
            if !v.violations.is_empty() {
                <ul data-testid="violations">
                    { for v.violations.iter().map(|x| html! { <li>{ x.text.clone() }</li> }) }
                </ul>
            }
            { for v.notes.iter().map(|n| html! { <span class="fp-ghost-sum">{ n.clone() }</span> }) }
            <span class="fp-ghost-sum" data-testid="ghost-summary">
                { format!("{ghost_name}: ") }<b>{ format!("balance {}, {ghost_word}", ghost.final_balance) }</b>
            </span>
        </div>
    }
}
