//! The verdict banner: "✓ Safe" or "✗ Unsafe" with the checker's violations and notes; apart
//! from it, under its own heading, what the work lost (the checker's liveness observations);
//! the comparison the core chose (`sim::compare`) with its outcome, so the point is made
//! before anyone clicks; and the legend of the words "holds", "believes" and "valid". Every
//! word comes from the two traces, the contrast and `sim::words`. One pure drawing for the
//! banner's component (`inspect/banner.rs`) and for the live drag path (`ui/live.rs`).

use super::node::El;
use crate::sim::compare::{summary, Contrast};
use crate::sim::words::LEGEND;
use crate::sim::Trace;

/// The banner of `trace`, beside the comparison `contrast` with its run `ghost`.
pub fn banner(trace: &Trace, ghost: &Trace, contrast: &Contrast) -> El {
    let v = &trace.verdict;
    let (class, word) = if v.safe {
        ("fp-verdict safe", "✓ Safe")
    } else {
        ("fp-verdict unsafe", "✗ Unsafe")
    };
    let items = |xs: Vec<String>| El::new("ul").children(xs.into_iter().map(|x| li(&x)));
    let mut b = El::new("div")
        .a("class", class)
        .a("role", "status")
        .a("aria-live", "polite")
        .a("data-testid", "verdict")
        .child(span("fp-verdict-word", word).a("data-testid", "verdict-word"))
        .child(El::new("span").text(balance(trace)));
    if !v.violations.is_empty() {
        let texts = v.violations.iter().map(|x| x.text.clone()).collect();
        b.push(items(texts).a("data-testid", "violations"));
    }
    for n in &v.notes {
        b.push(span("fp-ghost-sum", n));
    }
    if !v.liveness.is_empty() {
        let texts = v.liveness.iter().map(|o| o.text.clone()).collect();
        b.push(
            El::new("div")
                .a("class", "fp-liveness")
                .a("data-testid", "liveness")
                .child(span("fp-liveness-word", "⚠ Work not done").a(
                    "title",
                    "Safety asks whether anything wrong was written; liveness asks whether the work got done.",
                ))
                .child(items(texts)),
        );
    }
    // The comparison and the legend share one column, so the legend costs no row of its own;
    // the legend is shown wherever the verdict uses its words.
    let mut side = El::new("span")
        .a("class", "fp-verdict-side")
        .child(span("fp-ghost-sum", &summary(contrast, ghost)).a("data-testid", "ghost-summary"));
    if !v.violations.is_empty() || !v.liveness.is_empty() {
        side.push(
            El::new("details")
                .a("class", "fp-legend")
                .a("data-testid", "legend")
                .child(El::new("summary").text("What holds, believes and valid mean"))
                .child(El::new("span").text(LEGEND)),
        );
    }
    b.child(side)
}

/// "Balance 80, last fence 34".
fn balance(t: &Trace) -> String {
    match t.last_fence {
        Some(f) => format!("Balance {}, last fence {f}", t.final_balance),
        None => format!("Balance {}", t.final_balance),
    }
}

fn span(class: &str, text: &str) -> El {
    El::new("span").a("class", class.to_string()).text(text)
}

fn li(text: &str) -> El {
    El::new("li").text(text)
}
