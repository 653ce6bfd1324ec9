//! Messages as arrows from a client to the lock service or the storage, from the instant they
//! were sent to the instant they arrived, so a delayed packet is visibly long. One pure
//! drawing for the full page's component (`lanes/messages.rs`) and for the live drag path
//! (`ui/live.rs`), which writes only what changed.

use super::node::El;
use crate::sim::trace::Target;
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, LaneKind, Layout};

/// The arrows of `t`'s messages, in one `<g>`; `uid` prefixes the arrowhead's id.
pub fn messages(t: &Trace, l: &Layout, uid: &str) -> El {
    let g = El::g()
        .a("class", "fp-messages")
        .a("aria-hidden", "true")
        .a("pointer-events", "none");
    let Some(storage) = l.lane(LaneKind::Storage) else {
        return g;
    };
    let lock = l.lane(LaneKind::Lock);
    let arrow = format!("url(#{uid}-arrow)");
    g.children(t.messages.iter().filter_map(|m| {
        let from = l.lane(LaneKind::Client(m.client))?;
        let (x1, x2) = (l.axis.x(m.sent_ms), l.axis.x(m.arrived_ms));
        let (y1, y2) = match m.target {
            // Redlock with a lane per instance: to the addressed instance's keys.
            Target::Lock => match m.instance.and_then(|i| l.lane(LaneKind::Instance(i))) {
                Some(inst) => (from.top_px + 22, inst.top_px + 23),
                None => (from.top_px + 22, lock?.top_px + 38),
            },
            Target::Storage => (from.top_px + 40, storage.top_px + 8),
        };
        let class = match m.lost {
            true => format!("fp-msg {} lost", colour_class(m.client)),
            false => format!("fp-msg {}", colour_class(m.client)),
        };
        let how = if m.lost { "lost at" } else { "arrived" };
        Some(
            El::new("line")
                .a("class", class)
                .a("x1", x1)
                .a("y1", y1)
                .a("x2", x2)
                .a("y2", y2)
                .a_opt("marker-end", (!m.lost).then(|| arrow.clone()))
                .child(El::new("title").text(format!(
                    "{} at {} ms, {how} {} ms",
                    m.label, m.sent_ms, m.arrived_ms
                ))),
        )
    }))
}
