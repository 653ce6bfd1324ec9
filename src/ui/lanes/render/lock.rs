//! The single lock service's lane: each lease as a bar labelled with its holder and fence, from
//! the grant to the instant the TTL ran out by the lock's clock (or a release or DEL ended it),
//! with a tick at every renewal.

use super::node::El;
use super::text;
use crate::sim::words::span_end_words;
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, text_width_px, LaneKind, Layout};

pub(super) fn lock_lane(l: &Layout, t: &Trace) -> Option<El> {
    let top = l.lane(LaneKind::Lock)?.top_px;
    let (bar_y, bar_h) = (top + 12, 24);
    let leases = t.leases.iter().enumerate().map(|(i, lease)| {
        let x0 = l.axis.x(lease.start_ms);
        let x1 = l.axis.x(lease.end_ms).max(x0 + 2);
        let who = t.client_name(lease.holder);
        let mut label = match lease.fence {
            Some(f) => format!("{who} · fence {f}"),
            None => format!("{who} · no fence"),
        };
        if text_width_px(&label) + 10 > x1 - x0 {
            label = who.to_string();
        }
        let mut g = El::g()
            .a("class", format!("fp-lease {}", colour_class(lease.holder)))
            .a("data-testid", format!("lease-{i}"))
            .child(
                El::new("rect")
                    .a("x", x0)
                    .a("y", bar_y)
                    .a("width", x1 - x0)
                    .a("height", bar_h)
                    .a("rx", 4),
            )
            .child(
                El::new("text")
                    .a("x", x0 + 6)
                    .a("y", bar_y + 17)
                    .text(label),
            );
        for &r in &lease.renewals_ms {
            let x = l.axis.x(r);
            g.push(
                El::new("line")
                    .a("class", "renewal")
                    .a("x1", x)
                    .a("x2", x)
                    .a("y1", bar_y - 4)
                    .a("y2", bar_y + bar_h + 4),
            );
        }
        let end = format!("{} at {} ms", span_end_words(&lease.end), lease.end_ms);
        if text_width_px(&end) < x1 - x0 + 20 {
            g.push(text("muted small", x1, bar_y + bar_h + 14, end).a("text-anchor", "end"));
        }
        g
    });
    Some(
        El::g()
            .a("class", "fp-lane fp-lock-lane")
            .a("data-testid", "lane-lock")
            .child(text("lane-name", 10, top + 28, "lock"))
            .child(text("muted small", 10, top + 44, "service"))
            .child(El::g().children(leases)),
    )
}
