//! One Redlock instance's lane. On top, the instance's own view of the key: who held it when,
//! by true time, with the keys a restart forgot marked. Below, the instance's events as
//! draggable (and, with the keyboard, focusable) shapes: clock jumps (a slew as a line),
//! crashes as hatched stretches and partitions as dashed ones, each with edge handles. In the
//! gutter, the instance's name and its clock's offset at the playhead (`View::playhead_ms`),
//! read from the scenario's clock settings (`redlock_view`).
//!
//! Like a client's lane, the parts sit in groups that keep their shape from frame to frame (the
//! keys, the events keyed by their index; a jump's slew line in a group of its own), so a drag
//! changes attributes and text, and moves an event only when the time order changes.

use super::client::ring;
use super::node::El;
use super::{hit_rects, text, View};
use crate::sim::scenario::{Instance, InstanceEvent};
use crate::sim::trace::{LeaseSpan, SpanEnd};
use crate::sim::words::span_end_words;
use crate::ui::lanes::geometry::{colour_class, order_of, small_text_width_px, LaneKind};
use crate::ui::lanes::hits::{
    instance_hits, rects_of, PartHit, INSTANCE_EVENT_H as EVENT_H, INSTANCE_EVENT_Y as EVENT_Y,
};
use crate::ui::lanes::redlock_view::{clock_text, instance_event_labels};
use crate::ui::model::item::Part;

const KEY_Y: i32 = 5;
const KEY_H: i32 = 17;

/// The longest label that fits in `room_px`, if any.
fn fitting<S: AsRef<str>>(labels: &[S], room_px: i32) -> Option<String> {
    labels
        .iter()
        .map(AsRef::as_ref)
        .find(|s| small_text_width_px(s) + 8 <= room_px)
        .map(str::to_string)
}

/// The instance `i` of `v`'s Redlock service, if it has one.
pub(super) fn instance<'a>(v: &View<'a>, i: usize) -> Option<&'a Instance> {
    v.scenario.lock.redlock()?.instances.get(i)
}

pub(super) fn instance_lane(v: &View, i: usize) -> Option<El> {
    let l = v.layout;
    let top = l.lane(LaneKind::Instance(i))?.top_px;
    let inst = instance(v, i)?;
    let name = inst.name.as_str();
    let keys: Vec<&LeaseSpan> = v.trace.leases.iter().filter(|k| k.instance == i).collect();
    let starts: Vec<i64> = inst.events.iter().map(|e| e.at_ms() as i64).collect();
    // Stable: events at the same instant keep their order.
    let order = order_of(&starts);
    // Where each part is grabbed: the only elements of the lane that take the pointer.
    let hits = instance_hits(l, top, &inst.events, v.handles);
    let lane = Lane {
        v,
        i,
        inst,
        top,
        hits: &hits,
    };
    let events = order.iter().enumerate().map(|(pos, &e)| {
        let next_x = order
            .get(pos + 1)
            .map_or(l.axis.right_px + 20, |&n| l.axis.x(inst.events[n].at_ms()));
        lane.event(e, next_x).key(e)
    });
    Some(
        El::g()
            .a("class", "fp-lane fp-instance-lane")
            .a("data-testid", format!("instance-{name}"))
            .a("data-instance", i)
            .child(text("lane-name", 10, top + 19, name))
            .child(
                text("muted small", 10, top + 36, clock_text(inst, v.playhead_ms))
                    .a("data-testid", format!("clock-{name}")),
            )
            .child(lane.keys(&keys))
            .child(El::g().children(events)),
    )
}

/// One lane's fixed facts, for drawing its keys and events.
struct Lane<'a> {
    v: &'a View<'a>,
    i: usize,
    inst: &'a Instance,
    top: i32,
    hits: &'a [PartHit],
}

impl Lane<'_> {
    /// Who held the key on this instance when: a bar per key, labelled with its holder (and
    /// fence), and "✗ forgotten" after a key a restart lost.
    fn keys(&self, keys: &[&LeaseSpan]) -> El {
        let (l, name) = (self.v.layout, self.inst.name.as_str());
        let who = |c: usize| self.v.trace.clients.get(c).map_or("?", String::as_str);
        El::g().children(keys.iter().enumerate().map(|(k, key)| {
            let x0 = l.axis.x(key.start_ms);
            let x1 = l.axis.x(key.end_ms).max(x0 + 2);
            let holder = who(key.holder);
            let fenced = key.fence.map(|f| format!("{holder} · fence {f}"));
            let label = fitting(&[fenced.as_deref().unwrap_or(holder), holder], x1 - x0);
            let forgotten = key.end == SpanEnd::Forgotten;
            let next_x = keys
                .get(k + 1)
                .map_or(l.axis.right_px + 20, |n| l.axis.x(n.start_ms));
            let mark = forgotten
                .then(|| fitting(&["✗ forgotten", "✗"], next_x - x1))
                .flatten();
            let y = self.top + KEY_Y;
            let class = match forgotten {
                true => format!("fp-key {} forgotten", colour_class(key.holder)),
                false => format!("fp-key {}", colour_class(key.holder)),
            };
            let mut g = El::g()
                .a("class", class)
                .a("data-testid", format!("key-{name}-{k}"));
            if self.v.full() {
                let why = format!(
                    "{name}: {holder}'s key from {} to {} ms, {}",
                    key.start_ms,
                    key.end_ms,
                    span_end_words(&key.end)
                );
                g.push(El::new("title").text(why));
            }
            g.push(
                El::new("rect")
                    .a("x", x0)
                    .a("y", y)
                    .a("width", x1 - x0)
                    .a("height", KEY_H)
                    .a("rx", 3),
            );
            if let Some(words) = label {
                g.push(text("small", x0 + 4, y + 12, words));
            }
            if let Some(words) = mark {
                g.push(text("small bad", x1 + 3, y + 12, words));
            }
            g
        }))
    }

    fn selected(&self, e: usize) -> bool {
        self.v
            .selection
            .instance()
            .is_some_and(|r| r.instance == self.i && r.event == e)
    }

    /// An event's part: what takes the pointer, and with the keyboard its role and name.
    fn part(&self, e: usize, class: &str, part: Part, testid: String) -> El {
        let class = match self.selected(e) {
            true => format!("{class} selected"),
            false => class.to_string(),
        };
        El::g()
            .a("class", class)
            .a("data-iev", format!("{}-{e}", self.i))
            .a("data-part", part.attr())
            .a("data-testid", testid)
    }

    fn keyboard(&self, g: El, role: &'static str, label: impl FnOnce() -> String) -> El {
        self.v.keyboard(g, role, label)
    }

    /// One event: a jump's marker (with its slew), or a crash's or partition's bar with its
    /// handles. `next_x` is where the next event starts, up to which a label may run.
    fn event(&self, e: usize, next_x: i32) -> El {
        let (l, inst) = (self.v.layout, self.inst);
        let (name, ev) = (inst.name.as_str(), &inst.events[e]);
        let x = l.axis.x(ev.at_ms());
        let x1 = l.axis.x(ev.end_ms()).max(x + 3);
        let labels = instance_event_labels(ev, inst.clock.monotonic);
        let y = self.top + EVENT_Y;
        let aria = || {
            format!(
                "{name}: {} at {} ms. Arrow keys move it (Shift: 10 ms), Up/Down change instance, \
                 Delete removes.",
                labels[0],
                ev.at_ms()
            )
        };
        let kind = match ev {
            InstanceEvent::ClockJump { .. } => "fp-iev fp-jump",
            InstanceEvent::Crash { .. } => "fp-iev fp-crash",
            InstanceEvent::Partition { .. } => "fp-iev fp-cut",
        };
        let body = self.part(e, kind, Part::Body, format!("iev-{name}-{e}"));
        let body = self
            .keyboard(body, "button", aria)
            .a("data-at-ms", ev.at_ms());
        match ev {
            InstanceEvent::ClockJump { over_ms, .. } => {
                let slew_x = (*over_ms > 0).then(|| l.axis.x(ev.end_ms()));
                let room = slew_x.unwrap_or(x).max(x + 9).max(next_x) - x - 10;
                let mid = y + EVENT_H / 2;
                let mut body = body.a("transform", format!("translate({x},{mid})"));
                hit_rects(&mut body, rects_of(self.hits, e, Part::Body), (x, mid));
                body.push(ring(-10, -10, 20, 20, 4));
                body.push(
                    El::new("path")
                        .a("class", "shape")
                        .a("d", "M-6,-7 H6 L-6,7 H6"),
                );
                if let Some(words) = fitting(&labels, room) {
                    body.push(text("small halo", 10, 4, words));
                }
                // The slew's line, if any, in a group of its own: the body keeps its place.
                let slew = slew_x.map(|sx| {
                    El::new("line")
                        .a("class", "fp-slew")
                        .a("x1", x)
                        .a("x2", sx)
                        .a("y1", mid)
                        .a("y2", mid)
                });
                El::g().child(El::g().children(slew)).child(body)
            }
            _ => {
                // Inside the bar if it fits, else after it, up to the next event.
                let (label, label_x) = match fitting(&labels, x1 - x) {
                    Some(words) => (Some(words), x + 6),
                    None => (fitting(&labels, next_x - x1 - 6), x1 + 8),
                };
                let fill = match ev {
                    InstanceEvent::Crash { .. } => format!("url(#{}-hatch-pause)", self.v.uid),
                    _ => "none".to_string(),
                };
                let mut body = body;
                hit_rects(&mut body, rects_of(self.hits, e, Part::Body), (0, 0));
                body.push(ring(x - 3, y - 3, x1 - x + 6, EVENT_H + 6, 4));
                body.push(
                    El::new("rect")
                        .a("class", "bar")
                        .a("x", x)
                        .a("y", y)
                        .a("width", x1 - x)
                        .a("height", EVENT_H)
                        .a("rx", 3)
                        .a("fill", fill),
                );
                if let Some(words) = label {
                    body.push(text("small halo", label_x, y + 11, words));
                }
                let mut g = El::g().child(body);
                if self.v.handles {
                    for (part, hx, at) in
                        [(Part::Start, x, ev.at_ms()), (Part::End, x1, ev.end_ms())]
                    {
                        g.push(self.handle(e, part, hx, at, &labels[0]));
                    }
                }
                g
            }
        }
    }

    /// A bar's edge handle at `hx`, a slider over the axis with the keyboard.
    fn handle(&self, e: usize, part: Part, hx: i32, at_ms: u64, what: &str) -> El {
        let (l, name) = (self.v.layout, self.inst.name.as_str());
        let p = part.attr();
        let h = self.part(e, "fp-handle", part, format!("iev-{name}-{e}-{p}"));
        let which = if part == Part::Start { "Start" } else { "End" };
        let mut h = self.keyboard(h, "slider", || format!("{which} of {name}'s {what}"));
        if self.v.full() {
            h = h
                .a("aria-valuemin", 0)
                .a("aria-valuemax", l.axis.end_ms)
                .a("aria-valuenow", at_ms)
                .a("aria-valuetext", format!("{at_ms} ms"));
        }
        let y = self.top + EVENT_Y;
        hit_rects(&mut h, rects_of(self.hits, e, part), (0, 0));
        h.push(ring(hx - 5, y - 3, 10, EVENT_H + 6, 3));
        h.push(
            El::new("rect")
                .a("class", "grip")
                .a("x", hx - 2)
                .a("y", y - 1)
                .a("width", 4)
                .a("height", EVENT_H + 2)
                .a("rx", 1),
        );
        h
    }
}
