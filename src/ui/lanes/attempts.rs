//! Each Redlock attempt on its client's lane, in the row under the badges: a bracket from the
//! instant the client started asking to the instant it decided, labelled with the votes, the
//! time spent and the validity left ("✓ 3/5 in 16 ms · valid 42 ms", or "✗ 2/5 in 10 ms").
//! The numbers and the ✓/✗ are the trace's; the tooltip spells out the arithmetic.

use super::geometry::{small_text_width_px, Layout};
use super::redlock_view::{attempt_labels, attempt_title};
use crate::sim::Trace;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct AttemptsProps {
    pub trace: Rc<Trace>,
    pub layout: Rc<Layout>,
}

impl PartialEq for AttemptsProps {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout
            && super::same_part(&self.trace, &other.trace, |t| {
                (&t.acquisitions, &t.clients, t.instances.len())
            })
    }
}

#[component]
pub fn Attempts(props: &AttemptsProps) -> Html {
    let (t, l) = (&props.trace, &props.layout);
    let n = t.instances.len();
    let mut seen = vec![0usize; t.clients.len()];
    html! {
        <g class="fp-attempts">
            { for t.acquisitions.iter().enumerate().filter_map(|(k, a)| {
                let y = l.attempt_row_top(a.client)?;
                let nth = seen.get_mut(a.client).map(|c| { *c += 1; *c - 1 })?;
                let who = t.client_name(a.client);
                let x0 = l.axis.x(a.start_ms);
                let x1 = l.axis.x(a.end_ms).max(x0 + 2);
                // The label may run on until this client's next attempt starts.
                let next_x = t.acquisitions[k + 1..]
                    .iter()
                    .find(|b| b.client == a.client)
                    .map_or(l.axis.right_px + 20, |b| l.axis.x(b.start_ms));
                let labels = attempt_labels(a, n);
                let label = labels.iter().find(|s| small_text_width_px(s) + 6 <= next_x - x0)
                    .unwrap_or(&labels[2]).clone();
                let class = if a.ok { "good" } else { "bad" };
                Some(html! {
                    <g class={classes!("fp-attempt", class)} data-testid={format!("attempt-{who}-{nth}")}>
                        <title>{ attempt_title(a, who, n) }</title>
                        <path class="bracket" d={format!("M{x0},{} v-5 H{x1} v5", y + 8)} />
                        <text class="small" x={x0.to_string()} y={(y + 19).to_string()}>{ label }</text>
                    </g>
                })
            }) }
        </g>
    }
}
