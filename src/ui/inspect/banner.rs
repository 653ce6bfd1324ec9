//! The verdict banner: "✓ Safe" or "✗ Unsafe" with the checker's violations and notes; apart
//! from it, under its own heading, what the work lost (the checker's liveness observations);
//! the comparison the core chose (`sim::compare`) with its outcome, so the point is made
//! before anyone clicks; and the legend of the words "holds", "believes" and "valid". Every
//! word comes from the two traces, the contrast and `sim::words`.

use crate::sim::compare::{summary, Contrast};
use crate::sim::words::LEGEND;
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct BannerProps {
    pub trace: Rc<Trace>,
    pub ghost: Rc<Trace>,
    pub contrast: Rc<Contrast>,
}

impl PartialEq for BannerProps {
    fn eq(&self, other: &Self) -> bool {
        fn words(t: &Trace) -> (&crate::sim::Verdict, i64, Option<u64>) {
            (&t.verdict, t.final_balance, t.last_fence)
        }
        self.contrast == other.contrast
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
    // The legend is shown wherever the verdict uses its words.
    let legend = !v.violations.is_empty() || !v.liveness.is_empty();
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
            if !v.liveness.is_empty() {
                <div class="fp-liveness" data-testid="liveness">
                    <span class="fp-liveness-word"
                        title="Safety asks whether anything wrong was written; liveness asks whether the work got done.">
                        { "⚠ Work not done" }</span>
                    <ul>
                        { for v.liveness.iter().map(|o| html! { <li>{ o.text.clone() }</li> }) }
                    </ul>
                </div>
            }
            // The comparison and the legend share one column, so the legend costs no row of its own.
            <span class="fp-verdict-side">
                <span class="fp-ghost-sum" data-testid="ghost-summary">{ summary(&props.contrast, &props.ghost) }</span>
                if legend {
                    <details class="fp-legend" data-testid="legend">
                        <summary>{ "What holds, believes and valid mean" }</summary>{ LEGEND }
                    </details>
                }
            </span>
        </div>
    }
}
