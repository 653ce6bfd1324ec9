//! Each Redlock attempt on its client's lane, in the row under the badges: a bracket from the
//! instant the client started asking to the instant it decided, labelled with the votes, the
//! time spent and the validity left ("✓ 3/5 in 16 ms · valid 42 ms", or "✗ 2/5 in 10 ms").
//! The numbers and the ✓/✗ are the trace's; the tooltip spells out the arithmetic
//! (`redlock_view`). Drawn over the client lanes, after them.

use super::node::El;
use super::{text, View};
use crate::ui::lanes::geometry::small_text_width_px;
use crate::ui::lanes::redlock_view::{attempt_labels, attempt_title};

pub(super) fn attempts(v: &View) -> El {
    let (t, l) = (v.trace, v.layout);
    let n = t.instances.len();
    let mut seen = vec![0usize; t.clients.len()];
    let all = t.acquisitions.iter().enumerate().filter_map(|(k, a)| {
        let y = l.attempt_row_top(a.client)?;
        let nth = seen.get_mut(a.client).map(|c| {
            *c += 1;
            *c - 1
        })?;
        let who = t.client_name(a.client);
        let x0 = l.axis.x(a.start_ms);
        let x1 = l.axis.x(a.end_ms).max(x0 + 2);
        // The label may run on until this client's next attempt starts.
        let next_x = t.acquisitions[k + 1..]
            .iter()
            .find(|b| b.client == a.client)
            .map_or(l.axis.right_px + 20, |b| l.axis.x(b.start_ms));
        let [long, mid, short] = attempt_labels(a, n);
        let label = [long, mid]
            .into_iter()
            .find(|s| small_text_width_px(s) + 6 <= next_x - x0)
            .unwrap_or(short);
        let class = if a.ok { "good" } else { "bad" };
        let mut g = El::g()
            .a("class", format!("fp-attempt {class}"))
            .a("data-testid", format!("attempt-{who}-{nth}"));
        if v.full() {
            g.push(El::new("title").text(attempt_title(a, who, n)));
        }
        g.push(
            El::new("path")
                .a("class", "bracket")
                .a("d", format!("M{x0},{} v-5 H{x1} v5", y + 8)),
        );
        g.push(text("small", x0, y + 19, label));
        Some(g)
    });
    El::g().a("class", "fp-attempts").children(all)
}
