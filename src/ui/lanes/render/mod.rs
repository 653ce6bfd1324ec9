//! The one lane renderer: a pure function from a run and its comparison to the drawing of the
//! timeline's lanes (the lock service's lanes, one lane per client, the storage and the
//! comparison, and Redlock's attempt brackets over the client lanes), as a tree of elements
//! (`node`). The first stage writes it as markup; the full page mounts it in one `<g>`
//! (`lanes_view.rs`) and, frame after frame, applies only what `diff` finds changed
//! (`patch.rs`): no virtual DOM per lane or event mid-drag. Plain Rust, tested natively: what a
//! lane shows is asserted on the tree.
//!
//! The lock service's lanes are drawn here for every service: a single Redis, etcd, the
//! advisory lock, ZooKeeper, a database lease row (`lease`), Redlock collapsed into one lane (`service`) or Redlock with a lane
//! per instance (`instance`), whose events are dragged and, on the full page, focused like a
//! client's. The first stage never draws Redlock, and its build leaves those lanes out.

pub mod batch;
pub mod diff;
pub mod ground;
pub mod messages;
pub mod node;
pub mod verdict;

mod advisory;
mod attempts;
mod client;
mod etcd;
mod instance;
mod lease;
mod lock;
mod service;
mod storage;
mod zk;

use super::geometry::{LaneKind, Layout};
use crate::sim::compare::Contrast;
use crate::sim::trace::ServiceKind;
use crate::sim::{Scenario, Trace};
use crate::ui::model::selection::Selection;
use node::El;

/// Everything the lanes are drawn from.
pub struct View<'a> {
    pub scenario: &'a Scenario,
    pub trace: &'a Trace,
    /// The comparison's run, and what it changes, in words.
    pub ghost: &'a Trace,
    pub contrast: &'a Contrast,
    pub layout: &'a Layout,
    /// The prefix of the SVG's pattern ids.
    pub uid: &'a str,
    /// The selected event (a client's or an instance's), if any.
    pub selection: Selection,
    /// Where the playhead is: an instance lane shows its clock's offset there.
    pub playhead_ms: u64,
    /// Whether the pause edges and debit arrivals get handles (not in a read-only view).
    pub handles: bool,
    /// Whether the events take the keyboard (focusable, with roles, names and values for a
    /// screen reader); the first stage takes the pointer only.
    pub keyboard: bool,
}

impl View<'_> {
    /// Whether the parts take the keyboard (with their names and values) and carry tooltips:
    /// the full page. The first stage's build compiles none of it.
    fn full(&self) -> bool {
        self.keyboard && !cfg!(feature = "first-stage")
    }

    /// `g` focusable, with its role and name, where the parts take the keyboard.
    fn keyboard(&self, g: El, role: &'static str, label: impl FnOnce() -> String) -> El {
        if self.full() {
            g.a("tabindex", 0).a("role", role).a("aria-label", label())
        } else {
            g
        }
    }

    /// Whether Redlock's lanes (per instance, or one for the service) and its attempt brackets
    /// may be drawn: never in the first stage's build, which never draws Redlock.
    fn redlock(&self) -> bool {
        !cfg!(feature = "first-stage") && self.scenario.lock.redlock().is_some()
    }
}

/// One lane the renderer draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKey {
    Lock,
    /// One Redlock instance's lane.
    Instance(usize),
    Client(usize),
    Storage,
    Ghost,
    /// Redlock's attempt brackets, in the client lanes' bottom rows, drawn over them.
    Attempts,
}

/// The lanes the renderer draws for `v`, in drawing order (those the layout has room for).
pub fn keys(v: &View) -> Vec<LaneKey> {
    let has = |k: LaneKind| v.layout.lane(k).is_some();
    let mut keys = Vec::new();
    if v.redlock() {
        let n = v.scenario.lock.redlock().map_or(0, |r| r.instances.len());
        keys.extend(
            (0..n)
                .filter(|&i| has(LaneKind::Instance(i)))
                .map(LaneKey::Instance),
        );
    }
    if has(LaneKind::Lock) {
        keys.push(LaneKey::Lock);
    }
    keys.extend(
        (0..v.scenario.clients.len())
            .filter(|&c| has(LaneKind::Client(c)))
            .map(LaneKey::Client),
    );
    keys.extend(
        [
            (LaneKind::Storage, LaneKey::Storage),
            (LaneKind::Ghost, LaneKey::Ghost),
        ]
        .into_iter()
        .filter(|(k, _)| has(*k))
        .map(|(_, key)| key),
    );
    if v.redlock() && v.layout.attempt_rows {
        keys.push(LaneKey::Attempts);
    }
    keys
}

/// One lane's drawing.
pub fn lane(v: &View, key: LaneKey) -> Option<El> {
    match key {
        LaneKey::Lock => match v.trace.kind() {
            ServiceKind::Etcd => etcd::etcd_lane(v.layout, v.trace),
            ServiceKind::Advisory => advisory::advisory_lane(v.layout, v.trace),
            ServiceKind::Zookeeper => zk::zk_lane(v.layout, v.trace),
            ServiceKind::Lease => lease::lease_lane(v.layout, v.trace),
            // Redlock with one lane for the service (the layout's room decides); the first
            // stage never draws Redlock, and its build leaves this lane out.
            ServiceKind::Single | ServiceKind::Redlock if v.redlock() => {
                service::service_lane(v.layout, v.trace)
            }
            ServiceKind::Single | ServiceKind::Redlock => lock::lock_lane(v.layout, v.trace),
        },
        LaneKey::Instance(i) if v.redlock() => instance::instance_lane(v, i),
        LaneKey::Instance(_) => None,
        LaneKey::Attempts if v.redlock() => Some(attempts::attempts(v)),
        LaneKey::Attempts => None,
        LaneKey::Client(c) => client::client_lane(v, c),
        LaneKey::Storage => storage::storage_lane(v, false),
        LaneKey::Ghost => storage::storage_lane(v, true),
    }
}

/// Every lane of `v` with its key, in drawing order.
pub fn drawn(v: &View) -> Vec<(LaneKey, El)> {
    keys(v)
        .into_iter()
        .filter_map(|k| Some((k, lane(v, k)?)))
        .collect()
}

/// The lanes, in drawing order, as the children of one `<g class="fp-lanes">`.
pub fn lanes(v: &View) -> El {
    El::g()
        .a("class", "fp-lanes")
        .children(drawn(v).into_iter().map(|(_, e)| e))
}

/// Whether lane `key` draws the same in `a` and in `b`: it reads nothing that differs (the
/// parts of the scenario and the runs it draws, compared in place, the layout and the mode).
/// Mid-drag most lanes are the same from frame to frame, and are neither drawn nor compared.
pub fn same(a: &View, b: &View, key: LaneKey) -> bool {
    let mode = (a.uid, a.handles, a.keyboard);
    if a.layout != b.layout || mode != (b.uid, b.handles, b.keyboard) {
        return false;
    }
    let (ta, tb) = (a.trace, b.trace);
    let same_run = std::ptr::eq(ta, tb);
    match key {
        LaneKey::Lock => {
            same_run
                || (ta.leases == tb.leases
                    && ta.clients == tb.clients
                    && ta.etcd == tb.etcd
                    && ta.advisory == tb.advisory
                    && ta.zookeeper == tb.zookeeper
                    && ta.lease == tb.lease
                    && ta.majorities == tb.majorities
                    && ta.instance_marks == tb.instance_marks
                    && (ta.majority, ta.instances.len()) == (tb.majority, tb.instances.len()))
        }
        LaneKey::Instance(i) => same_instance(a, b, i),
        LaneKey::Attempts => {
            same_run
                || (ta.acquisitions == tb.acquisitions
                    && ta.clients == tb.clients
                    && ta.instances.len() == tb.instances.len())
        }
        LaneKey::Client(c) => {
            let on = |v: &View| {
                v.selection
                    .event()
                    .filter(|r| r.client == c)
                    .map(|r| r.event)
            };
            let mine = |s: &&crate::sim::trace::Step| s.client == c;
            let held = |s: &&crate::sim::trace::BeliefSpan| s.client == c;
            on(a) == on(b)
                && a.scenario.clients.get(c) == b.scenario.clients.get(c)
                && (same_run
                    || (ta
                        .steps
                        .iter()
                        .filter(mine)
                        .eq(tb.steps.iter().filter(mine))
                        && ta
                            .beliefs
                            .iter()
                            .filter(held)
                            .eq(tb.beliefs.iter().filter(held))))
        }
        LaneKey::Storage => same_run || same_storage(ta, tb),
        LaneKey::Ghost => {
            a.contrast == b.contrast
                && (std::ptr::eq(a.ghost, b.ghost) || same_storage(a.ghost, b.ghost))
        }
    }
}

/// Whether instance `i`'s lane draws the same in `a` and in `b`: its settings and events, its
/// selected event, its clock's reading at the playhead, and its keys with their holders' names.
fn same_instance(a: &View, b: &View, i: usize) -> bool {
    use super::redlock_view::clock_text;
    let on = |v: &View| {
        v.selection
            .instance()
            .filter(|r| r.instance == i)
            .map(|r| r.event)
    };
    let (ia, ib) = (instance::instance(a, i), instance::instance(b, i));
    let clock = |v: &View, inst: Option<&crate::sim::scenario::Instance>| {
        inst.map(|inst| clock_text(inst, v.playhead_ms))
    };
    let mine = |k: &&crate::sim::trace::LeaseSpan| k.instance == i;
    let (ta, tb) = (a.trace, b.trace);
    ia == ib
        && on(a) == on(b)
        && (a.playhead_ms == b.playhead_ms || clock(a, ia) == clock(b, ib))
        && (std::ptr::eq(ta, tb)
            || (ta.clients == tb.clients
                && ta
                    .leases
                    .iter()
                    .filter(mine)
                    .eq(tb.leases.iter().filter(mine))))
}

/// The parts of a run a storage lane draws.
fn same_storage(a: &Trace, b: &Trace) -> bool {
    a.writes == b.writes
        && a.balance == b.balance
        && a.clients == b.clients
        && a.final_balance == b.final_balance
        && a.verdict.safe == b.verdict.safe
}

/// The hit rectangles, moved by `(dx, dy)` (a marker's are drawn inside its translation).
fn hit_rects(g: &mut El, rects: &[super::hits::Rect], (dx, dy): (i32, i32)) {
    for r in rects {
        g.push(
            El::new("rect")
                .a("class", "hit")
                .a("x", r.x - dx)
                .a("y", r.y - dy)
                .a("width", r.w)
                .a("height", r.h),
        );
    }
}

/// A `<text>` with its class and place.
fn text(class: impl Into<node::Val>, x: i32, y: i32, words: impl Into<String>) -> El {
    El::new("text")
        .a("class", class)
        .a("x", x)
        .a("y", y)
        .text(words)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_redlock;
