//! One client's lane. On top, when the client believes it holds the lock, with the stretch
//! where it believes so after its lease ended drawn hatched in red and labelled: that gap is the
//! whole lesson. Below: each event as a marker (pauses as hatched bars with edge handles), and
//! under them a badge per event with the step text the core wrote for it.
//!
//! The lane's parts sit in groups that keep their shape from frame to frame (the beliefs, the
//! events keyed by their index, the badges; an event's optional lines in a group of their own),
//! so a drag changes attributes and text, and moves an event only when the time order changes.

use super::node::{El, Val};
use super::{hit_rects, text, View};
use crate::sim::trace::{Outcome, Step};
use crate::sim::words::fence_name;
use crate::sim::{Event, Trace};
use crate::ui::lanes::describe::{aria_label, badge_step, event_label, mark, next_point_x, shape};
use crate::ui::lanes::geometry::{
    colour_class, order_of, place_labels, small_text_width_px, LaneKind, Layout,
};
use crate::ui::lanes::hits::{client_hits, PartHit, Rect, MARK_Y, PAUSE_H, PAUSE_Y};
use crate::ui::model::item::Part;

const BELIEF_Y: i32 = 4;
const BELIEF_H: i32 = 14;
const BADGE_Y: [i32; 2] = [80, 95];

/// When the event actually ran: a step due during a pause runs when the client wakes.
fn ran_at(steps: &[Step], client: usize, event: usize, at_ms: u64) -> u64 {
    steps
        .iter()
        .find(|s| {
            s.client == client && s.event == Some(event) && !matches!(s.outcome, Outcome::Woke)
        })
        .map_or(at_ms, |s| s.at_ms)
}

pub(super) fn client_lane(v: &View, c: usize) -> Option<El> {
    let l = v.layout;
    let top = l.lane(LaneKind::Client(c))?.top_px;
    let client = v.scenario.clients.get(c)?;
    let name = client.name.as_str();
    let events = &client.events;
    let starts: Vec<i64> = events.iter().map(|e| e.at_ms() as i64).collect();
    let order = order_of(&starts);
    // Where each point marker sits, to know how much room its label has.
    let points: Vec<(usize, i32)> = order
        .iter()
        .filter(|&&i| !matches!(events[i], Event::Pause { .. }))
        .map(|&i| (i, l.axis.x(events[i].at_ms())))
        .collect();
    // Where each part is grabbed: the only elements of the lane that take the pointer.
    let hits = client_hits(l, top, events, v.handles);
    let lane = Lane {
        v,
        c,
        name,
        top,
        hits: &hits,
    };
    let items = order
        .iter()
        .map(|&i| lane.event(i, &events[i], &points).key(i));
    Some(
        El::g()
            .a("class", "fp-lane fp-client-lane")
            .a("data-testid", format!("lane-{name}"))
            .a("data-lane", c)
            .child(
                El::g().a("class", colour_class(c)).child(
                    El::new("circle")
                        .a("class", "fp-swatch")
                        .a("cx", 16)
                        .a("cy", top + 24)
                        .a("r", 6),
                ),
            )
            .child(text("lane-name", 28, top + 29, name))
            .child(text("muted small", 10, top + 46, "client"))
            .child(beliefs(v, c, name, top))
            .child(El::g().children(items))
            .child(badges(l, v.trace, c, name, top, events, &order)),
    )
}

/// What the client believes: held, then (hatched) held after its lease ended.
fn beliefs(v: &View, c: usize, name: &str, top: i32) -> El {
    let l = v.layout;
    let spans = v.trace.beliefs.iter().filter(|b| b.client == c);
    El::g().children(spans.enumerate().map(|(i, b)| {
        let x0 = l.axis.x(b.start_ms);
        let x_end = l.axis.x(b.end_ms).max(x0 + 2);
        let x_stale = b.stale_from_ms.map(|s| l.axis.x(s).clamp(x0, x_end));
        let held_end = x_stale.unwrap_or(x_end);
        let y = top + BELIEF_Y;
        let mut g = El::g()
            .a("class", format!("fp-belief {}", colour_class(c)))
            .a("data-testid", format!("belief-{name}-{i}"))
            .child(
                El::new("rect")
                    .a("class", "held")
                    .a("x", x0)
                    .a("y", y)
                    .a("width", (held_end - x0).max(0))
                    .a("height", BELIEF_H)
                    .a("rx", 3),
            );
        let held = match b.fence {
            Some(f) => format!("believes it holds {} {f}", fence_name(v.trace)),
            None => "believes it holds the lock".to_string(),
        };
        if small_text_width_px(&held) + 8 < held_end - x0 {
            g.push(text("small", x0 + 5, y + 11, held));
        }
        if let Some(xs) = x_stale {
            let mut stale = El::new("rect")
                .a("class", "stale")
                .a("x", xs)
                .a("y", y)
                .a("width", (x_end - xs).max(1))
                .a("height", BELIEF_H)
                .a("fill", format!("url(#{}-hatch-stale)", v.uid))
                .a("data-testid", format!("stale-{name}-{i}"));
            if v.full() {
                let why = format!(
                    "{name} still believes it holds the lock, but its lease ended at {} ms",
                    b.stale_from_ms.unwrap_or(0)
                );
                stale.push(El::new("title").text(why));
            }
            g.push(stale);
            let room = x_end - xs - 8;
            let words = [
                "✗ still believes it holds the lock",
                "✗ believes it holds the lock",
                "✗ stale belief",
                "✗",
            ];
            if let Some(w) = words.into_iter().find(|w| small_text_width_px(w) <= room) {
                g.push(text("small stale halo", xs + 4, y + 11, w));
            }
        }
        g
    }))
}

/// Badges: the step text for every event but pauses, in two rows that avoid each other.
fn badges(
    l: &Layout,
    t: &Trace,
    c: usize,
    name: &str,
    top: i32,
    events: &[Event],
    order: &[usize],
) -> El {
    let badges: Vec<(i32, usize, String, &'static str)> = order
        .iter()
        .filter(|&&i| !matches!(events[i], Event::Pause { .. }))
        .filter_map(|&i| {
            let s = badge_step(&t.steps, c, i)?;
            let m = mark(&s.outcome);
            let x = l.axis.x(ran_at(&t.steps, c, i, events[i].at_ms()));
            Some((x - 6, i, format!("{} {}", m.glyph(), s.text), m.class()))
        })
        .collect();
    let labels: Vec<(i32, &str)> = badges.iter().map(|b| (b.0, b.2.as_str())).collect();
    let placed = place_labels(&labels, l.gutter_px + 4, l.axis.right_px + 8, BADGE_Y.len());
    El::g().children(placed.into_iter().map(|(k, x, row)| {
        let (_, i, words, class) = &badges[k];
        El::g()
            .a("class", format!("fp-badge {class}"))
            .a("data-testid", format!("step-{name}-{i}"))
            .child(
                El::new("text")
                    .a("x", x)
                    .a("y", top + BADGE_Y[row % 2])
                    .text(words.clone()),
            )
    }))
}

/// One lane's fixed facts, for drawing its events.
struct Lane<'a> {
    v: &'a View<'a>,
    c: usize,
    name: &'a str,
    top: i32,
    hits: &'a [PartHit],
}

impl Lane<'_> {
    fn rects(&self, i: usize, part: Part) -> &[Rect] {
        self.hits
            .iter()
            .find(|h| h.event == i && h.part == part)
            .map_or(&[], |h| h.rects.as_slice())
    }

    /// The classes of an event's part: its kind, the client's colour, and whether it is selected.
    fn class(&self, i: usize, kind: &str) -> String {
        let selected = self
            .v
            .selection
            .event()
            .is_some_and(|r| r.client == self.c && r.event == i);
        let colour = colour_class(self.c);
        if selected {
            format!("{kind} {colour} selected")
        } else {
            format!("{kind} {colour}")
        }
    }

    /// An event's part: what takes the pointer, and with the keyboard its role and name.
    fn part(&self, i: usize, kind: &str, part: &'static str, testid: String) -> El {
        El::g()
            .a("class", self.class(i, kind))
            .a("data-ev", format!("{}-{i}", self.c))
            .a("data-part", part)
            .a("data-testid", testid)
    }

    fn keyboard(&self, g: El, role: &'static str, label: impl FnOnce() -> String) -> El {
        self.v.keyboard(g, role, label)
    }

    /// A handle's slider values: where it is on the axis.
    fn slider(&self, g: El, at_ms: u64) -> El {
        if self.v.full() {
            g.a("aria-valuemin", 0)
                .a("aria-valuemax", self.v.layout.axis.end_ms)
                .a("aria-valuenow", at_ms)
                .a("aria-valuetext", format!("{at_ms} ms"))
        } else {
            g
        }
    }

    fn event(&self, i: usize, e: &Event, points: &[(usize, i32)]) -> El {
        let (l, t) = (self.v.layout, self.v.trace);
        let aria = || {
            let step = badge_step(&t.steps, self.c, i);
            aria_label(self.name, e, step.map(|s| s.text.as_str()))
        };
        let x = l.axis.x(e.at_ms());
        match e {
            Event::Pause { cause, .. } => {
                let y = self.top + PAUSE_Y;
                let x1 = l.axis.x(e.end_ms()).max(x + 2);
                let full = event_label(e);
                let label = [full.as_str(), cause.label()]
                    .into_iter()
                    .find(|s| small_text_width_px(s) + 12 < x1 - x);
                let body = self.part(
                    i,
                    "fp-ev fp-pause",
                    "body",
                    format!("pause-{}-{i}", self.name),
                );
                let mut body = self.keyboard(body, "button", aria);
                hit_rects(&mut body, self.rects(i, Part::Body), (0, 0));
                body.push(ring(x - 3, y - 3, x1 - x + 6, PAUSE_H + 6, 4));
                body.push(
                    El::new("rect")
                        .a("class", "bar")
                        .a("x", x)
                        .a("y", y)
                        .a("width", x1 - x)
                        .a("height", PAUSE_H)
                        .a("rx", 3)
                        .a("fill", format!("url(#{}-hatch-pause)", self.v.uid)),
                );
                if let Some(words) = label {
                    body.push(text("small halo", x + 8, y + 13, words));
                }
                let mut g = El::g().child(body);
                if self.v.handles {
                    for (part, hx, at) in [(Part::Start, x, e.at_ms()), (Part::End, x1, e.end_ms())]
                    {
                        let p = part.attr();
                        let which = if part == Part::Start { "Start" } else { "End" };
                        let h =
                            self.part(i, "fp-handle", p, format!("pause-{}-{i}-{p}", self.name));
                        let label =
                            || format!("{which} of {}'s {} pause", self.name, cause.label());
                        let mut h = self.slider(self.keyboard(h, "slider", label), at);
                        hit_rects(&mut h, self.rects(i, part), (0, 0));
                        h.push(ring(hx - 6, y - 5, 12, PAUSE_H + 10, 3));
                        h.push(grip(hx - 3, y - 3, 6, PAUSE_H + 6));
                        g.push(h);
                    }
                }
                g
            }
            _ => {
                let y = self.top + MARK_Y;
                let x_ran = l.axis.x(ran_at(&t.steps, self.c, i, e.at_ms()));
                let flight = match e {
                    Event::Debit { delay_ms, .. } if *delay_ms > 0 => Some(l.axis.x(e.end_ms())),
                    _ => None,
                };
                // An event that waited (its client was paused) has a dotted line to when it
                // ran; its label goes after that line, not over it.
                let mut lines = El::g();
                if x_ran > x + 8 {
                    lines.push(line("fp-wait", (x + 8, y), (x_ran, y)));
                    lines.push(
                        El::new("circle")
                            .a("class", "fp-wait")
                            .a("cx", x_ran)
                            .a("cy", y)
                            .a("r", 3)
                            .a("fill", "none"),
                    );
                }
                if let Some(fx) = flight {
                    let class = format!("fp-flight {}", colour_class(self.c));
                    lines.push(line(class, (x, y + 10), (fx, y + 10)));
                }
                let next_x = next_point_x(points, i, l.axis.right_px);
                let words = event_label(e);
                let label_dx = if x_ran > x + 8 { x_ran - x + 6 } else { 11 };
                let body = self.part(i, "fp-ev", "body", format!("event-{}-{i}", self.name));
                let mut body = self
                    .keyboard(body, "button", aria)
                    .a("transform", format!("translate({x},{y})"));
                hit_rects(&mut body, self.rects(i, Part::Body), (x, y));
                body.push(ring(-11, -11, 22, 22, 4));
                body.push(El::new("path").a("class", "shape").a("d", shape(e)));
                if small_text_width_px(&words) + label_dx + 3 < next_x - x {
                    body.push(text("small muted", label_dx, 4, words));
                }
                let mut after = El::g();
                if let (Some(fx), true) = (flight, self.v.handles) {
                    let h = self.part(
                        i,
                        "fp-handle",
                        "end",
                        format!("debit-{}-{i}-end", self.name),
                    );
                    let label = || format!("Arrival of {}'s debit", self.name);
                    let mut h = self.slider(self.keyboard(h, "slider", label), e.end_ms());
                    hit_rects(&mut h, self.rects(i, Part::End), (0, 0));
                    h.push(ring(fx - 7, y + 3, 14, 14, 3));
                    h.push(
                        El::new("circle")
                            .a("class", "grip")
                            .a("cx", fx)
                            .a("cy", y + 10)
                            .a("r", 4),
                    );
                    after.push(h);
                }
                El::g().child(lines).child(body).child(after)
            }
        }
    }
}

/// The focus and selection ring (drawn only when focused or selected, by the style sheet).
pub(super) fn ring(x: i32, y: i32, w: i32, h: i32, rx: i32) -> El {
    El::new("rect")
        .a("class", "ring")
        .a("x", x)
        .a("y", y)
        .a("width", w)
        .a("height", h)
        .a("rx", rx)
}

fn grip(x: i32, y: i32, w: i32, h: i32) -> El {
    El::new("rect")
        .a("class", "grip")
        .a("x", x)
        .a("y", y)
        .a("width", w)
        .a("height", h)
        .a("rx", 2)
}

fn line(class: impl Into<Val>, (x1, y1): (i32, i32), (x2, y2): (i32, i32)) -> El {
    El::new("line")
        .a("class", class)
        .a("x1", x1)
        .a("x2", x2)
        .a("y1", y1)
        .a("y2", y2)
}
