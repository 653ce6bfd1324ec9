//! Messages as arrows from a client to the lock service or the storage, from the instant they
//! were sent to the instant they arrived, so a delayed packet is visibly long. One pure
//! drawing for the full page's component (`lanes/messages.rs`) and for the live drag path
//! (`ui/live.rs`), which writes only what changed.

use super::node::El;
use crate::sim::trace::{MessageSpan, Target};
use crate::sim::Trace;
use crate::ui::lanes::geometry::{colour_class, LaneKind, Layout};

/// The arrows of `t`'s messages, in one `<g>`; `uid` prefixes the arrowhead's id. The arrows
/// take no pointer and are hidden from assistive technology (what each message did is in the
/// badges, the storage's lane and the narration), so they carry no `<title>`: one could never be
/// shown, and a drag would rewrite each one's text on every frame.
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
        let key = arrow_key(m);
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
        Some(
            El::new("line")
                .a("class", class)
                .a("x1", x1)
                .a("y1", y1)
                .a("x2", x2)
                .a("y2", y2)
                .a_opt("marker-end", (!m.lost).then(|| arrow.clone()))
                .key(key as usize),
        )
    }))
}

/// A name for a message's arrow that stays the same from one run to the next while the
/// message stands for the same thing (its client, event, target, instance and lock
/// generation), so a drag that adds, drops or reorders messages moves the arrows that stay
/// instead of redrawing every one after the change. A hash: arrows that share one (a request
/// sent again for the same event) leave the list unkeyed, and the diff then splices it.
fn arrow_key(m: &MessageSpan) -> u32 {
    let target = match m.target {
        Target::Lock => 1,
        Target::Storage => 2,
    };
    let parts = [
        m.client as u64,
        m.event.map_or(0, |e| e as u64 + 1),
        target,
        m.instance.map_or(0, |i| i as u64 + 1),
        m.generation,
    ];
    let h = parts.into_iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, p| {
        (h ^ p).wrapping_mul(0x0100_0000_01b3)
    });
    (h ^ (h >> 32)) as u32
}
