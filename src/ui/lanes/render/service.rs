//! Redlock collapsed into one "lock service" lane: for each client, the stretches in which it
//! held unexpired keys on a majority of instances, and below them the instances' clock jumps,
//! crashes and partitions as marks with the trace's words. Majorities never overlap (any two
//! share an instance), so a second holder shows up in the client lanes, as a belief.

use super::node::El;
use super::text;
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, small_text_width_px, LaneKind, Layout};

pub(super) fn service_lane(l: &Layout, t: &Trace) -> Option<El> {
    let top = l.lane(LaneKind::Lock)?.top_px;
    let (bar_y, bar_h) = (top + 8, 22);
    let n = t.instances.len();
    let mut g = El::g()
        .a("class", "fp-lane fp-lock-lane")
        .a("data-testid", "lane-lock")
        .child(text("lane-name", 10, top + 24, "lock"))
        .child(text("muted small", 10, top + 40, format!("{n} instances,")))
        .child(text(
            "muted small",
            10,
            top + 54,
            format!("{} needed", t.majority),
        ));
    for (k, h) in t.majorities.iter().enumerate() {
        let x0 = l.axis.x(h.start_ms);
        let x1 = l.axis.x(h.end_ms).max(x0 + 2);
        let who = t.client_name(h.client);
        let label = [format!("{who} holds a majority"), who.to_string()]
            .into_iter()
            .find(|s| small_text_width_px(s) + 10 <= x1 - x0);
        let why = format!(
            "{who} held keys on {} or more of {n} instances from {} to {} ms",
            t.majority, h.start_ms, h.end_ms
        );
        let mut span = El::g()
            .a("class", format!("fp-lease {}", colour_class(h.client)))
            .a("data-testid", format!("majority-{k}"))
            .child(El::new("title").text(why))
            .child(
                El::new("rect")
                    .a("x", x0)
                    .a("y", bar_y)
                    .a("width", x1 - x0)
                    .a("height", bar_h)
                    .a("rx", 4),
            );
        if let Some(words) = label {
            span.push(
                El::new("text")
                    .a("x", x0 + 6)
                    .a("y", bar_y + 16)
                    .text(words),
            );
        }
        g.push(span);
    }
    let marks = &t.instance_marks;
    let mark_y = top + 46;
    for (k, m) in marks.iter().enumerate() {
        let x = l.axis.x(m.at_ms);
        let next_x = marks
            .get(k + 1)
            .map_or(l.axis.right_px + 20, |n| l.axis.x(n.at_ms));
        let mut mark = El::g()
            .a("class", "fp-imark")
            .a("data-testid", format!("imark-{k}"))
            .child(El::new("title").text(format!("{} ms: {}", m.at_ms, m.text)))
            .child(El::new("path").a("d", format!("M{x},{mark_y} l-4,7 h8 z")));
        if small_text_width_px(&m.text) + 12 <= next_x - x {
            mark.push(text("small muted", x + 6, mark_y + 8, m.text.clone()));
        }
        g.push(mark);
    }
    Some(g)
}
